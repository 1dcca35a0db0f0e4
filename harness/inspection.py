"""One entity across a run: `harness inspect RUN ENTITY`.

For every variant: the names it was written as, its types, its descriptions merged across cases
(distinct ones, in case order, as GraphRAG merges an entity's descriptions), its relationships
with strengths (filterable by direction, strength and the related entity's type), the cases it
came from with an excerpt of their chunks, and whether gold expected it.

Names match after `harness.scoring.normalize_name`. When the suite file can be read, a query that
names a gold entity or one of its aliases also matches the other names of that gold entity, and
predicted names that the scorer aligned to it (fuzzy matches included).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .errors import InputError
from .model import CaseResult, GoldCase, GoldEntity
from .scoring import explain_case, normalize_name, normalize_type
from .scoring.normalize import canonical_type, type_table

if TYPE_CHECKING:
    from .suites import Suite

Direction = Literal["in", "out", "both"]
EXCERPT = 90


@dataclass
class RelationshipView:
    case_id: str
    direction: str  # "out": the entity is the source; "in": the target
    source: str
    target: str
    other: str
    other_type: str
    strength: float | None
    description: str
    keywords: str
    round: int


@dataclass
class CaseMention:
    case_id: str
    names: list[str]  # as the model wrote them in this case
    types: list[str]
    descriptions: list[str]
    gold: str  # "expected, found" | "expected, missed" | "not in gold" | "gold unknown"
    gold_name: str | None
    excerpt: str | None


@dataclass
class VariantEntity:
    variant: str
    names: list[str]
    types: dict[str, int]
    description: str  # distinct descriptions merged
    descriptions: list[str]
    relationships: list[RelationshipView]
    relationships_total: int
    cases: list[CaseMention]


@dataclass
class EntityInspection:
    query: str
    keys: list[str]
    suite: str
    run_dir: str
    gold: list[dict[str, Any]]  # cases whose gold has it: case_id, name, type, aliases
    variants: list[VariantEntity]
    filters: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def excerpt(text: str, names: list[str], width: int = EXCERPT) -> str | None:
    """The first place one of `names` occurs in `text` (case and punctuation insensitive), with context."""
    for name in sorted({n for n in names if n.strip()}, key=len, reverse=True):
        tokens = re.findall(r"\w+", name)
        if not tokens:
            continue
        pattern = r"(?<!\w)" + r"[\W_]+".join(re.escape(t) for t in tokens) + r"(?!\w)"
        found = re.search(pattern, text, flags=re.IGNORECASE)
        if found:
            start, end = max(0, found.start() - width), min(len(text), found.end() + width)
            snippet = " ".join(text[start:end].split())
            return ("…" if start else "") + snippet + ("…" if end < len(text) else "")
    return None


def _gold_names(entity: GoldEntity) -> list[str]:
    return [entity.name, *entity.aliases]


def inspect_entity(
    rows: list[CaseResult],
    query: str,
    *,
    suite: Suite | None = None,
    suite_name: str = "",
    run_dir: str = "",
    variants: list[str] | None = None,
    direction: Direction = "both",
    min_strength: float | None = None,
    related_type: str | None = None,
) -> EntityInspection:
    if direction not in ("in", "out", "both"):
        raise InputError(f"--direction: '{direction}' is not one of in, out, both")
    present = list(dict.fromkeys(r.variant for r in rows))
    if variants:
        unknown = [v for v in variants if v not in present]
        if unknown:
            raise InputError(f"{run_dir}: no variant {', '.join(unknown)} in this run (have {', '.join(present)})")
    chosen = [v for v in present if not variants or v in variants]
    gold_cases: dict[str, GoldCase] = {c.id: c for c in suite.cases} if suite is not None else {}
    matching = suite.spec.matching if suite is not None else None
    types = type_table(matching.type_synonyms) if matching is not None else {}
    notes: list[str] = []
    if suite is None:
        notes.append("suite file not readable: no chunk excerpts, gold status from the scores only")

    qkey = normalize_name(query)
    keys = {qkey}
    # gold entities the query names, per case
    gold_hits: dict[str, GoldEntity] = {}
    for case in gold_cases.values():
        for entity in case.entities:
            if qkey in {normalize_name(n) for n in _gold_names(entity)}:
                gold_hits[case.id] = entity
                keys.update(normalize_name(n) for n in _gold_names(entity))

    # predicted names the scorer aligned to those gold entities (fuzzy matches), per (variant, case)
    aligned: dict[tuple[str, str], set[str]] = {}
    found_gold: dict[tuple[str, str], str] = {}
    for row in rows:
        hit = gold_hits.get(row.case_id)
        if hit is None or row.variant not in chosen:
            continue
        if row.score is not None and row.score.entities.annotated and hit.name in row.score.entities.missed:
            continue  # the stored score says nothing was aligned to it: no alignment to work out again
        # which predicted name the scorer aligned to it is not stored: the one scoring function says
        detail = explain_case(gold_cases[row.case_id], row.graph, matching)
        for matched, pred_name, _kind, _sim in detail.matches:
            if matched == hit.name:
                aligned.setdefault((row.variant, row.case_id), set()).add(normalize_name(pred_name))
                found_gold[(row.variant, row.case_id)] = pred_name

    def matches(name: str, variant: str, case_id: str) -> bool:
        key = normalize_name(name)
        return key in keys or key in aligned.get((variant, case_id), set())

    def type_key(label: str) -> str:
        return canonical_type(label, types) if types else normalize_type(label)

    want_type = type_key(related_type) if related_type else None
    reports: list[VariantEntity] = []
    for variant in chosen:
        vrows = [r for r in rows if r.variant == variant]
        # type of every entity this variant declared (first non-empty, across cases)
        declared: dict[str, str] = {}
        for row in vrows:
            for ent in row.graph.entities:
                key = normalize_name(ent.name)
                if ent.type and not declared.get(key):
                    declared[key] = ent.type
        names: list[str] = []
        type_counts: Counter[str] = Counter()
        descriptions: list[str] = []
        rels: list[RelationshipView] = []
        total = 0
        mentions: list[CaseMention] = []
        for row in vrows:
            ents = [e for e in row.graph.entities if e.name.strip() and matches(e.name, variant, row.case_id)]
            case_rels: list[RelationshipView] = []
            for rel in row.graph.relationships:
                is_src, is_tgt = matches(rel.source, variant, row.case_id), matches(rel.target, variant, row.case_id)
                if not (is_src or is_tgt):
                    continue
                way = "out" if is_src else "in"
                other = rel.target if is_src else rel.source
                case_rels.append(RelationshipView(
                    case_id=row.case_id, direction=way, source=rel.source, target=rel.target, other=other,
                    other_type=declared.get(normalize_name(other), ""), strength=rel.strength,
                    description=rel.description, keywords=rel.keywords, round=rel.round,
                ))
            if not ents and not case_rels and row.case_id not in gold_hits:
                continue
            total += len(case_rels)
            for view in case_rels:
                if direction != "both" and view.direction != direction:
                    continue
                if min_strength is not None and (view.strength is None or view.strength < min_strength):
                    continue
                if want_type is not None and type_key(view.other_type) != want_type:
                    continue
                rels.append(view)
            case_names = list(dict.fromkeys(e.name for e in ents))
            case_types = list(dict.fromkeys(e.type for e in ents if e.type))
            case_desc = list(dict.fromkeys(e.description.strip() for e in ents if e.description.strip()))
            for n in case_names:
                if n not in names:
                    names.append(n)
            type_counts.update(normalize_type(t) for t in case_types)
            for d in case_desc:
                if d not in descriptions:
                    descriptions.append(d)
            gold_entity = gold_hits.get(row.case_id)
            if gold_entity is not None:
                found = found_gold.get((variant, row.case_id))
                if found is None and row.score is not None and gold_entity.name not in row.score.entities.missed:
                    found = gold_entity.name
                status = "expected, found" if found else "expected, missed"
                gold_name = gold_entity.name
            elif gold_cases:
                status, gold_name = "not in gold", None
            else:
                unmatched = {normalize_name(n) for n in (row.score.entities.unmatched if row.score else [])}
                missed = {normalize_name(n) for n in (row.score.entities.missed if row.score else [])}
                if keys & missed:
                    status = "expected, missed"
                elif keys & unmatched:
                    status = "not in gold"
                elif ents and row.score is not None:
                    status = "expected, found"
                else:
                    status = "gold unknown"
                gold_name = None
            text = gold_cases[row.case_id].text if row.case_id in gold_cases else None
            snippet = excerpt(text, case_names + ([*_gold_names(gold_entity)] if gold_entity else []) + [query]) if text else None
            mentions.append(CaseMention(row.case_id, case_names, case_types, case_desc, status, gold_name, snippet))
        if names or rels or total or mentions:
            reports.append(VariantEntity(
                variant=variant,
                names=names,
                types=dict(type_counts.most_common()),
                description=" ".join(d if d.endswith((".", "!", "?")) else d + "." for d in descriptions),
                descriptions=descriptions,
                relationships=rels,
                relationships_total=total,
                cases=mentions,
            ))
    if not reports:
        raise InputError(f"{run_dir or 'run'}: no entity named '{query}'{_suggest(rows, query)}")
    gold = [{"case_id": cid, "name": e.name, "type": e.type, "aliases": list(e.aliases)} for cid, e in gold_hits.items()]
    return EntityInspection(
        query=query,
        keys=sorted(keys),
        suite=suite_name,
        run_dir=run_dir,
        gold=gold,
        variants=reports,
        filters={"variants": chosen, "direction": direction, "min_strength": min_strength, "related_type": related_type},
        notes=notes,
    )


def _suggest(rows: list[CaseResult], query: str) -> str:
    from rapidfuzz import fuzz, process

    names: dict[str, str] = {}
    for row in rows:
        for ent in row.graph.entities:
            names.setdefault(normalize_name(ent.name), ent.name)
    best = process.extract(normalize_name(query), list(names), scorer=fuzz.WRatio, limit=3, score_cutoff=60)
    return "" if not best else " (closest: " + ", ".join(names[key] for key, _, _ in best) + ")"


def render_text(report: EntityInspection) -> str:
    lines = [f"{report.query} — suite {report.suite}, run {report.run_dir}"]
    lines += [f"note: {n}" for n in report.notes]
    if report.gold:
        lines.append("gold: expected in " + ", ".join(
            f"{g['case_id']} (as {g['name']}" + (f", aka {', '.join(g['aliases'])}" if g["aliases"] else "") + ")"
            for g in report.gold))
    else:
        lines.append("gold: no case of the suite expects it" if "suite file not readable" not in " ".join(report.notes)
                     else "gold: unknown")
    f = report.filters
    active = [f"direction {f['direction']}"]
    if f["min_strength"] is not None:
        active.append(f"strength ≥ {f['min_strength']:g}")
    if f["related_type"]:
        active.append(f"related type {f['related_type']}")
    for v in report.variants:
        lines.append("")
        lines.append(f"[{v.variant}] written as: {', '.join(v.names) or '— (not extracted)'}")
        if v.types:
            lines.append("  types: " + ", ".join(f"{t or '(none)'} ×{n}" for t, n in v.types.items()))
        if v.description:
            lines.append(f"  description: {v.description}")
        lines.append(f"  relationships ({len(v.relationships)} of {v.relationships_total}; {', '.join(active)}):")
        for r in v.relationships:
            arrow = "→" if r.direction == "out" else "←"
            strength = "    —" if r.strength is None else f"{r.strength:5g}"
            kind = f" ({r.other_type})" if r.other_type else ""
            lines.append(f"    {r.direction:3s} {arrow} {r.other}{kind}  strength {strength}  [{r.case_id}]"
                         + (f"  {r.description}" if r.description else ""))
        if not v.relationships:
            lines.append("    none")
        lines.append("  cases:")
        for c in v.cases:
            lines.append(f"    {c.case_id}: {c.gold}" + (f" (gold: {c.gold_name})" if c.gold_name else "")
                         + (f"; written as {', '.join(c.names)}" if c.names else ""))
            if c.excerpt:
                lines.append(f"      “{c.excerpt}”")
    return "\n".join(lines)
