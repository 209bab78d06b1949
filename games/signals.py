"""Signals sent by the services after a change is committed.

`game_changed(game_id, seq, status, clock_only)`: a game's protocol (or only
its clock) changed and the change is durable. The live board and the
tournament standings listen to it; the database stays the truth, so a
receiver that misses one is corrected by the next snapshot.
"""

from django.dispatch import Signal

game_changed = Signal()
