"""Nickname keys now fold Latin look-alike letters and drop zero-width characters
(games/rules/nicknames.py): recompute the stored keys so matching finds them."""

from django.db import migrations

from games.rules.nicknames import nickname_key


def rekey(apps, schema_editor):
    for name in ("Player", "Alias"):
        model = apps.get_model("players", name)
        rows = list(model.objects.only("pk", "nickname", "key"))
        for row in rows:
            row.key = nickname_key(row.nickname)
        model.objects.bulk_update(rows, ["key"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("players", "0001_initial")]
    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
