from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"
    verbose_name = _("Игроки")

    def ready(self) -> None:
        # Statistics and ratings follow a game's result rows: games sends
        # `results_changed` inside the transaction that writes (or removes)
        # them, so games never imports players.
        from games.signals import results_changed
        from players import book, discipline

        results_changed.connect(book.on_results_changed, dispatch_uid="players.book.on_results_changed")
        # After the books: those link the game's seats, whose players the records name.
        results_changed.connect(discipline.on_results_changed, dispatch_uid="players.discipline.on_results_changed")
