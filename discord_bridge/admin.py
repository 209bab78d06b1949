"""Admin: a tournament's Discord channel (inherited by its tables' games), and the outbox for support."""

from __future__ import annotations

from django.contrib import admin

from discord_bridge.models import ChatPost, TournamentDiscordLink


@admin.register(TournamentDiscordLink)
class TournamentDiscordLinkAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("tournament", "guild_id", "text_channel_id", "voice_channel_id")


@admin.register(ChatPost)
class ChatPostAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("game", "kind", "state", "due_at", "sent_at", "attempts", "last_error")
    list_filter = ("state", "kind")
    readonly_fields = (
        "game",
        "kind",
        "dedupe_key",
        "text",
        "to_user_id",
        "due_at",
        "attempts",
        "last_error",
        "sent_at",
    )
