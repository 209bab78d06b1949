"""Live-board publishing hook, called by services after each commit.

The board issue (websockets) fills this in; until then a change is simply
picked up by the next page load.
"""


def publish_game_changed(game_id: int, seq: int) -> None:
    return None
