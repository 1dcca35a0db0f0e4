"""Benchmark: `harness tune --selection diverse` on a synthetic corpus, sparse against the old dense code.

    .venv/bin/python bench/tune_sampling.py [--sizes 500 2000 5000 20000] [--limit 10] [--dense-max-gb 3]
                                            [--corpus ../shared/corpus/real-llm-outputs.jsonl]

Generates chunks of ~1,500 characters from seeded random words of nine "topics" (several scripts,
so the trigram vocabulary is realistic and diversity means something), then, in a fresh process per
implementation and size, times `select(texts, "diverse", limit)` (best of --repeat for sparse, one run
for dense), reads the rise of the process's peak RSS over that call, and repeats the call once under
tracemalloc for its peak of traced (Python + numpy) allocations. The dense implementation that sparse
replaced is the reference (tests/tune/dense_reference.py); it is only run where its texts x vocabulary float64 matrix
is estimated under --dense-max-gb (its peak is about twice that). If the shared corpus
of real model outputs exists, its `output` fields are a real-text data point. Figures are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.tune.sampling import _trigram_vectors, select  # noqa: E402

sys.path.insert(0, str(REPO / "tests" / "tune"))
from dense_reference import dense_diverse_indices  # noqa: E402  (the code sparse replaced)

DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "real-llm-outputs.jsonl"
CHUNK_CHARS = 1500

# Letters (or syllables) each topic builds its words from: different inventories give different
# trigram profiles, as texts on different subjects or in different languages do.
TOPIC_LETTERS = [
    "bcdfghklmnprst" + "aeiou",
    "ptkbdgmnslrwy" + "aiu",
    "qxzvjwckh" + "aeoy",
    "thrshchngstpl" + "eaoiu",
    "àâçéèêëîïôûùüÿñœæøåß" + "lmnrst",
    "абвгдежзийклмнопрстуфхцчшщыэюя",
    "αβγδεζηθικλμνξοπρστυφχψω",
    "0123456789_-./:=abcdefx",
    "".join(chr(c) for c in random.Random(1).sample(range(0x4E00, 0x9FA6), 100)),  # CJK ideographs
]
COMMON = ("the of and to in a is that for on with as was by at from it be this are or which an "
          "not were has had but have their its also one two after between during under").split()


def make_corpus(size: int, seed: int = 20240601) -> list[str]:
    """`size` chunks of ~CHUNK_CHARS characters; the same seed gives the same corpus, and a smaller
    size is a prefix of a larger one."""
    rng = random.Random(seed)
    topics: list[list[str]] = []
    for letters in TOPIC_LETTERS:
        words = {"".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(400)}
        names = {"".join(rng.choices(letters, k=rng.randint(4, 8))).capitalize() + f" {rng.randint(1800, 2030)}"
                 for _ in range(60)}
        topics.append(sorted(words) + sorted(names))
    chunks: list[str] = []
    for _ in range(size):
        main, other = rng.sample(range(len(topics)), 2)
        parts: list[str] = []
        length = 0
        while length < CHUNK_CHARS:
            sentence = []
            for _ in range(rng.randint(6, 20)):
                roll = rng.random()
                pool = topics[main] if roll < 0.6 else topics[other] if roll < 0.7 else COMMON
                sentence.append(rng.choice(pool))
            text = " ".join(sentence).capitalize() + rng.choice([". ", ". ", "; ", "? ", ".\n\n"])
            parts.append(text)
            length += len(text)
        chunks.append("".join(parts)[:CHUNK_CHARS])
    return chunks


def real_texts(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    return [row.get("output") or "" for row in rows]


def dense_select(texts: list[str], selection: str, limit: int) -> list[int]:
    assert selection == "diverse"
    return dense_diverse_indices(texts, max(1, min(limit, len(texts))))


# --- one measurement, in a fresh process ---------------------------------------------------------

def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def worker(impl: str, source: str, limit: int, repeat: int) -> dict:
    texts = make_corpus(int(source)) if source.isdigit() else real_texts(Path(source))
    run: Callable[[list[str], str, int], list[int]] = select if impl == "sparse" else dense_select
    before = _rss_mb()
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        picks = run(texts, "diverse", limit)
        best = min(best, time.perf_counter() - started)
    rss_rise = _rss_mb() - before
    tracemalloc.start()
    run(texts, "diverse", limit)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    result = {"wall_s": best, "traced_peak_mb": peak / 2**20, "rss_rise_mb": rss_rise, "picks": picks,
              "texts": len(texts), "mb_text": sum(len(t.encode("utf-8")) for t in texts) / 1e6}
    if impl == "sparse":
        matrix = _trigram_vectors(texts)
        result |= {"vocabulary": matrix.shape[1], "nnz": matrix.nnz}
    return result


def measure(impl: str, source: str, limit: int, repeat: int) -> dict:
    done = subprocess.run([sys.executable, __file__, "--worker", impl, source, "--limit", str(limit),
                           "--repeat", str(repeat)], capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode or not lines:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    return json.loads(lines[0][len("RESULT "):])


COLUMNS = ("chunks", "text MB", "vocab", "nnz", "dense GB", "sparse s", "sparse pk", "sparse rss+",
           "dense s", "dense pk", "dense rss+", "time x", "peak x", "same")


def _line(cells: list[str]) -> str:
    return "  ".join(cell.rjust(max(len(name), 8)) for name, cell in zip(COLUMNS, cells))


def row(label: str, limit: int, repeat: int, dense_max_gb: float, source: str) -> None:
    sparse = measure("sparse", source, limit, repeat)
    if "error" in sparse:
        print(f"{label}: sparse failed: {sparse['error']}")
        return
    estimate_gb = sparse["texts"] * sparse["vocabulary"] * 8 / 1e9
    dense = measure("dense", source, limit, 1) if estimate_gb <= dense_max_gb else None
    cells = [label, f"{sparse['mb_text']:.2f}", f"{sparse['vocabulary']}", f"{sparse['nnz']}", f"{estimate_gb:.2f}",
             f"{sparse['wall_s']:.3f}", f"{sparse['traced_peak_mb']:.1f}", f"{sparse['rss_rise_mb']:.1f}"]
    if dense is None:
        print(_line(cells) + f"  dense skipped: its matrix alone would be {estimate_gb:.1f} GB "
              f"(> --dense-max-gb {dense_max_gb:g})", flush=True)
    elif "error" in dense:
        print(_line(cells) + f"  dense failed: {dense['error']}", flush=True)
    else:
        cells += [f"{dense['wall_s']:.2f}", f"{dense['traced_peak_mb']:.1f}", f"{dense['rss_rise_mb']:.1f}",
                  f"{dense['wall_s'] / sparse['wall_s']:.1f}", f"{dense['traced_peak_mb'] / sparse['traced_peak_mb']:.1f}",
                  "yes" if dense["picks"] == sparse["picks"] else "NO"]
        print(_line(cells), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 5000, 20000])
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="timing passes for sparse (best is reported)")
    ap.add_argument("--dense-max-gb", type=float, default=3.0,
                    help="skip the dense reference when its texts x vocabulary matrix would exceed this")
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="real outputs (JSONL with `output`); skipped if absent")
    ap.add_argument("--worker", nargs=2, metavar=("IMPL", "SOURCE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker[0], args.worker[1], args.limit, args.repeat)))
        return 0

    print(f"select(texts, 'diverse', {args.limit}); sparse: best of {args.repeat}, dense: one run; pk = tracemalloc "
          "peak of one call (MB); rss+ = rise of the process's peak RSS over the timed calls (MB)")
    print(_line(list(COLUMNS)))
    for size in args.sizes:
        row(str(size), args.limit, args.repeat, args.dense_max_gb, str(size))
    corpus = Path(args.corpus)
    if corpus.exists():
        row("real", args.limit, args.repeat, args.dense_max_gb, str(corpus.resolve()))
        print(f"real = `output` of every row of {corpus}")
    else:
        print(f"real corpus not found, skipped: {corpus}")
    print("dense GB = chunks x vocabulary x 8 bytes (dense's matrix alone); time x, peak x = dense / sparse; "
          "same = identical picks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
