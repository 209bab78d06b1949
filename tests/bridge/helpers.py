"""Shared helpers of the Discord bridge tests: a game brought to a step, linked to ten Discord users."""

from games import reading as game_reading
from games import services as game_services

ROLES = {"do": "roles", "sheriff": 9, "don": 1, "mafia": [4, 7]}
USER_BASE = 400000000000000000


def user_id(seat: int) -> int:
    return USER_BASE + seat


def record(game, action, by):
    return game_services.game_record_action(game=game, action=action, expected_seq=game.seq, by=by)


def game_at_mafia_shot(host):
    game = game_services.game_create(host=host, players=[f"P{i}" for i in range(1, 11)])
    for action in (ROLES, {"do": "start"}):
        record(game, action, host)
    while game_reading.game_state(game).step != "mafia_shot":
        record(game, {"do": "next"}, host)
    # «В городе ночь» said: the host's Space starts the shot's 15 s (issue 26-4).
    game.refresh_from_db()
    return game_services.game_clock_control(game=game, command="start", by=host)


def link(game, webhook_url="", proven=True):
    from discord_bridge import services

    saved = services.link_save(
        game=game,
        guild_id=1,
        text_channel_id=555,
        voice_channel_id=556,
        webhook_url=webhook_url,
        seats={str(s): str(user_id(s)) for s in range(1, 11)},
    )
    return prove(saved) if proven else saved


def prove(link):
    """What the bot's checks would establish for a host who owns his channels and whose players
    said «да» (issue 25-8), for tests about everything else: the channels through the bot's
    answer (services.channels_checked), each seat through the «да» path (services.prove_member)."""
    from discord_bridge import services

    check = services.ChannelCheck(link.pk, link.guild_id, link.text_channel_id, link.voice_channel_id, None)
    link = services.channels_checked(check, ["text", "voice"]) or link
    for seat, user in link.seat_map().by_seat.items():
        services.prove_member(link, seat, user, "dm")
    link.refresh_from_db()
    return link


def harness_intents():
    """The bot's intents, plus Server Members for dpytest only: the harness keeps its
    simulated members in discord.py's member cache, which that intent enables. The real
    bot does without it (discord_bridge.bot.bot_intents)."""
    from discord_bridge.bot import bot_intents

    intents = bot_intents()
    intents.members = True
    return intents


def game_at_voting(host, nominees=(5, 3)):
    """A game at Day 1's vote with the given candidates (the night a miss, no checks)."""
    game = game_at_mafia_shot(host)
    record(game, {"do": "shots", "by": {"1": None, "4": None, "7": None}}, host)
    while game_reading.game_state(game).step != "speech":
        record(game, {"do": "next"}, host)
    for target in nominees:
        speaker = game_reading.game_state(game).speaker
        record(game, {"do": "nominate", "by": speaker, "target": target}, host)
        record(game, {"do": "next"}, host)
    while game_reading.game_state(game).step != "voting":
        record(game, {"do": "next"}, host)
    game.refresh_from_db()
    return game
