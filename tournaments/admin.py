"""Django admin for organizers: tournaments with their stages, participants, rounds and tables."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from tournaments.models import (
    ExtraPoints,
    Participant,
    Round,
    ScoringRevision,
    Stage,
    Table,
    TableSeat,
    Tournament,
)


class OrganizerScoped(admin.ModelAdmin):  # type: ignore[type-arg]
    """Non-superusers see and change only the tournaments they organize."""

    tournament_path = "tournament"

    def get_queryset(self, request: HttpRequest) -> Any:
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        return qs.filter(**{f"{self.tournament_path}__organizers": request.user}).distinct()


class ParticipantInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Participant
    extra = 0
    fields = ("nickname", "user", "active")
    raw_id_fields = ("user",)


class StageInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Stage
    extra = 0
    fields = ("name", "order", "seating_seed")
    readonly_fields = ("seating_seed",)
    show_change_link = True


@admin.register(Tournament)
class TournamentAdmin(OrganizerScoped):
    list_display = ("name", "starts_on", "ends_on", "scoring_preset", "scoring_revision")
    search_fields = ("name",)
    filter_horizontal = ("organizers",)
    # The policy changes through the scoring page, which keeps every version
    # (ScoringRevision) and pushes the recomputed standings.
    readonly_fields = ("scoring", "scoring_preset", "scoring_revision")
    inlines = [StageInline, ParticipantInline]

    def get_queryset(self, request: HttpRequest) -> Any:
        qs = admin.ModelAdmin.get_queryset(self, request)
        return qs if request.user.is_superuser else qs.filter(organizers=request.user)


class RoundInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Round
    extra = 0
    show_change_link = True


@admin.register(Stage)
class StageAdmin(OrganizerScoped):
    list_display = ("name", "tournament", "order", "seating_seed")
    list_filter = ("tournament",)
    inlines = [RoundInline]


class TableInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Table
    extra = 0
    fields = ("number", "host", "game")
    raw_id_fields = ("host", "game")
    show_change_link = True


@admin.register(Round)
class RoundAdmin(OrganizerScoped):
    tournament_path = "stage__tournament"
    list_display = ("__str__", "stage", "number")
    list_filter = ("stage__tournament",)
    inlines = [TableInline]


class TableSeatInline(admin.TabularInline):  # type: ignore[type-arg]
    model = TableSeat
    extra = 0
    raw_id_fields = ("participant",)


@admin.register(Table)
class TableAdmin(OrganizerScoped):
    tournament_path = "round__stage__tournament"
    list_display = ("__str__", "number", "host", "game")
    list_filter = ("round__stage__tournament",)
    raw_id_fields = ("host", "game")
    inlines = [TableSeatInline]


@admin.register(Participant)
class ParticipantAdmin(OrganizerScoped):
    list_display = ("nickname", "tournament", "user", "active")
    list_filter = ("tournament", "active")
    search_fields = ("nickname",)
    raw_id_fields = ("user",)


@admin.register(ExtraPoints)
class ExtraPointsAdmin(OrganizerScoped):
    tournament_path = "game__tournament_table__round__stage__tournament"
    list_display = ("game", "seat_no", "points", "comment", "given_by")
    raw_id_fields = ("game", "given_by")


@admin.register(ScoringRevision)
class ScoringRevisionAdmin(OrganizerScoped):
    list_display = ("tournament", "number", "preset", "note", "created_at", "created_by")
    readonly_fields = ("tournament", "number", "policy", "preset", "note", "created_at", "created_by")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a new revision comes from the scoring page (tournaments.services)
