"""Signals the tournaments' services send after a change is committed.

`round_seating_changed(round_ids)`: the seating or a host of these rounds changed (a generated
seating, a seat set, swapped or cleared, a table's host). The Discord bridge listens (a published
round's participants get a correction by DM, issue 29), so tournaments never imports it.
"""

from django.dispatch import Signal

round_seating_changed = Signal()
