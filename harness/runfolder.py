"""Run folders: `<reports>/<suite>/<run-id>/`, their files, which one a run writes, and who may write it.

The file names (results.jsonl, summary.json, case_diffs.jsonl, gate.json, selection.json, provenance.json,
.lock), reading and writing results and case diffs, reading a finished run back (`load_run`), and baselines
(`<reports>/baselines/<suite>.json`) are defined here and nowhere else.

Three rules keep concurrent and interrupted runs from losing rows:

- A new folder is claimed with an atomic `mkdir` (a taken name gets `-2`, `-3` ...), so two
  processes started in the same second never share one.
- A process writing a run holds an exclusive lock on `<run>/.lock` (flock; the OS drops it when
  the process dies, `kill -9` included), so a run being written is never resumed by another.
- `selection.json` records the variants and cases a run was started with; only a run of the same
  selection is resumed, so a rerun with another `--case` or `--variant` cannot rewrite it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from pydantic import ValidationError

from .artifacts import BASELINE_SCHEMA_VERSION, Artifact, Baseline, CaseDiff, ComparisonSummary, RunSummary, read_artifact
from .atomicfile import atomic_write, atomic_write_json
from .confined import make_folder, open_no_follow
from .errors import HarnessError, InputError
from .inputfiles import MAX_RUN_FILE_BYTES, load_json, read_text
from .kinds.registry import load_plugins
from .known_keys import scrub
from .model import CaseResult
from .names import check_name

if TYPE_CHECKING:
    from .suites import Suite

RESULTS = "results.jsonl"
SUMMARY = "summary.json"  # written last: its presence marks a finished run
# every paired case's diff against the baseline variant, one JSON line each (summary schema 2 on)
CASE_DIFFS = "case_diffs.jsonl"
GATE = "gate.json"
SELECTION = "selection.json"
PROVENANCE = "provenance.json"  # {"commit": ...}: the source commit the run was started at
LOCK = ".lock"
_NEWLINE_BYTES = len(os.linesep)  # what a text-mode "\n" becomes on disk
BASELINES = "baselines"  # <reports>/baselines/<suite>.json, beside the suites' run folders

# --------------------------------------------------------------------------- results files


def read_results(path: Path, *, finished: bool = False) -> list[CaseResult]:
    """Rows of a results file; a torn last line (a killed run) is ignored, other damage is an error.
    A `finished` run's file (its summary.json written) was complete: a torn last line there is damage.

    A run writes one row per case × variant (× sample, with `--repeat`); a file holding one twice has been edited or
    concatenated, and every reader (resume, report, gate, compare, inspect, merge) would have to
    pick one arbitrarily, so it is refused here, once for all of them."""
    if not path.exists():
        return []
    load_plugins()  # a plugin kind's figures in the rows are read by its score model
    rows: list[CaseResult] = []
    seen: set[tuple[str, str, int]] = set()
    lines = read_text(path, limit=MAX_RUN_FILE_BYTES, what="results file").split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = CaseResult.model_validate_json(line)
        except ValidationError as exc:
            if number >= len(lines) - 1 and not finished:
                break  # the line being written when the run was killed
            raise InputError(f"{path}:{number}: not a result row: {exc.errors()[0]['msg']}") from None
        if (row.variant, row.case_id, row.sample) in seen:
            sample = f" (sample {row.sample})" if row.sample else ""
            raise InputError(f"{path}:{number}: case '{row.case_id}' of variant '{row.variant}'{sample} appears twice "
                             "(a run has one row per case × variant × sample)")
        seen.add((row.variant, row.case_id, row.sample))
        rows.append(row)
    return rows


def write_results(path: Path, rows: list[CaseResult]) -> None:
    atomic_write(path, (row.model_dump_json() + "\n" for row in rows))


class ResultsWriter:
    """results.jsonl while a run writes it: the rows kept from an interrupted run first (one
    atomic write), then each row appended and flushed as its case finishes, so a killed run loses
    nothing. Rows are placed by an int (their suite order: variant, case, sample); where each
    row's line lies is kept, so `finish` puts the file in suite order by copying those bytes
    rather than serialising every row again, and leaves it alone when it already is."""

    def __init__(self, path: Path, kept: Iterable[tuple[int, str]]) -> None:
        self.path = path
        self._spans: dict[int, tuple[int, int]] = {}  # place -> (offset, bytes of the line without its newline)
        self._end = 0
        atomic_write(path, (self._track(place, line) for place, line in kept))
        # text mode, as write_results: the same newlines; never through a link put in its place since
        fd = open_no_follow(path, os.O_WRONLY | os.O_APPEND)
        self._sink = os.fdopen(fd, "a", encoding="utf-8")

    def _track(self, place: int, line: str) -> str:
        line = scrub(line)  # before its size is kept: the line as it is on disk
        size = len(line) if line.isascii() else len(line.encode("utf-8"))
        self._spans[place] = (self._end, size)
        self._end += size + _NEWLINE_BYTES
        return line + "\n"

    def append(self, place: int, line: str) -> None:
        """One finished row (a `CaseResult.model_dump_json()`), on disk before this returns."""
        self._sink.write(self._track(place, line))
        self._sink.flush()

    def close(self) -> None:
        self._sink.close()

    def finish(self) -> None:
        """Close the file and rewrite it in place order (atomically), unless it is in that order."""
        self.close()
        places = sorted(self._spans)
        offsets = [self._spans[place][0] for place in places]
        if all(a < b for a, b in zip(offsets, offsets[1:])):
            return  # every line follows the one before it: the file is already in suite order
        with self.path.open("rb") as source:
            def lines() -> Iterator[str]:
                for place in places:
                    offset, size = self._spans[place]
                    source.seek(offset)
                    yield source.read(size).decode("utf-8") + "\n"

            atomic_write(self.path, lines())


def write_artifact(path: Path, artifact: Artifact) -> None:
    """summary.json, gate.json or a baseline: the model's dump, atomically."""
    atomic_write_json(path, artifact.to_json())


