"""Every field of every model the app owns is archived or excluded with a reason (issue 27-3).

A model or field added later (discipline records, per-month totals, ...)
fails here until tournaments/archive.py declares it; the message names what to
declare and where.
"""

from __future__ import annotations

from django.apps import apps

from tournaments import archive


def _fields(model):
    return {
        f.name
        for f in model._meta.get_fields()
        if (f.concrete or f.many_to_many) and not (f.auto_created and not f.concrete)
    }


def test_every_model_of_the_apps_is_declared():
    declared = {spec.model for spec in archive.SPECS} | set(archive.EXCLUDED_MODELS)
    missing = [
        m._meta.label
        for app in archive.ARCHIVED_APPS
        for m in apps.get_app_config(app).get_models()
        if m not in declared
    ]
    assert not missing, (
        f"models neither archived nor excluded: {', '.join(missing)}. Declare each in tournaments/archive.py: "
        "a ModelSpec in SPECS (after the models it points at), or an entry in EXCLUDED_MODELS with the reason"
    )
    assert not {spec.model for spec in archive.SPECS} & set(archive.EXCLUDED_MODELS)


def test_every_field_of_an_archived_model_is_archived_or_excluded_with_a_reason():
    problems = []
    for spec in archive.SPECS:
        declared = set(spec.fields) | set(spec.secrets) | set(spec.excluded)
        for name in sorted(_fields(spec.model) - declared):
            problems.append(
                f"{spec.model._meta.label}.{name}: add it to its ModelSpec's fields (or secrets), or to excluded={{'{name}': 'why'}}"
            )
        for name in sorted(declared - _fields(spec.model)):
            problems.append(f"{spec.model._meta.label}.{name}: declared but the model has no such field")
        problems += [
            f"{spec.model._meta.label}.{name}: excluded without a reason"
            for name, why in spec.excluded.items()
            if not why.strip()
        ]
    assert not problems, "tournaments/archive.py SPECS:\n" + "\n".join(problems)


def test_rows_are_inserted_after_the_rows_they_point_at():
    order = [spec.model for spec in archive.SPECS]
    for i, spec in enumerate(archive.SPECS):
        for f in spec.model._meta.concrete_fields:
            target = f.related_model if f.is_relation else None
            if target in order and f.name not in spec.forward:
                assert order.index(target) <= i, (
                    f"{spec.model._meta.label}.{f.name} points at {target._meta.label}, declared later in SPECS"
                )
