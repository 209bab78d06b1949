from django.contrib import admin

from players.models import Alias, Player, PlayerMerge


class AliasInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Alias
    extra = 0


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("nickname", "club", "discord_user_id", "user")
    search_fields = ("nickname", "aliases__nickname", "club")
    inlines = [AliasInline]


@admin.register(PlayerMerge)
class PlayerMergeAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("merged_nickname", "kept", "seats_moved", "participants_moved", "created_at", "by")
