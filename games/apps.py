from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # Live board: render once per committed change and broadcast it
        # (games.board.frames); dispatch_uid keeps a reload from connecting twice.
        from django.db.models.signals import post_save

        from games.board import frames as board
        from games.models import Game
        from games.signals import game_changed

        game_changed.connect(board.on_game_changed, dispatch_uid="games.board.frames.on_game_changed")
        # Frames queued during a request are rendered once its response is sent.
        from django.core.signals import request_finished

        request_finished.connect(
            board.flush_pending_broadcasts, dispatch_uid="games.board.frames.flush_pending_broadcasts"
        )
        post_save.connect(board.on_game_saved, sender=Game, dispatch_uid="games.board.frames.on_game_saved")
