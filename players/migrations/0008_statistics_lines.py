import django.db.models.deletion
from django.db import migrations, models

from players.statistics import CODE_WIDTHS, COUNTERS, line_code

COUNTER_FIELDS = [(name, models.PositiveIntegerField(default=0)) for name in COUNTERS]


def name_lines(apps, schema_editor):
    """Each distinct line of the stored player-game rows stored once, then each
    row names its line (its counters' code): computed by the database in one
    UPDATE for the rows whose counters fit their fields, one distinct line at a
    time for the rest (none in a game the rules allow)."""
    PlayerGame = apps.get_model("players", "PlayerGame")
    StatisticsLine = apps.get_model("players", "StatisticsLine")
    lines = {line_code(counts): counts for counts in PlayerGame.objects.values_list(*COUNTERS).distinct()}
    StatisticsLine.objects.bulk_create(
        [StatisticsLine(id=code, **dict(zip(COUNTERS, counts, strict=True))) for code, counts in lines.items()],
        batch_size=500,
    )
    fits = {f"{name}__lt": 1 << width for name, width in zip(COUNTERS, CODE_WIDTHS, strict=True)}
    code, shift = models.Value(0, output_field=models.BigIntegerField()), 0
    for name, width in zip(COUNTERS, CODE_WIDTHS, strict=True):
        code = code + models.F(name) * (1 << shift)
        shift += width
    PlayerGame.objects.filter(**fits).update(line_id=code)
    for line, counts in lines.items():
        if line < 0:
            PlayerGame.objects.filter(**dict(zip(COUNTERS, counts, strict=True))).update(line_id=line)


def unname_lines(apps, schema_editor):
    """Back: each player-game row's counters from its line (the columns are back by then)."""
    PlayerGame = apps.get_model("players", "PlayerGame")
    StatisticsLine = apps.get_model("players", "StatisticsLine")
    for line in StatisticsLine.objects.all():
        PlayerGame.objects.filter(line_id=line.id).update(**{name: getattr(line, name) for name in COUNTERS})


class Migration(migrations.Migration):

    dependencies = [
        ("players", "0007_counted_games_function"),
    ]

    operations = [
        migrations.CreateModel(
            name="StatisticsLine",
            fields=[*COUNTER_FIELDS, ("id", models.BigIntegerField(primary_key=True, serialize=False))],
            options={"abstract": False},
        ),
        migrations.AddField(
            model_name="playergame",
            name="line",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="players.statisticsline",
            ),
        ),
        migrations.RunPython(name_lines, unname_lines),
        migrations.AlterField(
            model_name="playergame",
            name="line",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="players.statisticsline",
            ),
        ),
        *(migrations.RemoveField(model_name="playergame", name=name) for name in COUNTERS),
    ]
