"""Which chunks a tuning run reads: all, the first N, a seeded random N, or a diverse N.

`diverse` picks far-apart chunks by their character-trigram profiles (TF-IDF vectors built
with numpy, farthest-point selection from the most central chunk): computed locally, no model.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import numpy as np

SELECTIONS = ("random", "top", "all", "diverse")


def _trigram_vectors(texts: list[str]) -> np.ndarray:
    grams = [Counter(t[i : i + 3] for t in [re.sub(r"\s+", " ", text.lower())] for i in range(max(0, len(t) - 2)))
             for text in texts]
    vocabulary = sorted({g for counts in grams for g in counts})
    index = {g: i for i, g in enumerate(vocabulary)}
    matrix = np.zeros((len(texts), len(vocabulary)))
    for row, counts in enumerate(grams):
        for gram, count in counts.items():
            matrix[row, index[gram]] = count
    document_frequency = (matrix > 0).sum(axis=0)
    matrix *= np.log((1 + len(texts)) / (1 + document_frequency)) + 1
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def diverse_indices(texts: list[str], limit: int) -> list[int]:
    if limit >= len(texts):
        return list(range(len(texts)))
    vectors = _trigram_vectors(texts)
    centroid = vectors.mean(axis=0)
    chosen = [int(np.argmax(vectors @ centroid))]  # the most typical chunk first
    distance = 1 - vectors @ vectors[chosen[0]]
    while len(chosen) < limit:
        distance[chosen] = -1
        nxt = int(np.argmax(distance))  # ties: lowest index
        chosen.append(nxt)
        distance = np.minimum(distance, 1 - vectors @ vectors[nxt])
    return chosen


def select(texts: list[str], selection: str, limit: int, *, seed: int = 42) -> list[int]:
    """Indices of the chunks to use, in the order they will be used."""
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}")
    n = len(texts)
    if selection == "all":
        return list(range(n))
    limit = max(1, min(limit, n))
    if selection == "top":
        return list(range(limit))
    if selection == "random":
        return sorted(random.Random(seed).sample(range(n), limit))
    return diverse_indices(texts, limit)
