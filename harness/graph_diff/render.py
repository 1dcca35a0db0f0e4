"""The console view of a `GraphDiff`: the headline ("9.1% fewer entities"), where (per type, per
chunk, ranked) and why (merged, split, renamed, retyped, re-described, gone), with examples."""

from __future__ import annotations

from .diff import NO_TYPE, GraphDiff, NameGroup, Side, count_change

ID_SHOWN = 12  # characters of a chunk id shown (GraphRAG's are 128 hex digits)
TEXT_SHOWN = 48


def _short(value: str, width: int) -> str:
    return value if len(value) <= width else value[:width - 1] + "…"


def _change(before: int, after: int, noun: str) -> str:
    percent = count_change(before, after)
    if percent is None:
        return f"{noun}: {before} -> {after}" + (" (none before)" if after else "")
    if after == before:
        return f"{noun}: {before} -> {after} (as many)"
    word = "fewer" if after < before else "more"
    return f"{noun}: {before} -> {after} ({abs(percent):g}% {word} {noun.lower()})"


def _side(name: str, side: Side) -> str:
    return (f"{name}  {side.label}: {side.source}: {side.entities} entities, {side.relationships} relationships "
            f"over {side.chunks} {side.chunk_word}s")


def _group(group: NameGroup) -> str:
    return f"{' + '.join(group.before)} -> {' + '.join(group.after)}"




def _where(diff: GraphDiff) -> str:
    """The types whose count moved most (up to 3) and the chunk holding most of the change."""
    moved = sorted((row for row in diff.entities.by_type if row.b != row.a), key=lambda r: (-abs(r.b - r.a), r.type))[:3]
    parts = [f"{row.type} {row.a} -> {row.b}" for row in moved]
    if diff.chunks and diff.chunks[0].changes:
        word = diff.a.chunk_word if diff.a.chunk_word == diff.b.chunk_word else "chunk"
        top = diff.chunks[0]
        total = sum(chunk.changes for chunk in diff.chunks)
        parts.append(f"{word} {_short(top.chunk, ID_SHOWN + 1)} holds {top.changes} of {total} traced changes")
    return "; ".join(parts)


def render(diff: GraphDiff, *, top: int = 10, examples: int = 5) -> list[str]:
    ent, rel = diff.entities, diff.relationships
    lines = [_side("A", diff.a), _side("B", diff.b), ""]
    lines.append(f"{_change(ent.count_a, ent.count_b, 'Entities')}: {len(ent.added)} added, {len(ent.removed)} removed")
    groups = [f"{len(ent.merged)} merged", f"{len(ent.split)} split", f"{len(ent.renamed)} renamed"]
    lines.append(f"  one thing under other names (fragmentation clusters): {', '.join(groups)}")
    lines.append(f"  no counterpart: {len(ent.unexplained_removed)} gone, {len(ent.unexplained_added)} new")
    lines.append(f"  on both sides: {len(ent.retyped)} retyped, {len(ent.redescribed)} re-described")
    where = _where(diff)
    if where:
        lines.append(f"  where: {where}")
    lines.append(f"{_change(rel.count_a, rel.count_b, 'Relationships')}: {len(rel.added)} added, {len(rel.removed)} removed, "
                 f"{len(rel.redescribed)} re-described")
    why = rel.removed_because
    lines.append(f"  removed: {len(why.get('repointed', []))} re-pointed (the same link under other names), "
                 f"{len(why.get('endpoint_gone', []))} lost an entity, {len(why.get('link_gone', []))} link gone")
    why = rel.added_because
    lines.append(f"  added: {len(why.get('repointed', []))} re-pointed, {len(why.get('endpoint_new', []))} to a new entity, "
                 f"{len(why.get('link_new', []))} new link")
    if ent.by_type:
        lines += ["", f"  {'entity type':24s} {'A':>5s} {'B':>5s} {'change':>8s} {'added':>6s} {'removed':>8s} "
                      f"{'retyped in/out':>15s}"]
        for row in ent.by_type:
            percent = count_change(row.a, row.b)
            shown = "n/a" if percent is None else "0%" if percent == 0 else f"{percent:+g}%"
            lines.append(f"  {_short(row.type, 24):24s} {row.a:5d} {row.b:5d} {shown:>8s} {row.added:6d} {row.removed:8d} "
                         f"{f'{row.retyped_in}/{row.retyped_out}':>15s}")
    changed = [c for c in diff.chunks if c.changes]
    if changed:
        word = diff.a.chunk_word if diff.a.chunk_word == diff.b.chunk_word else "chunk"
        lines += ["", f"{word.capitalize()}s that explain most of the change ({len(changed)} of "
                      f"{diff.chunks_cited} changed):",
                  f"  {word:14s} {'changes':>7s} {'ent +/-':>8s} {'retyped':>7s} {'redescr':>7s} {'rel +/-':>8s} "
                  f"{'ent A->B':>8s}  text"]
        for chunk in changed[:top]:
            lines.append(f"  {_short(chunk.chunk, ID_SHOWN + 1):14s} {chunk.changes:7d} "
                         f"{f'{chunk.added}/{chunk.removed}':>8s} {chunk.retyped:7d} {chunk.redescribed:7d} "
                         f"{f'{chunk.relationships_added}/{chunk.relationships_removed}':>8s} "
                         f"{f'{chunk.entities_a}->{chunk.entities_b}':>8s}  {_short(chunk.text, TEXT_SHOWN)}")
        if len(changed) > top:
            lines.append(f"  ... {len(changed) - top} more (--top N, or --json)")
    kinds: list[tuple[str, list[str]]] = [("merged", [_group(g) for g in ent.merged]), ("split", [_group(g) for g in ent.split]),
             ("renamed", [_group(g) for g in ent.renamed]),
             ("retyped", [f"{c.title}: {c.before or NO_TYPE} -> {c.after or NO_TYPE}" for c in ent.retyped]),
             ("re-described", [f"{c.title}: {_short(' '.join(c.before.split()), 40)!r} -> "
                               f"{_short(' '.join(c.after.split()), 40)!r}" for c in ent.redescribed]),
             ("gone", ent.unexplained_removed), ("new", ent.unexplained_added),
             ("links removed", [f"{s} - {t}" for s, t in rel.removed]),
             ("links added", [f"{s} - {t}" for s, t in rel.added])]
    if any(items for _, items in kinds):
        lines += ["", "Examples:"]
        for name, items in kinds:
            if items:
                lines.append(f"  {name + ':':14s} {'; '.join(items[:examples])}"
                             + (f"; and {len(items) - examples} more" if len(items) > examples else ""))
    return lines
