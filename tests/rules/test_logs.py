"""Protocol logs: every shared example replays (all `expect` match, every
`"reject": true` is refused with the state unchanged); the log runner itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.rules import load_log, log_files, replay, run_file, run_log
from tests.rules.helpers import EXAMPLES_DIR, PLAYERS

EXAMPLES = sorted(EXAMPLES_DIR.rglob("*.json")) if EXAMPLES_DIR.is_dir() else []


def _id(path: Path) -> str:
    return str(path.relative_to(path.parents[1] if path.parent.name == "random" else path.parent))


def test_examples_are_there() -> None:
    assert len(EXAMPLES) >= 3, f"no example logs under {EXAMPLES_DIR} (set SHARED_DIR)"


@pytest.mark.parametrize("path", EXAMPLES, ids=_id)
def test_example_log_replays(path: Path) -> None:
    result = run_file(path)
    assert result.ok, result.failure
    assert result.checked > 0


def _log(*actions: dict) -> dict:
    return {"format": "mafia-protocol-log/1", "actions": list(actions)}


SETUP = ({"do": "seat", "players": PLAYERS}, {"do": "roles", "sheriff": 5, "don": 8, "mafia": [9, 10]}, {"do": "start"})


def test_run_log_reports_an_expect_mismatch() -> None:
    result = run_log(_log(*SETUP, {"do": "expect", "step": "speech", "day": 0}))
    assert not result.ok
    assert result.failed_at == 3
    assert 'step: expected "speech", actual "dogovorka"' in result.failure
    assert "day" not in result.failure.split("expect failed:")[1]


def test_run_log_expect_compares_lists_in_order_and_objects_exactly() -> None:
    ok = run_log(_log(*SETUP, {"do": "expect", "at_table": list(range(1, 11)), "fouls": {}, "best_move": None}))
    assert ok.ok, ok.failure
    bad = run_log(_log(*SETUP, {"do": "expect", "at_table": list(range(10, 0, -1))}))
    assert not bad.ok
    bad = run_log(_log(*SETUP, {"do": "foul", "seat": 4}, {"do": "expect", "fouls": {"4": 1, "5": 0}}))
    assert not bad.ok
    ok = run_log(_log(*SETUP, {"do": "foul", "seat": 4}, {"do": "expect", "fouls": {"4": 1}}))
    assert ok.ok, ok.failure


def test_run_log_unknown_expect_key_fails() -> None:
    result = run_log(_log(*SETUP, {"do": "expect", "stage": "x"}))
    assert not result.ok and "not a state key" in result.failure


def test_run_log_reject_must_be_refused() -> None:
    ok = run_log(
        _log(*SETUP, {"do": "nominate", "by": 1, "target": 2, "reject": True}, {"do": "expect", "nominees": []})
    )
    assert ok.ok, ok.failure
    assert ok.rejected == 1
    bad = run_log(_log(*SETUP, {"do": "next", "reject": True}))
    assert not bad.ok and "accepted" in bad.failure


def test_run_log_refused_action_fails_with_the_rule() -> None:
    result = run_log(_log(*SETUP, {"do": "nominate", "by": 1, "target": 2}))
    assert not result.ok
    assert "D3" in result.failure and "action 3" in result.failure


def test_load_log_and_log_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("b.json", "a.json", "sub/c.json"):
        (tmp_path / name).write_text(json.dumps(_log(*SETUP)), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    files = log_files([tmp_path])
    assert [f.relative_to(tmp_path).as_posix() for f in files] == ["a.json", "b.json", "sub/c.json"]
    assert load_log(files[0])["actions"][2] == {"do": "start"}
    (tmp_path / "bad.json").write_text(json.dumps({"format": "other/2", "actions": []}), encoding="utf-8")
    with pytest.raises(ValueError):
        load_log(tmp_path / "bad.json")
    assert not run_file(tmp_path / "missing.json").ok


def test_record_index_counts_applied_actions_without_expect() -> None:
    actions = [
        *SETUP,
        {"do": "next"},
        {"do": "next"},
        {"do": "expect", "step": "speech"},
        {"do": "nominate", "by": 1, "target": 4},  # applied action #5
        {"do": "foul", "seat": 2},  # #6
    ]
    state = replay(actions)
    assert state.record.nominations[0]["index"] == 5
    assert state.record.penalties[0]["index"] == 6
    assert state.count == 7
    assert state.record.speeches[0]["index"] == 4  # the `next` that began it


@pytest.mark.skipif(not EXAMPLES, reason="no examples")
def test_replay_command(capsys: pytest.CaptureFixture[str]) -> None:
    django = pytest.importorskip("django")
    from django.core.management import call_command
    from django.core.management.base import CommandError

    try:
        from django.conf import settings

        settings.INSTALLED_APPS  # noqa: B018 — configured?
    except Exception:  # pragma: no cover - Django not configured in a pure run
        pytest.skip("Django settings not configured")
    del django
    call_command("replay", str(EXAMPLES_DIR), "--json")
    out = capsys.readouterr().out
    assert out.count("\nok ") + out.startswith("ok ") == len(EXAMPLES)
    assert '"status": "finished"' in out
    bad = EXAMPLES_DIR.parent / "does-not-exist.json"
    with pytest.raises(CommandError):
        call_command("replay", str(bad))
