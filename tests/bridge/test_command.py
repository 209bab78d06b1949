"""`manage.py discord_bot` refuses to start without DISCORD_BOT_TOKEN (and never prints a token)."""

import pytest
from django.core.management import CommandError, call_command

from discord_bridge.bot import bot_intents


def test_discord_bot_needs_the_token(monkeypatch):
    monkeypatch.delenv("DISCORD_BOT_TOKEN", raising=False)
    with pytest.raises(CommandError, match="DISCORD_BOT_TOKEN"):
        call_command("discord_bot")


def test_bot_asks_for_the_intents_the_readme_lists():
    intents = bot_intents()
    assert intents.message_content and intents.dm_messages and intents.guild_messages and intents.voice_states


def test_bot_does_not_ask_for_server_members():
    """Issue 25-10: voice members come with voice states; Server Members would make discord.py chunk every guild."""
    assert not bot_intents().members
