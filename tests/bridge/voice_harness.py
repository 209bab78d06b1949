"""The fake Discord of the voice chores' tests (issue 29): dpytest has no voice, so the test double sits
at discord.py's object boundary. `Member.edit(mute=…)` is answered like Discord answers it (a member
not in voice gets error 40032; otherwise a VOICE_STATE_UPDATE with the new server mute follows, through
discord.py's own parser), and members join, leave and deafen by gateway events through the same parser.

Used by tests/bridge/test_voice_chores.py (the `harness` fixture) and by the bot process of
tests/browser/test_voice_game_browser.py (a whole game in a browser against it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord


class FakeResponse:
    def __init__(self, status: int, reason: str) -> None:
        self.status, self.reason = status, reason


def voice_state_payload(guild, member, channel_id, *, mute=False, self_deaf=False):
    """A VOICE_STATE_UPDATE gateway event as Discord documents it. A guild's voice state
    carries its member: how the bot knows the voice channel's members without the
    privileged Server Members intent."""
    return {
        "guild_id": str(guild.id),
        "channel_id": str(channel_id) if channel_id else None,
        "user_id": str(member.id),
        "session_id": "s",
        "deaf": False,
        "mute": mute,
        "self_deaf": self_deaf,
        "self_mute": False,
        "self_video": False,
        "suppress": False,
        "request_to_speak_timestamp": None,
        "member": {
            "user": {
                "id": str(member.id),
                "username": member.name,
                "discriminator": "0000",
                "avatar": None,
                "global_name": None,
            },
            "nick": member.nick,
            "roles": [],
            "joined_at": "2026-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": mute,
        },
    }


@dataclass
class VoiceServer:
    """Discord's side of server mute: who is in which voice channel, and every edit the bot made."""

    client: Any
    guild: Any
    edits: list[tuple[int, bool, float]] = field(default_factory=list)
    fail_next: dict[int, int] = field(default_factory=dict)  # user id → an HTTP status to answer once
    # Told of every edit Discord applied (user id, mute), as it is applied: another process's clock
    # (tests/browser/voice_game_bot.py) stamps it with the wall time.
    on_edit: Callable[[int, bool], None] | None = None

    def payload(self, member, channel_id, *, mute=False, self_deaf=False):
        return voice_state_payload(self.guild, member, channel_id, mute=mute, self_deaf=self_deaf)

    def state(self, member, channel_id, *, mute=None, self_deaf=None):
        """A VOICE_STATE_UPDATE through discord.py's parser (the member keeps what is not said)."""
        vs = self.guild.get_member(member.id).voice if self.guild.get_member(member.id) else None
        mute = (vs.mute if vs else False) if mute is None else mute
        self_deaf = (vs.self_deaf if vs else False) if self_deaf is None else self_deaf
        self.client._connection.parse_voice_state_update(
            self.payload(member, channel_id, mute=mute, self_deaf=self_deaf)
        )

    async def edit(self, member, *, mute=None, reason=None, **kwargs):
        status = self.fail_next.pop(member.id, None)
        if status is not None:
            raise discord.HTTPException(
                FakeResponse(status, "Too Many Requests"), {"code": 0, "message": "You are being rate limited."}
            )
        current = self.guild.get_member(member.id)
        if current is None or current.voice is None or current.voice.channel is None:
            raise discord.HTTPException(
                FakeResponse(400, "Bad Request"), {"code": 40032, "message": "Target user is not connected to voice."}
            )
        self.edits.append((member.id, bool(mute), time.perf_counter()))
        if self.on_edit is not None:
            self.on_edit(member.id, bool(mute))
        self.state(member, current.voice.channel.id, mute=bool(mute))
        return current

    def muted(self) -> set[int]:
        return {m.id for m in self.guild.members if m.voice is not None and m.voice.mute}


@dataclass
class FakeInvite:
    code: str

    @property
    def url(self) -> str:
        return f"https://discord.gg/{self.code}"
