"""`manage.py export_log` and `manage.py import_log` (FORMAT.md logs in and out)."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games import reading as game_reading
from games.models import Game


def run(*args, stdin=None, monkeypatch=None):
    out = io.StringIO()
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_import_then_export_round_trip(examples_dir, host):
    path = examples_dir / "red_win.json"
    game_id = int(run("import_log", str(path), "--host", "host").strip())
    game = Game.objects.get(pk=game_id)
    assert game.host == host
    assert game.title == "red_win"
    assert game.status == "finished" and game.winner == "red"
    exported = json.loads(run("export_log", str(game_id)))
    assert exported["format"] == "mafia-protocol-log/1"
    source = json.loads(path.read_text())["actions"]
    # The stored log is the host actions of the file: checkpoints are not actions.
    assert exported["actions"] == [a for a in source if a["do"] != "expect" and not a.get("reject")]
    assert exported == game_reading.game_export_log(game=game)


@pytest.mark.django_db
def test_exported_log_imports_to_the_same_game(examples_dir, host, tmp_path):
    first = int(run("import_log", str(examples_dir / "tie_and_lift.json"), "--host", "host"))
    out = tmp_path / "log.json"
    run("export_log", str(first), "-o", str(out))
    second = int(run("import_log", str(out), "--host", "host", "--title", "copy"))
    a, b = Game.objects.get(pk=first), Game.objects.get(pk=second)
    assert b.title == "copy"
    assert a.public_state == b.public_state
    assert a.action_payloads() == b.action_payloads()


@pytest.mark.django_db
def test_import_from_stdin(examples_dir, host, monkeypatch):
    text = (examples_dir / "black_win.json").read_text()
    game_id = int(run("import_log", "-", "--host", "host", stdin=text, monkeypatch=monkeypatch))
    assert Game.objects.get(pk=game_id).winner == "black"


@pytest.mark.django_db
def test_import_default_host_is_the_first_superuser(examples_dir, django_user_model):
    admin = django_user_model.objects.create_superuser(username="admin", password="x-pass-123")
    game_id = int(run("import_log", str(examples_dir / "red_win.json")))
    assert Game.objects.get(pk=game_id).host == admin


@pytest.mark.django_db
def test_import_default_host_falls_back_to_demo(examples_dir, django_user_model):
    demo = django_user_model.objects.create_user(username="demo", password="x-pass-123")
    game_id = int(run("import_log", str(examples_dir / "red_win.json")))
    assert Game.objects.get(pk=game_id).host == demo


@pytest.mark.django_db
def test_import_without_a_host_is_a_clear_error(examples_dir, django_user_model):
    django_user_model.objects.create_user(username="someone", password="x-pass-123")
    with pytest.raises(CommandError, match="--host"):
        run("import_log", str(examples_dir / "red_win.json"))
    with pytest.raises(CommandError, match="no user 'ghost'"):
        run("import_log", str(examples_dir / "red_win.json"), "--host", "ghost")
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_import_refused_log_stores_nothing(host, tmp_path):
    bad = tmp_path / "bad.json"
    players = [f"P{i}" for i in range(1, 11)]
    bad.write_text(
        json.dumps(
            {
                "format": "mafia-protocol-log/1",
                "actions": [
                    {"do": "seat", "players": players},
                    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
                    {"do": "start"},
                    {"do": "votes", "for": {}},  # no vote during «договорка»
                ],
            }
        )
    )
    with pytest.raises(CommandError, match=r"refused \(rule "):
        run("import_log", str(bad), "--host", "host")
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_import_rejects_what_is_not_a_log(host, tmp_path):
    notjson = tmp_path / "x.json"
    notjson.write_text("{nope")
    with pytest.raises(CommandError, match="not JSON"):
        run("import_log", str(notjson), "--host", "host")
    other = tmp_path / "y.json"
    other.write_text(json.dumps({"format": "something/2", "actions": []}))
    with pytest.raises(CommandError, match="unknown format"):
        run("import_log", str(other), "--host", "host")
    with pytest.raises(CommandError, match="cannot read"):
        run("import_log", str(tmp_path / "missing.json"), "--host", "host")


@pytest.mark.django_db
def test_export_unknown_game():
    with pytest.raises(CommandError, match="no such game"):
        run("export_log", "424242")
