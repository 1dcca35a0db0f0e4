"""Shard results -> one run: `harness merge RUN...`.

A suite too big for one CI job runs as `harness run SUITE --shard i/n` in n jobs (shard i keeps
the cases at positions i-1, i-1+n, ... of the suite, every variant). `merge_runs` joins their
results.jsonl rows, puts them in suite order (variants, then cases, as an unsharded run writes
them), and recomputes summary.json, the gate and every report from the merged rows, so the
merged run is the unsharded run apart from timings (`*_s`) and `created_at`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from .artifacts import PairwiseVerdict, RunSummary, Verdict
from .atomicfile import atomic_write
from .confined import make_folder
from .errors import InputError
from .inputfiles import load_json
from .model import CaseResult
from .names import check_name
from .judges.config import PAIRWISE_FILE as JUDGE_PAIRWISE
from .runfolder import RESULTS, RunData, claim_new_dir, load_run, load_suite_of, write_results

if TYPE_CHECKING:
    from .suites import Suite

if TYPE_CHECKING:
    from .finish import FinishedRun


@dataclass
class MergeResult:
    run_dir: Path
    summary: RunSummary
    verdict: Verdict
    rows: int
    missing: list[tuple[str, str]] = field(default_factory=list)  # (variant, case) of the suite not in any shard
    # the default baseline could not be used (unreadable, or scored on other gold): `--gate` exits 2 with it
    baseline_error: InputError | None = None
    finished: FinishedRun | None = field(default=None, repr=False)  # what `harness run --gate` gates


def _strip_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_timings(v) for k, v in value.items() if not k.endswith("_s")}
    if isinstance(value, list):
        return [_strip_timings(v) for v in value]
    return value


def find_runs(paths: list[Path]) -> list[Path]:
    """Run folders named by `paths`: a run folder (or a file in one) is itself; any other folder, such
    as a downloaded CI artifact (`shard-1/<suite>/shard-1/`), stands for every run folder below it."""
    found: list[Path] = []
    for path in paths:
        path = Path(path)
        if not path.is_dir() or (path / RESULTS).exists():
            found.append(path)  # load_run explains what is wrong with it, if anything
            continue
        below = sorted({p.parent for p in path.rglob(RESULTS)})
        if not below:
            raise InputError(f"{path}: no finished run here or in any folder below (no {RESULTS})")
        found.extend(below)
    return found


def _merge_pairwise(suite: Suite, loaded: list[RunData], run_dir: Path) -> None:
    """The shards' pairwise verdicts (each shard judged its own cases, `judges.stage`), joined in
    suite order into the merged run's file: its rows were judged once, in their shard."""
    found = [(data.run_dir / JUDGE_PAIRWISE) for data in loaded if (data.run_dir / JUDGE_PAIRWISE).is_file()]
    if not found:
        return
    place = {case.id: i for i, case in enumerate(suite.cases)}
    verdicts: dict[tuple[str, int, str], PairwiseVerdict] = {}
    for path in found:
        try:
            read = TypeAdapter(list[PairwiseVerdict]).validate_python(load_json(path, what="pairwise verdicts"))
        except ValidationError:
            raise InputError(f"{path}: not a list of pairwise verdicts (docs/judges.md)") from None
        for verdict in read:
            verdicts.setdefault((verdict.case, verdict.repeat, verdict.order), verdict)
    joined = [verdicts[key].model_dump() for key in sorted(verdicts, key=lambda k: (place.get(k[0], len(place)), k[1], k[2]))]
    atomic_write(run_dir / JUDGE_PAIRWISE, json.dumps(joined, ensure_ascii=False, indent=1) + "\n")


