"""tests/support/growth.py catches quadratic work and lets linear work pass (issue 26.3).

The growth checks count CPU instructions under valgrind instead of timing, so they cannot fail on a
busy machine; these tests show the counting still tells a quadratic loop from a linear one.
"""

from __future__ import annotations

import pytest

from tests.support.growth import Repeat, assert_linear, instruction_counts


def prepend_each_character(text: str) -> int:
    """Quadratic: each step copies everything built so far (the shape of a `+=` join per line)."""
    built = ""
    for ch in text:
        built = ch + built
    return len(built)


def rescan_from_each_position(text: str) -> int:
    """Quadratic: a Python-level scan of the rest of the text from every position."""
    found = 0
    for start in range(len(text)):
        for ch in text[start:]:
            found += ch == "#"
    return found


def join_each_character(text: str) -> int:
    """Linear: one pass, one join."""
    return len("".join([ch for ch in text]))


@pytest.mark.slow
@pytest.mark.parametrize(("quadratic", "n"), [
    (rescan_from_each_position, 2_000),
    # A copy costs about one instruction per 16-32 bytes (vectorised memcpy), so a quadratic made
    # of copies dominates the per-character interpreter work only at larger sizes.
    (prepend_each_character, 16_000),
])
def test_a_quadratic_function_fails(quadratic, n: int) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AssertionError, match=r"instructions grew \d+\.\d+x from n="):
        assert_linear(quadratic, Repeat("x"), n)


@pytest.mark.slow
def test_a_linear_function_passes() -> None:
    assert_linear(join_each_character, Repeat("x"), 2_000)


@pytest.mark.slow
def test_counts_are_repeatable() -> None:
    """The point of counting: the same work gives the same count, whatever the machine's load
    (within a fraction of a percent: the allocator's state differs from one call to the next)."""
    first = instruction_counts(join_each_character, Repeat("x"), [1_000, 2_000])
    again = instruction_counts(join_each_character, Repeat("x"), [1_000, 2_000])
    assert [size for size, _ in first] == [1_000, 2_000]
    for (_, a), (_, b) in zip(first, again):
        assert abs(a - b) <= a * 0.01, (first, again)


def test_a_lambda_is_refused_naming_what_to_pass() -> None:
    with pytest.raises(TypeError, match="module-level functions, functools.partial of them or Repeat"):
        assert_linear(lambda text: text, Repeat("x"), 10)