# --------------------------------------------------------------------------- case diffs


def bound_comparisons(run_dir: Path, comparisons: dict[str, ComparisonSummary]) -> dict[str, ComparisonSummary]:
    """Write every comparison's case diffs to case_diffs.jsonl (one line per variant and paired
    case, in the comparisons' order, each naming its `variant`) and return the comparisons as
    summary.json holds them (`ComparisonSummary.bounded`). Without a comparison, no file (an
    earlier finish's is removed)."""
    path = run_dir / CASE_DIFFS
    if not comparisons:
        path.unlink(missing_ok=True)
        return {}

    def lines() -> Iterator[str]:
        for variant, comparison in comparisons.items():
            prefix = '{"variant":' + _json_string(variant) + ","
            for diff in comparison.case_diffs:
                yield prefix + diff.model_dump_json()[1:] + "\n"

    atomic_write(path, lines())
    return {variant: comparison.bounded(CASE_DIFFS) for variant, comparison in comparisons.items()}


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def read_case_diffs(run_dir: Path, summary: RunSummary, variant: str) -> Iterator[CaseDiff]:
    """Every paired case's diff of `variant` against the baseline variant, in suite order, one at
    a time: from case_diffs.jsonl (read line by line) when the summary names it, else from the
    summary itself (version 1 summaries hold every diff inline)."""
    comparison = summary.comparisons.get(variant)
    if comparison is None:
        return
    if comparison.case_diffs_file is None:
        yield from comparison.case_diffs
        return
    if Path(comparison.case_diffs_file).name != comparison.case_diffs_file:  # a tampered summary reads nothing outside
        raise InputError(f"{run_dir / SUMMARY}: comparisons.{variant}.case_diffs_file: not a file name of the run folder")
    path = run_dir / comparison.case_diffs_file
    if not path.exists():
        raise InputError(f"{path}: missing (summary.json's comparison of '{variant}' names it)")
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError:
                raise InputError(f"{path}:{number}: not a JSON line") from None
            if not isinstance(data, dict):
                raise InputError(f"{path}:{number}: not a case diff (a JSON object with `variant`)")
            if data.pop("variant", None) != variant:
                continue
            yield read_artifact(CaseDiff, data, f"{path}:{number}", "case diff")