def merge_runs(
    runs: list[Path],
    *,
    reports: Path | None = None,
    run_id: str | None = None,
    suite_path: Path | None = None,
    baseline: Path | None = None,
    into: Path | None = None,
    allow_changed_gold: bool = False,
) -> MergeResult:
    """`into`: the folder the merged run is written in, which the caller holds locked and may hold
    the shard runs below it (`harness run --ray`, harness.run.ray_shards); otherwise a new folder of
    `reports` (default: the first shard's), or `run_id`'s."""
    from .finish import finish_run  # lazy: reports load matplotlib

    if not runs:
        raise InputError("give the run folders to merge (harness merge RUN RUN ...)")
    if run_id is not None:
        check_name(run_id, "--run-id", "run id")
    loaded = [load_run(path) for path in find_runs(runs)]  # every shard must be finished (summary.json)
    suites = {data.finished.suite for data in loaded} | {row.suite for data in loaded for row in data.rows}
    if len(suites) != 1:
        raise InputError(f"{runs[0]}: runs of different suites cannot be merged ({', '.join(sorted(suites))})")
    suite_name = suites.pop()
    suite = load_suite_of(loaded[0].summary, suite_path)
    if suite is None:
        raise InputError(f"{loaded[0].run_dir}: suite file {loaded[0].finished.suite_file!r} not readable; "
                         "name it with --suite FILE")
    if suite.name != suite_name:
        raise InputError(f"{suite.path}: suite '{suite.name}', but the runs are of '{suite_name}'")

    merged: dict[tuple[str, str, int], tuple[CaseResult, Path]] = {}  # (variant, case, sample of --repeat)
    for data in loaded:
        for row in data.rows:
            key = (row.variant, row.case_id, row.sample)
            if key in merged:
                first, where = merged[key]
                if _strip_timings(first.model_dump()) != _strip_timings(row.model_dump()):
                    raise InputError(f"{data.run_dir}: case '{row.case_id}' of variant '{row.variant}' is also in "
                                     f"{where} with different results")
                continue
            merged[key] = (row, data.run_dir)

    variants = suite.variant_names()
    order = {(v, c.id): i for i, (v, c) in enumerate(suite.pairs(variants))}
    unknown = [key[:2] for key in merged if key[:2] not in order]
    if unknown:
        variant, case = unknown[0]
        raise InputError(f"{suite.path}: case '{case}' of variant '{variant}' is in a shard but not in the suite")
    rows = [row for _, (row, _) in sorted(merged.items(), key=lambda item: (order[item[0][:2]], item[0][2]))]
    present_variants = {v for v, _, _ in merged}
    present = {key[:2] for key in merged}
    missing = [key for key in order if key[0] in present_variants and key not in present]

    modes = {data.finished.record_mode for data in loaded}
    record_mode = modes.pop() if len(modes) == 1 else "mixed"
    wall_s = max(float(data.finished.timings.get("wall_s", 0.0)) for data in loaded)

    # the shard's folder as named, not resolved: a linked run folder must not move the merged run out
    reports_dir = reports if reports is not None else Path(os.path.abspath(loaded[0].run_dir)).parent.parent
    if into is not None:
        run_dir = into
    elif run_id is None:
        run_dir = claim_new_dir(reports_dir / suite_name)  # atomic: a concurrent run cannot take it too
    else:
        run_dir = reports_dir / suite_name / run_id
        if run_dir.exists() and any(run_dir.iterdir()):
            raise InputError(f"{run_dir}: already exists; pick another --run-id")
        if any(run_dir.resolve() == data.run_dir.resolve() for data in loaded):
            raise InputError(f"{run_dir}: is one of the runs being merged")
        make_folder(run_dir)
    write_results(run_dir / RESULTS, rows)
    _merge_pairwise(suite, loaded, run_dir)
    # each variant's entity types as its shards ran it (not the prompt as it reads now)
    entity_types = {name: variant.entity_types for data in reversed(loaded)
                    for name, variant in data.finished.variants.items() if variant.entity_types is not None}
    # ... and its prompt's fingerprint as they recorded it (a shard without fingerprints: unknown)
    prompts = {name: fp for data in reversed(loaded) if data.finished.inputs is not None
               for name, fp in data.finished.inputs.prompts.items()}
    finished = finish_run(suite, run_dir, rows, record_mode=record_mode, wall_s=wall_s, entity_types=entity_types,
                          baseline=baseline, prompts=prompts, fallback=into is not None,
                          allow_changed_gold=allow_changed_gold)
    return MergeResult(run_dir=run_dir, summary=finished.summary, verdict=finished.verdict, rows=len(rows),
                       missing=missing, baseline_error=finished.baseline_error, finished=finished)
