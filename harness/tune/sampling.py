"""Which chunks a tuning run reads: all, the first N, a seeded random N, or a diverse N.

`diverse` picks far-apart chunks by their character-trigram profiles (TF-IDF vectors in a
scipy.sparse matrix, farthest-point selection from the most central chunk): computed locally,
no model. The matrix holds one entry per distinct trigram of each text, so memory grows with
the corpus, not with texts x vocabulary (a dense 5,000 x 50,000 matrix would be 2 GB).
"""

from __future__ import annotations

import random

import numpy as np
from scipy import sparse

SELECTIONS = ("random", "top", "all", "diverse")

# Code points are below 0x110000 (21 bits), so a trigram packs into one int64 key, and the numeric
# order of the keys is the lexicographic order of the trigram strings: the vocabulary comes out
# sorted without hashing strings (no dependence on PYTHONHASHSEED).
_BITS = 21
# Scores closer than this to the maximum count as tied (lowest index wins). Equal similarities
# summed in a different order differ in the last bits; without a tolerance the pick between two
# equally far chunks would depend on the summation order rather than on the index.
_TIE = 1e-12


def _normalise(text: str) -> str:
    r"""`re.sub(r"\s+", " ", text.lower())`, about three times faster: str.split() and the `\s` of a
    str pattern both split on str.isspace(), and a leading or trailing run still becomes one space."""
    lowered = text.lower()
    inner = " ".join(lowered.split())
    if not inner:
        return " " if lowered else ""
    return (" " if lowered[0].isspace() else "") + inner + (" " if lowered[-1].isspace() else "")


def _trigram_keys(text: str) -> np.ndarray:
    """Packed keys of the character trigrams of the normalised text, repeats kept."""
    normal = _normalise(text)
    if len(normal) < 3:
        return np.empty(0, dtype=np.int64)
    codes = np.frombuffer(normal.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.int64)
    return (codes[:-2] << (2 * _BITS)) | (codes[1:-1] << _BITS) | codes[2:]


def _trigram_vectors(texts: list[str]) -> sparse.csr_array:
    """L2-normalised TF-IDF rows (smooth idf), columns in sorted trigram order; empty texts give zero rows.

    Only each text's distinct trigrams are kept (as packed keys and counts); the large temporaries
    are a few arrays of that total length, freed as soon as they are used."""
    n = len(texts)
    row_keys: list[np.ndarray] = [np.empty(0, dtype=np.int64)]
    row_counts: list[np.ndarray] = [np.empty(0, dtype=np.int32)]
    lengths = np.zeros(n, dtype=np.int64)
    for row, text in enumerate(texts):
        keys, counts = np.unique(_trigram_keys(text), return_counts=True)  # sorted, distinct
        row_keys.append(keys)
        row_counts.append(counts.astype(np.int32))  # no text has 2**31 trigrams
        lengths[row] = len(keys)
    keys = np.concatenate(row_keys)
    del row_keys
    vocabulary = np.sort(keys)
    if len(vocabulary):
        vocabulary = vocabulary[np.concatenate(([True], vocabulary[1:] != vocabulary[:-1]))]
    width, nnz = len(vocabulary), len(keys)
    index_dtype = np.int32 if max(nnz, width) < 2**31 else np.int64
    columns = np.searchsorted(vocabulary, keys).astype(index_dtype)
    del keys, vocabulary
    document_frequency = np.bincount(columns, minlength=width)  # each (row, column) occurs once
    idf = np.log((1 + n) / (1 + document_frequency)) + 1
    data = np.concatenate(row_counts).astype(np.float64)
    del row_counts
    data *= idf[columns]
    rows = np.repeat(np.arange(n, dtype=index_dtype), lengths)
    norms = np.sqrt(np.bincount(rows, weights=np.square(data), minlength=n))
    data /= np.where(norms == 0, 1, norms)[rows]
    del rows
    indptr = np.zeros(n + 1, dtype=index_dtype)
    np.cumsum(lengths, out=indptr[1:])
    return sparse.csr_array((data, columns, indptr), shape=(n, width))


def _dense_row(matrix: sparse.csr_array, row: int) -> np.ndarray:
    start, end = matrix.indptr[row], matrix.indptr[row + 1]
    out = np.zeros(matrix.shape[1])
    out[matrix.indices[start:end]] = matrix.data[start:end]
    return out


def _first_max(values: np.ndarray) -> int:
    """Index of the maximum; values within _TIE of it are ties, and the lowest index wins."""
    return int(np.argmax(values >= values.max() - _TIE))


def diverse_indices(texts: list[str], limit: int) -> list[int]:
    """Up to `limit` far-apart indices: the chunk most similar to the centroid, then farthest-point picks."""
    n = len(texts)
    if limit <= 0:
        return []
    if limit >= n:
        return list(range(n))
    vectors = _trigram_vectors(texts)
    centroid = np.bincount(vectors.indices, weights=vectors.data, minlength=vectors.shape[1]) / n
    chosen = [_first_max(vectors @ centroid)]  # the most typical chunk first
    distance = 1 - vectors @ _dense_row(vectors, chosen[0])
    while len(chosen) < limit:
        distance[chosen] = -1
        nxt = _first_max(distance)
        chosen.append(nxt)
        distance = np.minimum(distance, 1 - vectors @ _dense_row(vectors, nxt))
    return chosen


def select(texts: list[str], selection: str, limit: int, *, seed: int = 42) -> list[int]:
    """Indices of the chunks to use, in the order they will be used."""
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}")
    n = len(texts)
    if selection == "all" or n == 0:
        return list(range(n))
    limit = max(1, min(limit, n))
    if selection == "top":
        return list(range(limit))
    if selection == "random":
        return sorted(random.Random(seed).sample(range(n), limit))
    return diverse_indices(texts, limit)