# --------------------------------------------------------------------------- finished runs


@dataclass
class RunData:
    """A finished run read back: its folder, summary (None when unfinished and allowed) and rows."""

    run_dir: Path
    summary: RunSummary | None
    rows: list[CaseResult] = field(repr=False)

    @property
    def finished(self) -> RunSummary:
        """The summary of a run that must be finished (load_run checked it unless need_summary=False)."""
        if self.summary is None:
            raise InputError(f"{self.run_dir}: no {SUMMARY} here")
        return self.summary

    @property
    def suite_name(self) -> str:
        if self.summary is not None:
            return self.summary.suite
        return self.rows[0].suite if self.rows else ""


def run_dir_of(path: Path) -> Path:
    """A run folder, or a file inside one (summary.json, results.jsonl, report.md ...)."""
    path = Path(path)
    if path.is_file():
        return path.parent
    if not path.exists():
        raise InputError(f"{path}: no such run folder")
    return path


def read_summary(run_dir: Path) -> RunSummary:
    path = run_dir / SUMMARY
    if not path.exists():
        hint = " (the run is unfinished: rerun `harness run` to finish it)" if (run_dir / RESULTS).exists() else ""
        raise InputError(f"{run_dir}: no {SUMMARY} here{hint}")
    data = load_json(path, what="summary")  # bounded, strict UTF-8, depth-checked
    if not isinstance(data, dict) or not isinstance(data.get("variants"), dict) or "suite" not in data:
        raise InputError(f"{path}: not a run summary (no `suite` and `variants`)")
    _check_names(path, data)
    return read_artifact(RunSummary, data, path, "run summary")


def _check_names(path: Path, summary: dict[str, Any]) -> None:
    """`suite` and `run_id` become paths (baselines/<suite>.json, compare-<run_id>/): a tampered
    summary must not send a write outside the reports folder."""
    for key in ("suite", "run_id"):
        if key in summary:
            check_name(summary[key], str(path), f"`{key}`")


def read_rows(run_dir: Path) -> list[CaseResult]:
    path = run_dir / RESULTS
    if not path.exists():
        raise InputError(f"{run_dir}: no {RESULTS} here (give a run folder)")
    return read_results(path, finished=(run_dir / SUMMARY).exists())


def load_run(path: Path, *, need_summary: bool = True) -> RunData:
    """A finished run (summary.json required unless need_summary=False)."""
    run_dir = run_dir_of(path)
    rows = read_rows(run_dir)
    summary = read_summary(run_dir) if need_summary or (run_dir / SUMMARY).exists() else None
    return RunData(run_dir, summary, rows)


def load_suite_of(summary: RunSummary | None, override: Path | None = None) -> Suite | None:
    """The suite a run came from (chunks and gold for reports), or None when its file is gone."""
    from .suites import load_suite  # lazy: suites load prompts and parsers

    if override is not None:
        return load_suite(override)
    if summary is None or not summary.suite_file or not Path(summary.suite_file).exists():
        return None
    try:
        suite = load_suite(summary.suite_file)
    except HarnessError:
        return None
    return suite if suite.name == summary.suite else None


# --------------------------------------------------------------------------- baselines


def default_baseline_path(run_dir: Path, suite: str) -> Path:
    """Runs live in `<reports>/<suite>/<run-id>/`; baselines in `<reports>/baselines/<suite>.json`."""
    return run_dir.resolve().parent.parent / BASELINES / f"{suite}.json"


