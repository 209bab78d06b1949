"""PostgreSQL: the function that says which of a few games count for ratings
(players/trust.py ``few_games_statement``), asked on every game's end. As a
function its plan is kept for the session; sent as text it was planned each
time. SQLite runs the same SQL as a statement and needs nothing here."""

from django.db import migrations


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from players.trust import counted_games_function_sql

    schema_editor.execute(counted_games_function_sql())


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from players.trust import COUNTED_GAMES_FUNCTION

    schema_editor.execute(f"DROP FUNCTION IF EXISTS {COUNTED_GAMES_FUNCTION}(bigint[], text, text)")


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0006_month_rank_index"),
        ("tournaments", "0004_standings_frozen"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create, drop)]
