"""The scene key the overlay gives OBS (games.board.view.overlay_scene, issue 31)."""

import pytest

from games.board.view import OVERLAY_SCENES, overlay_scene


@pytest.mark.parametrize(
    ("status", "phase", "step", "paused", "scene"),
    [
        ("setup", None, None, False, "setup"),
        ("running", "night", "dogovorka", False, "night"),
        ("running", "night", "sheriff_check", False, "night"),
        ("running", "day", "speech", False, "day"),
        ("running", "day", "last_word", False, "day"),
        ("running", "day", "voting", False, "vote"),
        ("running", "day", "lift_vote", False, "vote"),
        ("running", "day", "tie_speech", False, "day"),
        ("running", "day", "voting", True, "pause"),  # D7 wins over the step it stopped
        ("running", "night", "mafia_shot", True, "pause"),
        ("finished", "day", "finished", False, "finished"),
        ("annulled", "day", "speech", True, "finished"),
    ],
)
def test_scene_of_a_moment(status, phase, step, paused, scene):
    assert overlay_scene(status=status, phase=phase, step=step, paused=paused) == scene
    assert scene in OVERLAY_SCENES
