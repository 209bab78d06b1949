"""40 anonymous readers and a host on two daphne workers over PostgreSQL (issue 22, finding 1).

With the old per-thread persistent connections (conn_max_age=60) this load
took the server past max_connections and answered 500 («too many clients»).
With the pool (settings.DATABASE_POOL, the default) every answer is a 200 and
the database never holds more than workers x DATABASE_POOL_MAX_SIZE
connections, the bound the README documents. The driver is the load
benchmark's (benchmarks/db_load.py); this runs its `pool` setting only.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import db_load  # noqa: E402

pytestmark = pytest.mark.live

WORKERS = 2
POOL_MAX_SIZE = 10


def test_forty_readers_and_a_host_on_two_workers_give_no_errors_within_the_connection_bound(tmp_path: Path) -> None:
    if not db_load.postgres_up():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432 (.ci/run starts it)")
    dbname = f"{os.environ.get('TEST_DATABASE_NAME', 'test_mafia_protocol')}_load_{secrets.token_hex(3)}"
    try:
        setup = db_load.prepare(dbname)
        env = {**db_load.base_env(dbname), **db_load.SETTINGS["pool"], "DATABASE_POOL_MAX_SIZE": str(POOL_MAX_SIZE)}
        result = db_load.run_load(
            label="pool", env=env, dbname=dbname, setup=setup, workers=WORKERS, readers=40, seconds=30, log_dir=tmp_path
        )
    finally:
        db_load.drop_database(dbname)
    assert len(result.latencies) > 100, "the readers hardly ran"
    assert sum(result.host_statuses.values()) > 10, "the host hardly clicked"
    assert result.errors == 0, (result.statuses, result.host_statuses)
    assert 0 < result.max_connections <= WORKERS * POOL_MAX_SIZE
