from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DiscordBridgeConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "discord_bridge"
    verbose_name = _("Discord")

    def ready(self) -> None:
        import discord_bridge.voice_receivers  # noqa: F401  (issue 29: the voice chores follow the game)
        from discord_bridge import receivers  # noqa: F401  (connects to games.signals.game_changed)
