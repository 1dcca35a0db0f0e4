"""One-to-one alignment of predicted entities with gold entities.

Two stages, each a maximum-weight one-to-one assignment (scipy.optimize.linear_sum_assignment):

1. **Exact**: a prediction whose normalised name equals a gold entity's normalised name
   (weight 2) or one of its aliases (weight 1). Name matches beat alias matches, so with gold
   ``Torvanase (alias TrvA)`` and ``trvA`` the prediction ``TRVA`` goes to the gene ``trvA``.
2. **Fuzzy**, over what is left: similarity is ``rapidfuzz.fuzz.ratio / 100`` (normalised Indel
   similarity, ``2 * LCS / (len_a + len_b)``) between the prediction and the best of the gold
   name and aliases; pairs below the threshold are not candidates.

Tie-breaking (deterministic, independent of the solver's internals): similarities are
quantised to 1e-6, and among assignments of equal total weight the one maximising
``sum (n_gold - i) * (n_pred - j)`` wins, where ``i`` is the gold entity's position in the
suite and ``j`` the prediction's position in the (de-duplicated) output. By the rearrangement
inequality this pairs tied entities in order: earlier gold entities win a contested
prediction, and an earlier prediction wins a contested gold entity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cdist
from .assignment import linear_sum_assignment

_QUANTUM = 1_000_000  # similarity resolution for tie detection
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Match:
    gold: int  # index into the gold entity list
    pred: int  # index into the de-duplicated prediction list
    kind: str  # "exact" or "fuzzy"
    similarity: float  # 1.0 for exact matches


def _assign(weights: np.ndarray) -> list[tuple[int, int]]:
    """Maximum-weight one-to-one assignment over positive entries, with the documented tie-break.

    `weights` holds non-negative integers (0 = not a candidate).
    """
    n, m = weights.shape
    if n == 0 or m == 0 or not weights.any():
        return []
    nonzero = weights > 0
    if nonzero.sum(axis=0).max() <= 1 and nonzero.sum(axis=1).max() <= 1:  # no contest: nothing to solve
        r, c = np.nonzero(nonzero)
        return [(int(i), int(j)) for i, j in zip(r, c)]
    rows = np.flatnonzero(nonzero.any(axis=1))
    cols = np.flatnonzero(nonzero.any(axis=0))
    sub = weights[np.ix_(rows, cols)].astype(np.float64)
    # Tie-break bonus, strictly smaller in total than one quantum of weight.
    bonus = np.outer(n - rows, m - cols).astype(np.float64)
    scale = float(min(len(rows), len(cols))) * float(n) * float(m) + 1.0
    if float(sub.max()) * scale < 2.0**52:
        cost = sub * scale + np.where(sub > 0, bonus, 0.0)
    else:  # astronomically large inputs: fall back to the solver's own (deterministic) order
        cost = sub
    r, c = linear_sum_assignment(cost, maximize=True)
    return [(int(rows[i]), int(cols[j])) for i, j in zip(r, c) if sub[i, j] > 0]


def _assign_exact(candidates: dict[tuple[int, int], int], n: int, m: int) -> list[tuple[int, int]]:
    """`_assign` of the exact stage's weights, given as their non-zero entries. Usually no gold
    entity and no prediction has two candidates: then every candidate is a match, in gold order,
    as `_assign` returns them, and no matrix is built."""
    golds = {i for i, _ in candidates}
    preds = {j for _, j in candidates}
    if len(golds) == len(candidates) == len(preds):  # no contest
        return sorted(candidates)
    exact = np.zeros((n, m), dtype=np.int64)
    for (i, j), weight in candidates.items():
        exact[i, j] = weight
    return _assign(exact)


def align(
    gold_keys: list[list[str]],
    pred_keys: list[str],
    threshold: float,
) -> list[Match]:
    """Align predictions with gold entities.

    `gold_keys[i]` is gold entity i's normalised name followed by its normalised aliases;
    `pred_keys` are distinct normalised predicted names. Returns matches sorted by gold index.
    """
    n, m = len(gold_keys), len(pred_keys)
    if n == 0 or m == 0:
        return []
    pred_index = {key: j for j, key in enumerate(pred_keys)}
    candidates: dict[tuple[int, int], int] = {}  # (gold, prediction) -> weight: 2 by name, 1 by alias
    for i, keys in enumerate(gold_keys):
        for rank, key in enumerate(keys):
            j = pred_index.get(key)
            if j is not None:
                candidates[(i, j)] = max(candidates.get((i, j), 0), 2 if rank == 0 else 1)
    matches = [Match(i, j, "exact", 1.0) for i, j in _assign_exact(candidates, n, m)]

    gold_left = sorted(set(range(n)) - {mt.gold for mt in matches})
    taken = {mt.pred for mt in matches}
    pred_left = [j for j in range(m) if j not in taken]
    if gold_left and pred_left:
        flat: list[str] = []
        owner: list[int] = []
        for row, i in enumerate(gold_left):
            flat.extend(gold_keys[i])
            owner.extend([row] * len(gold_keys[i]))
        cutoff = max(threshold * 100.0 - _EPS, 0.0)
        sims = cdist(
            flat,
            [pred_keys[j] for j in pred_left],
            scorer=fuzz.ratio,
            score_cutoff=cutoff,
            dtype=np.float64,
        )
        starts = np.flatnonzero(np.r_[True, np.diff(owner) != 0])
        best = np.maximum.reduceat(sims, starts, axis=0) / 100.0  # (gold_left, pred_left)
        if threshold <= 0.0:
            best = np.maximum(best, 1.0 / _QUANTUM)  # every pair is a candidate
        else:
            best[best < threshold - _EPS] = 0.0
        quantised = np.rint(best * _QUANTUM).astype(np.int64)
        for r, c in _assign(quantised):
            matches.append(Match(gold_left[r], pred_left[c], "fuzzy", float(best[r, c])))
    matches.sort(key=lambda mt: mt.gold)
    return matches
