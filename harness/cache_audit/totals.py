"""Totals of an audit, per kind and per model, and the readable table `harness audit-cache`
prints. Pure: rows in, totals and lines out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from harness.cache_audit.entry import CALL_KINDS, EntryAudit

NO_MODEL = "(not stored)"
WORST = 10


@dataclass(slots=True)
class Totals:
    """Sums over a group of entries. `parsed_ok` counts entries our kind's parser read;
    `content_findings` entries whose content breaks the prompt's rules (parsed or not);
    `engine_findings` entries the engine's parser lost records from, gave fallback weights or
    misread. The engine and recovery figures count extraction and continuation entries only (the
    kinds the engines' graph parsers read)."""

    entries: int = 0
    parsed_ok: int = 0
    content_findings: int = 0
    engine_findings: int = 0
    engine_entities: int = 0
    engine_relationships: int = 0
    recovered_entities: int = 0
    recovered_relationships: int = 0
    lost_silently: int = 0
    seam_lost: int = 0
    seam_counted: int = 0  # conversations whose seams were modelled (3.x's are not: n/a, not 0)
    weight_fallbacks: int = 0

    def add(self, row: EntryAudit) -> None:
        self.entries += 1
        self.parsed_ok += row.parsed_ok
        self.content_findings += bool(row.content)
        self.engine_findings += bool(row.findings)
        if row.seam_lost is not None:
            self.seam_counted += 1
            self.seam_lost += row.seam_lost
        if row.engine_entities is not None:
            self.engine_entities += row.engine_entities
            self.engine_relationships += row.engine_relationships or 0
            self.recovered_entities += row.recovered_entities or 0
            self.recovered_relationships += row.recovered_relationships or 0
            self.lost_silently += row.lost_silently or 0
            self.weight_fallbacks += row.engine_weight_fallbacks or 0

    def to_json(self) -> dict[str, Any]:
        return {
            "entries": self.entries, "parsed_ok": self.parsed_ok, "content_findings": self.content_findings,
            "engine_findings": self.engine_findings,
            "engine_kept": {"entities": self.engine_entities, "relationships": self.engine_relationships},
            "recovered": {"entities": self.recovered_entities, "relationships": self.recovered_relationships},
            "lost_silently": self.lost_silently, "seam_lost": self.seam_lost if self.seam_counted else None, "weight_fallbacks": self.weight_fallbacks,
        }


@dataclass(slots=True)
class AuditTotals:
    all: Totals = field(default_factory=Totals)
    by_kind: dict[str, Totals] = field(default_factory=dict)
    by_model: dict[str, Totals] = field(default_factory=dict)
    engines: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        return {
            "all": self.all.to_json(),
            "by_kind": {k: t.to_json() for k, t in self.by_kind.items()},
            "by_model": {m: t.to_json() for m, t in self.by_model.items()},
            "engines": dict(self.engines),
        }


def total(rows: Iterable[EntryAudit]) -> AuditTotals:
    out = AuditTotals()
    for row in rows:
        out.all.add(row)
        out.by_kind.setdefault(row.kind, Totals()).add(row)
        out.by_model.setdefault(row.model or NO_MODEL, Totals()).add(row)
        out.engines[row.engine] += 1
    order = {k: n for n, k in enumerate(CALL_KINDS)}
    out.by_kind = dict(sorted(out.by_kind.items(), key=lambda kv: order.get(kv[0], len(order))))
    out.by_model = dict(sorted(out.by_model.items(), key=lambda kv: (kv[0] == NO_MODEL, kv[0])))
    return out


_HEAD = ("entries", "parsed", "content findings", "engine kept E/R", "we recover E/R", "lost silently", "lost at seams",
         "weight fallbacks", "engine findings")


def _cells(t: Totals) -> tuple[str, ...]:
    extraction = t.engine_entities or t.engine_relationships or t.recovered_entities or t.recovered_relationships
    dash = "-"
    return (
        str(t.entries), str(t.parsed_ok), str(t.content_findings),
        f"{t.engine_entities}/{t.engine_relationships}" if extraction else dash,
        f"{t.recovered_entities}/{t.recovered_relationships}" if extraction else dash,
        str(t.lost_silently) if extraction else dash,
        (str(t.seam_lost) if t.seam_counted else "n/a") if extraction else dash,
        str(t.weight_fallbacks) if extraction else dash,
        str(t.engine_findings),
    )


def _table(title: str, groups: dict[str, Totals], overall: Totals) -> list[str]:
    rows = [(name, *_cells(t)) for name, t in groups.items()] + [("total", *_cells(overall))]
    header = (title, *_HEAD)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(cells)).rstrip()
    return [line(header), *(line(r) for r in rows)]


def worst(rows: Iterable[EntryAudit], limit: int = WORST) -> list[EntryAudit]:
    """The entries most worth a look: most records lost by the engine, then the unparsed, then
    most problems and content findings."""
    flagged = [r for r in rows if r.flagged]
    flagged.sort(key=lambda r: (-(r.lost_silently or 0) - (r.seam_lost or 0), r.parsed_ok, -len(r.problems) - len(r.content),
                                -(r.engine_weight_fallbacks or 0), r.id))
    return flagged[:limit]


def render(rows: list[EntryAudit], totals: AuditTotals, skipped_line: str | None, source: str,
           notes: Iterable[str] = (), empty_stores: Iterable[str] = ()) -> list[str]:
    """The readable report: a heading, what was skipped, the empty LightRAG stores, the version
    notes, the per-kind and per-model tables, the worst entries."""
    engines = ", ".join(f"{e} {n}" for e, n in sorted(totals.engines.items())) or "none"
    lines = [f"{source}: {totals.all.entries} cache entr{'y' if totals.all.entries == 1 else 'ies'} ({engines})"]
    if skipped_line:
        lines.append(skipped_line)
    lines += [f"{store}: empty (a LightRAG store with no cached call yet)" for store in empty_stores]
    lines += list(notes)
    if not rows:
        return lines
    lines += ["", *_table("kind", totals.by_kind, totals.all), "", *_table("model", totals.by_model, totals.all)]
    flagged = worst(rows)
    if flagged:
        more = sum(1 for r in rows if r.flagged) - len(flagged)
        lines += ["", f"worst entries ({len(flagged)}{f', {more} more with --json' if more > 0 else ''}):"]
        for r in flagged:
            kind = r.kind + (f"/{r.query_kind}" if r.query_kind else "")
            lines.append(f"  {r.id}  [{kind}, {r.model or NO_MODEL}]")
            for text in [*r.problems, *r.content, *r.findings][:4]:
                lines.append(f"    - {text}")
    return lines
