from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = _("Турниры")

    def ready(self) -> None:
        # Live standings: a finished (or reopened) tournament game pushes the
        # standings to their websocket group (tournaments/live.py).
        from games.signals import game_changed
        from tournaments import live

        game_changed.connect(live.on_game_changed, dispatch_uid="tournaments.live.on_game_changed")
