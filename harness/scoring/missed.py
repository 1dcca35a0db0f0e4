"""What one scoring of a case missed that another did not (compare, the gate, the per-case checks)."""

from __future__ import annotations

from typing import Any


def newly(mine: list[Any], theirs: list[Any]) -> list[Any]:
    """Items of `mine` not in `theirs`, in `mine`'s order (lists of names or of [source, target])."""
    other = {tuple(x) if isinstance(x, list) else x for x in theirs}
    return [x for x in mine if (tuple(x) if isinstance(x, list) else x) not in other]
