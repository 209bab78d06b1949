"""Signals sent by the services after a change is committed.

`game_changed(game_id, seq, status, clock_only)`: a game's protocol (or only
its clock) changed and the change is durable. The live board and the
tournament standings listen to it; the database stays the truth, so a
receiver that misses one is corrected by the next snapshot.

`results_changed(game)`: sent inside the transaction that wrote or removed a
game's result rows (`SeatResult`: the game ended, a penalty after the end
rewrote them, an undo reopened it) or changed whether the game is rated.
Players' statistics and ratings follow it (players/book.py) in the same
transaction, so games never imports players.
"""

from django.dispatch import Signal

game_changed = Signal()
results_changed = Signal()
