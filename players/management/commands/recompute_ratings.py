import time
from typing import Any

from django.core.management.base import BaseCommand

from players.book import recompute


class Command(BaseCommand):
    help = "Rebuild every player's statistics and rating from the finished games in end order."

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        games = recompute()
        self.stdout.write(f"{games} games replayed in {time.perf_counter() - started:.2f} s")
