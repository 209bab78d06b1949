"""`python manage.py discord_bot`: run the Discord bot (DISCORD_BOT_TOKEN from the environment)."""

from __future__ import annotations

import logging
import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Run the Discord bot that turns players' DMs into proposals for the host's console."

    def handle(self, *args: Any, **options: Any) -> None:
        token = os.environ.get("DISCORD_BOT_TOKEN", "").strip()
        if not token:
            raise CommandError("Set DISCORD_BOT_TOKEN in the environment (see the README, «Discord»).")
        from discord_bridge.bot import ProtocolBot

        # The token is never printed; discord.py reconnects on its own.
        ProtocolBot().run(token, reconnect=True, log_level=logging.INFO)