def read_baseline(path: Path, *, suite: str | None = None) -> Baseline:
    """Read and check a baseline file; anything wrong is one InputError naming the file."""
    data = load_json(path, what="baseline file")  # bounded, strict UTF-8, depth-checked
    if not isinstance(data, dict) or not isinstance(data.get("cases"), dict) or "suite" not in data:
        raise InputError(f"{path}: not a baseline file (write one with `harness baseline update RUN`)")
    version = data.get("baseline_schema_version")
    if version != BASELINE_SCHEMA_VERSION:
        raise InputError(f"{path}: baseline schema version {version!r}, this harness reads {BASELINE_SCHEMA_VERSION}")
    for variant, cases in data["cases"].items():
        if not isinstance(cases, dict) or not all(isinstance(v, dict) for v in cases.values()):
            raise InputError(f"{path}: cases.{variant}: expected case id -> metric values")
    if suite is not None and data["suite"] != suite:
        raise InputError(f"{path}: baseline of suite '{data['suite']}', not '{suite}'")
    return read_artifact(Baseline, data, path, "baseline file")


if sys.platform != "win32":  # POSIX
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

else:  # pragma: no cover - Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True


class RunLock:
    """An exclusive, non-blocking lock on a run folder, held while one process writes the run."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK
        self._fd: int | None = None

    def acquire(self) -> bool:
        fd = open_no_follow(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # a planted link must not create its target
        if not _try_lock(fd):
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None


Selection = dict[str, list[str]]
MAX_SELECTION_BYTES = 64 * 1024 * 1024  # variant and case ids of the biggest suites, many times over
MAX_PROVENANCE_BYTES = 64 * 1024  # one commit id


def selection_of(variants: list[str], case_ids: list[str]) -> Selection:
    return {"variants": list(variants), "cases": list(case_ids)}


def read_selection(run_dir: Path) -> Selection | None:
    """The selection a run was started with; None when unknown (older runs) or unreadable."""
    path = run_dir / SELECTION
    if not path.exists():
        return None
    try:
        data = load_json(path, limit=MAX_SELECTION_BYTES, what="run selection")  # bounded: never a FIFO's hang
    except HarnessError:
        return None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in ("variants", "cases")):
        return None
    return {"variants": data["variants"], "cases": data["cases"]}


def write_selection(run_dir: Path, selection: Selection) -> None:
    atomic_write_json(run_dir / SELECTION, selection)


def write_provenance(run_dir: Path, project: Path | None, *, replace: bool) -> None:
    """provenance.json of a run started now (`replace`), or of a resumed one that has none."""
    path = run_dir / PROVENANCE
    if replace or not path.exists():
        from .provenance import source_commit

        atomic_write_json(path, {"commit": source_commit(project if project is not None else Path.cwd())})


def read_commit(run_dir: Path) -> str | None:
    """The source commit a run was started at; None when unknown (no git, older runs) or unreadable."""
    path = run_dir / PROVENANCE
    if not path.exists():
        return None
    try:
        data = load_json(path, limit=MAX_PROVENANCE_BYTES, what="run provenance")
    except HarnessError:
        return None
    commit = data.get("commit") if isinstance(data, dict) else None
    return commit if isinstance(commit, str) and commit.isalnum() and len(commit) <= 64 else None


def describe(selection: Selection | None) -> str:
    if selection is None:
        return "selection unknown"
    cases = selection["cases"]
    shown = ", ".join(cases[:3]) + (f" and {len(cases) - 3} more" if len(cases) > 3 else "")
    return f"variants {', '.join(selection['variants']) or '-'}; {len(cases)} case(s): {shown or '-'}"


def new_run_id() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")


def claim_new_dir(suite_dir: Path, run_id: str | None = None) -> Path:
    """Create and return a run folder no other process has: `mkdir` is atomic, a taken name moves on."""
    base = run_id or new_run_id()
    make_folder(suite_dir)
    n = 1
    while True:
        run_dir = suite_dir / (base if n == 1 else f"{base}-{n}")
        try:
            run_dir.mkdir()
        except FileExistsError:
            n += 1
            continue
        return run_dir


@dataclass
class RunFolder:
    """The folder a run writes, held locked; `reuse` says whether its rows may be kept."""

    path: Path
    lock: RunLock = field(repr=False)
    reuse: bool = False
    resumed: bool = False
    notes: list[str] = field(default_factory=list)


def _unfinished(suite_dir: Path) -> list[Path]:
    """Unfinished runs of a suite (rows but no summary), newest first."""
    if not suite_dir.is_dir():
        return []
    found = []
    for d in suite_dir.iterdir():
        try:
            if d.is_dir() and (d / RESULTS).exists() and not (d / SUMMARY).exists():
                found.append(((d / RESULTS).stat().st_mtime_ns, d.name, d))
        except OSError:
            continue  # vanished meanwhile
    return [d for *_, d in sorted(found, key=lambda t: (t[0], t[1]), reverse=True)]


def open_run_folder(reports_dir: Path, suite: str, selection: Selection, *, run_id: str | None = None,
                    fresh: bool = False, project: Path | None = None) -> RunFolder:
    """The locked folder this run writes.

    With `run_id`: that folder; refused while another process writes it, or when it holds rows of
    another selection (unless `fresh`, which starts it over). Without: the newest unfinished run of
    the same selection that no process is writing (unless `fresh`), else a new folder; unfinished
    runs of another selection are left alone, with a note saying so. The folder's provenance.json
    says the commit checked out in `project` (default: the working folder) when the run started.
    """
    suite_dir = reports_dir / suite
    if run_id:
        check_name(run_id, "--run-id", "run id")
        run_dir = suite_dir / run_id
        make_folder(run_dir)
        lock = RunLock(run_dir)
        if not lock.acquire():
            raise InputError(f"{run_dir}: another harness process is writing this run; wait for it or pick another --run-id")
        has_rows = (run_dir / RESULTS).exists()
        stored = read_selection(run_dir)
        if has_rows and not fresh and stored is not None and stored != selection:
            lock.release()
            raise InputError(f"{run_dir}: holds a run of another selection ({describe(stored)}); rerun it with that "
                             "selection, start it over with --fresh, or pick another --run-id")
        write_selection(run_dir, selection)
        unfinished = has_rows and not (run_dir / SUMMARY).exists()
        write_provenance(run_dir, project, replace=not (unfinished and not fresh))
        return RunFolder(run_dir, lock, reuse=has_rows and not fresh, resumed=unfinished and not fresh)

    others: list[tuple[Path, Selection | None]] = []
    if not fresh:
        for run_dir in _unfinished(suite_dir):
            stored = read_selection(run_dir)
            if stored != selection:
                others.append((run_dir, stored))
                continue
            lock = RunLock(run_dir)
            if not lock.acquire():
                continue  # another process is writing it
            if (run_dir / SUMMARY).exists():  # finished while we looked
                lock.release()
                continue
            write_provenance(run_dir, project, replace=False)
            return RunFolder(run_dir, lock, reuse=True, resumed=True)
    run_dir = claim_new_dir(suite_dir)
    lock = RunLock(run_dir)
    lock.acquire()  # a folder we just created: nobody else holds it
    write_selection(run_dir, selection)
    write_provenance(run_dir, project, replace=True)
    notes = [f"not resuming {d}: an unfinished run of another selection ({describe(s)}); rerun with that "
             f"selection to finish it. This run: {run_dir}" for d, s in others[:1]]
    if len(others) > 1:
        notes.append(f"{len(others) - 1} more unfinished run(s) of other selections in {suite_dir}")
    return RunFolder(run_dir, lock, notes=notes)


__all__ = ["RESULTS", "SUMMARY", "GATE", "SELECTION", "PROVENANCE", "BASELINES", "RunData", "default_baseline_path", "load_run",
           "load_suite_of", "read_baseline", "read_results", "read_summary", "run_dir_of", "write_artifact",
           "write_results", "RunFolder", "RunLock", "claim_new_dir", "new_run_id",
                      "open_run_folder", "read_commit", "read_selection", "write_provenance"]
