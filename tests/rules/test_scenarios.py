"""Replay every adversarial scenario log in tests/rules/scenarios/*.json.

The logs are written from shared/protocol-log/FORMAT.md and
shared/regulations/RULES.md only (see each file's "name"/"note");
``scenarios/_generate.py`` regenerates them. A scenario that fails because
of a known engine bug is listed in ``ENGINE_BUGS`` and runs as a strict
xfail, so the suite stays green while the bug is visible (and turns red
once the bug is fixed, as a reminder to drop the entry).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from games.rules.logfile import load_log, run_log

SCENARIOS_DIR = Path(__file__).resolve().parent / "scenarios"
FILES = sorted(SCENARIOS_DIR.glob("*.json"))

# file name -> reason (an engine bug, with the rule/FORMAT text that decides it)
ENGINE_BUGS: dict[str, str] = {}


def _param(path: Path):
    reason = ENGINE_BUGS.get(path.name)
    marks = [pytest.mark.xfail(strict=True, reason=f"engine bug: {reason}")] if reason else []
    return pytest.param(path, id=path.stem, marks=marks)


def test_scenarios_exist():
    assert len(FILES) >= 40
    assert set(ENGINE_BUGS) <= {p.name for p in FILES}


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_scenario(path: Path):
    data = load_log(path)
    assert data.get("format") == "mafia-protocol-log/1"
    result = run_log(data)
    assert result.ok, f"{path.name}: {result.failure}"
