from django.db import migrations, models


def public_rev_from_seq(apps, schema_editor):
    # Pages open before the upgrade show data-seq = Game.seq; starting the
    # public revision there keeps their clients moving forward (never back).
    Game = apps.get_model("games", "Game")
    Game.objects.update(public_rev=models.F("seq"))
    # The new default delay (issue 24) for games whose overlay is not in use;
    # a stream running now keeps the delay its host set.
    Game.objects.filter(overlay_token="", overlay_delay_seconds=0).update(overlay_delay_seconds=120)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0004_game_tech_pause_ended_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="public_rev",
            field=models.PositiveIntegerField(default=0, help_text="Bumped only when the public board's facts change."),
        ),
        migrations.AddField(
            model_name="game",
            name="public_facts",
            field=models.JSONField(blank=True, default=dict, help_text="What the public board shows (no secret)."),
        ),
        migrations.AddField(
            model_name="game",
            name="public_at",
            field=models.DateTimeField(blank=True, help_text="When the public facts last changed.", null=True),
        ),
        migrations.AlterField(
            model_name="game",
            name="overlay_delay_seconds",
            field=models.PositiveSmallIntegerField(default=120),
        ),
        migrations.RunPython(public_rev_from_seq, migrations.RunPython.noop),
    ]
