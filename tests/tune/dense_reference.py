"""The dense `diverse` selection that harness/tune/sampling.py replaced with scipy.sparse, verbatim.

Kept as the oracle the sparse code is tested against (tests/tune/test_sampling.py) and the
baseline it is benchmarked against (bench/tune_sampling.py).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np


def dense_trigram_vectors(texts: list[str]) -> np.ndarray:
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


def dense_diverse_indices(texts: list[str], limit: int) -> list[int]:
    if limit >= len(texts):
        return list(range(len(texts)))
    vectors = dense_trigram_vectors(texts)
    centroid = vectors.mean(axis=0)
    chosen = [int(np.argmax(vectors @ centroid))]
    distance = 1 - vectors @ vectors[chosen[0]]
    while len(chosen) < limit:
        distance[chosen] = -1
        nxt = int(np.argmax(distance))
        chosen.append(nxt)
        distance = np.minimum(distance, 1 - vectors @ vectors[nxt])
    return chosen
