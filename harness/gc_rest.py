"""Long-lived objects out of the garbage collector's passes, for the span of a block.

A run keeps its suite, plans and rows to the end; every full collection would walk those hundreds
of thousands of objects again (0.8 s at 4,000 cases), and in forked replay workers it would also
write to the pages they share with the parent. `gc.freeze()` moves what exists into a generation
the collector skips; the block hands it back. A process that froze objects itself keeps its own
arrangement: unfreezing would hand back its objects too, so nothing is frozen or unfrozen then.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


class Rest:
    """What `objects_at_rest` yields: `more()` puts objects made since (kept to the end) to rest too."""

    def __init__(self, froze: bool) -> None:
        self.froze = froze

    def more(self) -> None:
        if self.froze:
            gc.freeze()


@contextmanager
def objects_at_rest() -> Iterator[Rest]:
    """Within the block, full collections skip the objects that existed when it began."""
    froze = gc.get_freeze_count() == 0
    if froze:
        gc.freeze()
    try:
        yield Rest(froze)
    finally:
        if froze:
            gc.unfreeze()


__all__ = ["Rest", "objects_at_rest"]
