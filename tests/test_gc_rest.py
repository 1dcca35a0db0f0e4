"""harness.gc_rest: objects put out of the collector's passes for a block, and handed back."""

from __future__ import annotations

import gc

import pytest

from harness.gc_rest import objects_at_rest


@pytest.fixture(autouse=True)
def nothing_frozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_objects_rest_in_the_block_and_are_handed_back_after():
    with objects_at_rest() as rest:
        frozen = gc.get_freeze_count()
        assert frozen > 0 and rest.froze
        kept = [[i] for i in range(1000)]  # made in the block, kept to its end
        assert gc.get_freeze_count() == frozen
        rest.more()
        assert gc.get_freeze_count() >= frozen + len(kept)
    assert gc.get_freeze_count() == 0


def test_objects_are_handed_back_when_the_block_raises():
    with pytest.raises(ValueError), objects_at_rest():
        raise ValueError("stop")
    assert gc.get_freeze_count() == 0


def test_a_callers_own_freeze_is_left_as_it_is():
    gc.freeze()
    before = gc.get_freeze_count()
    with objects_at_rest() as rest:
        assert not rest.froze
        kept = [[i] for i in range(100)]
        rest.more()  # not its freeze to extend
        assert gc.get_freeze_count() == before
    assert gc.get_freeze_count() == before and kept
