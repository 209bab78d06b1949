"""Issue 29's leftovers: the draw post's kind is a declared choice; the blacks' channel opens only
for the договорка; nicknames with seat numbers are set and restored (a test double for
`Member.edit(nick=…)` and `GuildChannel.set_permissions`, the bridge's path real)."""

from __future__ import annotations

import pytest

from discord_bridge import voice_services
from discord_bridge.models import ChatPost, PostKind
from games import services as game_services

from .helpers import link


@pytest.mark.django_db
def test_the_draw_post_kind_is_one_of_the_declared_choices(host, django_capture_on_commit_callbacks):
    assert voice_services.DRAW_KIND in PostKind.values
    players, seed = game_services.draw_seating([f"P{i}" for i in range(1, 11)])
    game = game_services.game_create(host=host, players=players, seating_seed=seed)
    with django_capture_on_commit_callbacks(execute=True):
        link(game)
    post = ChatPost.objects.filter(game=game, kind=voice_services.DRAW_KIND, to_user_id__isnull=True).get()
    post.full_clean()  # a kind outside the choices is refused by the model's own validation
    assert post.get_kind_display() != "draw"
