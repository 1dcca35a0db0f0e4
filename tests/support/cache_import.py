"""`harness import ... --cache`, then a replayed run, then the check that every answer the run read
is a cached entry whose records are those `harness audit-cache` reads from it (issue 27, item 4)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.cache_audit import audit_cache
from harness.cache_audit.discovery import Skipped, discover
from harness.cli import main
from harness.finish import finish_outcome
from harness.formats.answer import parse
from harness.run.schedule import RunOptions, RunOutcome, run_suite
from harness.suites import Suite, load_suite


@dataclass
class Imported:
    code: int
    out: str
    err: str
    suite_path: Path


def import_with_cache(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, work: Path, engine: str,
                      root: Path, name: str, *extra: str) -> Imported:
    """`harness import ENGINE ROOT --name NAME --cache EXTRA...` in `work` (no key, no endpoint)."""
    (work / "suites").mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(work)
    for env in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "GRAPHRAG_API_KEY", "GRAPHRAG_API_BASE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(env, raising=False)
    capsys.readouterr()
    code = main(["import", engine, str(root), "--name", name, "--limit", "50", "--cache", *extra])
    out, err = capsys.readouterr()
    return Imported(code, out, err, work / "suites" / f"{name}-cache.yaml")


def replay(suite: Suite, reports: Path) -> RunOutcome:
    """`harness run SUITE --record-mode none`, finished (reports written)."""
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=reports, fresh=True))
    finish_outcome(outcome, record_mode="none")
    return outcome


def cassette_files(suite: Suite) -> list[str]:
    return sorted(p.relative_to(suite.cassette_dir()).as_posix() for p in suite.cassette_dir().rglob("*.json"))


def _entries(cache: Path) -> Iterator[tuple[str | None, str, str]]:
    for entry in discover(cache, Skipped()):
        if entry.answer is not None:
            yield entry.model, entry.answer, entry.id


def assert_rounds_read_as_audit(outcome: RunOutcome, cache: Path, fmt: str, *, models_stored: bool = True) -> int:
    """Every round of every replayed row is a cached answer of its variant's model, and each
    extraction or gleaning answer's records are the ones `harness audit-cache CACHE` reads from
    the entry (every entry holding that text, for canned answers repeat). Returns the rounds checked."""
    suite = outcome.suite
    audit = {row.id: row for row in audit_cache(cache).rows}
    by_answer: dict[tuple[str | None, str], list[str]] = {}
    for model, answer, entry_id in _entries(cache):
        by_answer.setdefault((model if models_stored else None, answer), []).append(entry_id)
    checked = 0
    for row in outcome.results:
        model = suite.spec.variants[row.variant].model if models_stored else None
        for rnd in row.rounds:
            ids = by_answer.get((model, rnd.output))
            assert ids, (row.variant, row.case_id, rnd.kind, rnd.output[:80])
            if rnd.kind != "loop":
                graph = parse(rnd.output, fmt).graph
                for entry_id in ids:
                    audited = audit[entry_id]
                    assert (len(graph.entities), len(graph.relationships)) == (
                        audited.recovered_entities, audited.recovered_relationships), (entry_id, row.case_id)
            checked += 1
    return checked


def covered_suite(imported: Imported) -> Suite:
    assert imported.code == 0, imported.err
    return load_suite(imported.suite_path)
