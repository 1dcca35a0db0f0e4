"""Check `harness estimate` against a real GraphRAG cache: the projection from a sample of the
project's chunks must land, within its interval, on the cache's real total.

The project (default: Minda93's III_2024_golf GraphRAG 1.x project, a public repository copied
under /work/scratch/public/) keeps each call's response with the endpoint's `usage`. The check:

1. `harness import graphrag PROJECT --cache` turns the cache into a suite whose variants replay
   each cached model's conversations (first extraction, gleanings, loop checks);
2. a random sample of its chunks (seeded) becomes a suite of that model's variant alone, run with
   `harness run --record-mode none` (no model call);
3. `harness estimate SAMPLE_SUITE --corpus PROJECT --json` projects the whole project (its text
   units, its cache's summaries and reports);
4. the real total is summed straight from the cache's files (every chat call of that model: its
   `usage`), not through the harness, and must lie inside the projected interval.

With --coverage N it also draws N samples from the full run's rows and says how often the
extraction interval holds the cache's extraction total (the interval's calibration).

    python scripts/check_estimate_real_cache.py [--project DIR] [--sample 20] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DEFAULT_PROJECT = Path("/work/scratch/public/Minda93-III_2024_golf/ragtest")
DEFAULT_MODEL = "gpt-4o-mini-2024-07-18"


@dataclass
class CheckResult:
    project: str
    model: str
    sampled: int
    chunks: int
    projected: float
    low: float | None
    high: float | None
    real: int
    projected_extraction: float
    extraction_low: float | None
    extraction_high: float | None
    real_extraction: int

    @property
    def passed(self) -> bool:
        return self.low is not None and self.high is not None and self.low <= self.real <= self.high

    def lines(self) -> list[str]:
        return [
            f"project {self.project}, model {self.model}: {self.sampled} of {self.chunks} chunks sampled",
            f"  total tokens: projected {self.projected:,.0f} ({_range(self.low, self.high)}), real {self.real:,}",
            f"  extraction tokens: projected {self.projected_extraction:,.0f} "
            f"({_range(self.extraction_low, self.extraction_high)}), real {self.real_extraction:,}",
            f"  {'PASS' if self.passed else 'FAIL'}: the real total is {'inside' if self.passed else 'outside'} the interval",
        ]


def _range(low: float | None, high: float | None) -> str:
    return "n/a" if low is None or high is None else f"{low:,.0f}-{high:,.0f}"


def real_totals(cache: Path, model: str) -> tuple[int, int]:
    """(every chat call's tokens, the extraction calls' tokens) of `model`, read from the cache's
    files directly: GraphRAG keeps `{"result": response, ...}` with the response's `usage`."""
    total = extraction = 0
    for path in sorted(p for p in cache.rglob("*") if p.is_file()):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        result = data.get("result") if isinstance(data, dict) else None
        response = result.get("response", result) if isinstance(result, dict) else None
        if not isinstance(response, dict) or response.get("model") != model or "choices" not in response:
            continue
        usage = response.get("usage") or {}
        tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
        total += tokens
        if path.parent.name in ("entity_extraction", "extract_graph"):
            extraction += tokens
    return total, extraction


def _harness(args: list[str], cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"harness {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def sample_suite(work: Path, name: str, model: str, size: int, seed: int) -> tuple[Path, int]:
    """The imported cache suite cut to `model`'s variant on `size` random cases; (its path, all cases)."""
    data: dict[str, Any] = yaml.safe_load((work / "suites" / f"{name}-cache.yaml").read_text(encoding="utf-8"))
    variant = dict(data["variants"][model])
    covered = variant.get("cases") or [case["id"] for case in data["cases"]]
    variant["cases"] = sorted(random.Random(seed).sample(covered, min(size, len(covered))))
    data["variants"] = {model: variant}
    data["baseline"] = model
    # the name stays: the cassettes live under fixtures/cassettes/<suite name>/
    path = work / "suites" / f"{name}-sample.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path, len(covered)


def check(project: Path, *, model: str = DEFAULT_MODEL, sample: int = 20, seed: int = 7,
          work: Path | None = None) -> CheckResult:
    with tempfile.TemporaryDirectory() as scratch:
        folder = work or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        _harness(["import", "graphrag", str(project), "--cache", "--limit", "100000", "--name", "check", "--force"],
                 folder)
        suite, covered = sample_suite(folder, "check", model, sample, seed)
        _harness(["run", str(suite), "--record-mode", "none"], folder)
        estimate = json.loads(_harness(["estimate", str(suite), "--corpus", str(project), "--json"], folder))
    variant = estimate["variants"][0]
    total, extraction_stage = variant["total"]["tokens"], variant["stages"][0]["tokens"]
    real, real_extraction = real_totals(project / "cache", model)
    return CheckResult(str(project), model, variant["sampled_cases"], estimate["corpus"]["chunks"],
                       total["value"], total["low"], total["high"], real,
                       extraction_stage["value"], extraction_stage["low"], extraction_stage["high"], real_extraction)


def coverage(project: Path, *, model: str = DEFAULT_MODEL, sample: int = 20, draws: int = 200) -> tuple[int, int]:
    """How many of `draws` random samples' extraction intervals hold the cache's real extraction
    total: (held, draws). The full run is replayed once; each draw re-projects a subset of its rows."""
    from harness.estimate.corpus import chunker_for, corpus_from_folder
    from harness.estimate.projection import sampled_stage
    from harness.estimate.sample import VariantSample, read_samples, with_chunk_tokens
    from harness.suites import load_suite

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        _harness(["import", "graphrag", str(project), "--cache", "--limit", "100000", "--name", "check", "--force"],
                 folder)
        suite, _ = sample_suite(folder, "check", model, 10**9, 0)
        _harness(["run", str(suite), "--record-mode", "none"], folder)
        runs = sorted((folder / "reports" / "check-cache").iterdir())
        _, samples = read_samples(runs[-1], "check-cache", {model: model})
        texts = {case.id: case.text for case in load_suite(suite).cases}
    corpus = corpus_from_folder(project, chunker_for(None))  # the project's own text units
    full = with_chunk_tokens(samples[0], texts, corpus.encoding)
    chunks, mean_chunk = corpus.chunks, corpus.tokens / corpus.chunks
    _, real_extraction = real_totals(project / "cache", model)
    held = 0
    for draw in range(draws):
        cases = random.Random(draw).sample(full.cases, min(sample, len(full.cases)))
        stage = sampled_stage("extraction", VariantSample(model, model, cases, 0), float(chunks), None, 1,
                              mean_chunk=mean_chunk)
        low, high = stage.tokens.low, stage.tokens.high
        held += low is not None and high is not None and low <= real_extraction <= high
    return held, draws


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=DEFAULT_PROJECT)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--coverage", type=int, default=0, metavar="N",
                        help="also draw N samples and count how often the extraction interval holds the real total")
    args = parser.parse_args(argv)
    if not (args.project / "cache").is_dir():
        print(f"{args.project}: no GraphRAG project with a cache here", file=sys.stderr)
        return 2
    result = check(args.project, model=args.model, sample=args.sample, seed=args.seed)
    print("\n".join(result.lines()))
    if args.coverage:
        held, draws = coverage(args.project, model=args.model, sample=args.sample, draws=args.coverage)
        print(f"  calibration: the extraction interval held the real extraction total in {held} of {draws} "
              f"samples of {args.sample} chunks")
    return 0 if result.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
