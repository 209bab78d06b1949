"""Write every scenario JSON file: ``python tests/rules/scenarios/_generate.py``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _gen_extra  # noqa: E402
import _gen_games  # noqa: E402
import _gen_night  # noqa: E402
import _gen_penalties  # noqa: E402
import _gen_readings  # noqa: E402
import _gen_result  # noqa: E402
import _gen_setup_day  # noqa: E402
import _gen_votes  # noqa: E402


def main() -> None:
    seen = set()
    for mod in (
        _gen_setup_day,
        _gen_votes,
        _gen_night,
        _gen_penalties,
        _gen_result,
        _gen_extra,
        _gen_games,
        _gen_readings,
    ):
        for fn in mod.SCENARIOS:
            sc = fn()
            assert sc.file not in seen, sc.file
            seen.add(sc.file)
            sc.write()
    print(f"{len(seen)} scenarios written")


if __name__ == "__main__":
    main()
