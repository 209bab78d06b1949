"""Shared helpers of the Discord bridge tests: a game brought to a step, linked to ten Discord users."""

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
    while game_services.game_state(game).step != "mafia_shot":
        record(game, {"do": "next"}, host)
    return game


def link(game, webhook_url=""):
    from discord_bridge import services

    return services.link_save(game=game, guild_id=1, text_channel_id=555, voice_channel_id=556, webhook_url=webhook_url, seats={str(s): str(user_id(s)) for s in range(1, 11)})
