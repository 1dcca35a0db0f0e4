"""The sparse `diverse` selection against the dense implementation it replaced, plus edge cases."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.tune.sampling import _trigram_vectors, diverse_indices, select

REPO = Path(__file__).resolve().parents[2]


from .dense_reference import dense_diverse_indices, dense_trigram_vectors


def dense_scores(texts: list[str], chosen: list[int]) -> list[np.ndarray]:
    """The dense scores each pick of `chosen` was made from (centroid similarity, then distances)."""
    vectors = dense_trigram_vectors(texts)
    scores = [vectors @ vectors.mean(axis=0)]
    distance = 1 - vectors @ vectors[chosen[0]]
    for k in range(1, len(chosen)):
        distance[chosen[:k]] = -1
        scores.append(distance.copy())
        distance = np.minimum(distance, 1 - vectors @ vectors[chosen[k]])
    return scores


def assert_same_as_dense(texts: list[str], limit: int) -> bool:
    """Sparse == dense whenever the dense run has no near-tie; otherwise every sparse pick must be a
    farthest point under dense arithmetic with no lower index tied with it. Returns whether exact."""
    limit = max(1, min(limit, len(texts)))
    got = select(texts, "diverse", limit)
    want = dense_diverse_indices(texts, limit)
    assert len(got) == len(set(got)) == limit
    if limit == len(texts):
        assert got == want
        return True
    gaps = [np.sort(s)[-1] - np.sort(s)[-2] for s in dense_scores(texts, want)]
    if min(gaps) > 1e-9:
        assert got == want
        return True
    for pick, scores in zip(got, dense_scores(texts, got)):
        assert scores[pick] >= scores.max() - 1e-9, (pick, scores)
        assert all(scores[:pick] < scores[pick] - 1e-13), (pick, scores)  # lowest index wins ties
    return False


# --- equivalence with the dense reference -------------------------------------------------------

def test_tfidf_matrix_equals_the_dense_one_column_for_column():
    texts = ["Alpha  beta\tgamma", "", "ab", "αβγ δεζ ΑΒΓ", "the the the", "Zeta\u00a0eta", "x\ud800yz"]
    dense = dense_trigram_vectors(texts)
    matrix = _trigram_vectors(texts)
    assert matrix.shape == dense.shape
    np.testing.assert_allclose(matrix.toarray(), dense, rtol=1e-12, atol=1e-15)
    # memory grows with the distinct trigrams of each text: exactly one stored entry per nonzero
    assert matrix.nnz == int((dense != 0).sum())


def test_sampling_is_deterministic_and_diverse():
    """Carried over verbatim from the former tests/tune/test_tune.py."""
    texts = ["alpha beta gamma " * 20, "alpha beta gamma delta " * 20, "zeta eta theta " * 20, "iota kappa " * 20]
    assert select(texts, "top", 2) == [0, 1]
    assert select(texts, "all", 2) == [0, 1, 2, 3]
    assert select(texts, "random", 2) == select(texts, "random", 2)
    chosen = select(texts, "diverse", 2)
    assert len(set(chosen)) == 2 and chosen == select(texts, "diverse", 2)
    assert not {0, 1} <= set(chosen)  # the two near-duplicates are not both chosen


def test_existing_small_example_matches_dense():
    texts = ["alpha beta gamma " * 20, "alpha beta gamma delta " * 20, "zeta eta theta " * 20, "iota kappa " * 20]
    for limit in range(0, 6):
        assert assert_same_as_dense(texts, limit)


def test_seeded_word_corpus_matches_dense_exactly():
    rng = random.Random(7)
    topics = [[''.join(rng.choices("abcdefghijklmnopqrstuvwxyzéøß", k=rng.randint(3, 9))) for _ in range(40)]
              for _ in range(5)]
    texts = [" ".join(rng.choices(topics[i % 5] + topics[(i * 3) % 5][:8], k=rng.randint(20, 120)))
             for i in range(80)]
    for limit in (1, 2, 5, 10, 25, 79, 80, 200):
        assert assert_same_as_dense(texts, limit)


_small_alphabet = st.text(alphabet="abc AB\n\t.é", max_size=24)
_any_text = st.text(max_size=40)


_whitespace_heavy = st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000aAİß", max_size=16)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(st.one_of(_small_alphabet, _any_text, _whitespace_heavy), max_size=10))
def test_random_tfidf_matrices_equal_the_dense_ones(texts: list[str]):
    """Same vocabulary (sorted, whitespace collapsed as re.sub(r"\\s+", ...) does), same values."""
    dense = dense_trigram_vectors(texts)
    matrix = _trigram_vectors(texts)
    assert matrix.shape == dense.shape
    np.testing.assert_allclose(matrix.toarray(), dense, rtol=1e-12, atol=1e-15)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.one_of(_small_alphabet, _any_text, _whitespace_heavy), min_size=1, max_size=12),
       limit=st.integers(min_value=-2, max_value=15))
def test_random_texts_match_dense(texts: list[str], limit: int):
    assert_same_as_dense(texts, limit)


# --- edge cases -----------------------------------------------------------------------------------

@pytest.mark.parametrize("texts", [
    [""], ["ab"], ["", ""], ["", "", "", ""], ["a", "b", "ab", ""], ["same text"] * 5,
    ["   ", "\n\n", "\t"], ["short", "", "x", "a much longer text about something else"],
])
@pytest.mark.parametrize("limit", [-1, 0, 1, 2, 3, 100])
def test_edge_cases_do_not_raise(texts: list[str], limit: int):
    for selection in ("random", "top", "all", "diverse"):
        chosen = select(texts, selection, limit)
        assert len(chosen) == len(set(chosen)) and all(0 <= i < len(texts) for i in chosen)
        if selection != "all":
            assert len(chosen) == max(1, min(limit, len(texts)))
    assert_same_as_dense(texts, limit)


def test_identical_and_empty_texts_tie_to_the_lowest_index():
    assert select(["same text"] * 6, "diverse", 3) == [0, 1, 2]
    assert select([""] * 6, "diverse", 4) == [0, 1, 2, 3]
    # an empty text is as far as can be from any other: it is picked right after the first
    assert select(["alpha beta gamma"] * 3 + [""], "diverse", 2) == [0, 3]


def test_direct_calls_and_empty_corpus():
    assert diverse_indices(["a text", "another"], 0) == []
    assert diverse_indices(["a text", "another"], -3) == []
    assert diverse_indices(["only one"], 5) == [0]
    assert select(["only one"], "diverse", 0) == [0]
    for selection in ("random", "top", "all", "diverse"):
        assert select([], selection, 3) == []
    with pytest.raises(ValueError):
        select(["x"], "nearest", 1)


@pytest.mark.slow
def test_result_does_not_depend_on_the_hash_seed():
    code = (
        "import json, random\n"
        "from harness.tune.sampling import select\n"
        "rng = random.Random(3)\n"
        "texts = [' '.join(rng.choice(['kestrel', 'lantern', 'caldera', 'oak', 'río', 'мост']) "
        "for _ in range(rng.randint(1, 30))) for _ in range(60)]\n"
        "print(json.dumps(select(texts, 'diverse', 12)))\n"
    )
    runs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                              check=True)
        runs.add(tuple(json.loads(done.stdout)))
    assert len(runs) == 1
