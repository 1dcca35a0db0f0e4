"""Reference-free figures on real cached answers: what the gold-free metrics say about real runs.

    python bench/reference_free_corpus.py [PATH]   (default: ../shared/corpus/real-llm-outputs.jsonl)

Takes every first-pass extraction (`call: extract`) whose cache stored its prompt, splits the
prompt into the part before its real data (the instructions and few-shot examples) and the chunk
(after `Text:` / `Input_text:`), reads the entity types the prompt asked for, parses the answer
and computes `harness.scoring.reference_free` on it. Prints the pooled figures, how many answers
leak example names (and the names most often leaked), and the time per answer.

The corpus is other people's data, for measuring only; nothing of it is copied into the project.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.formats.answer import parse  # noqa: E402
from harness.scoring.reference_free import reference_free  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "real-llm-outputs.jsonl"

# GraphRAG / nano-graphrag: "-Real Data-"; LightRAG: "---Real Data---"
_REAL_DATA = re.compile(r"-+\s*Real Data\s*-+", re.I)
_TYPES = re.compile(r"^\s*entity[_ ]types\s*:\s*(.+)$", re.I | re.M)
_TEXT = re.compile(r"^\s*(?:input_)?text\s*:\s*", re.I | re.M)
_OUTPUT = re.compile(r"^\s*#*\s*output\s*:?\s*$", re.I | re.M)


def split_prompt(prompt: str) -> tuple[str, str, list[str]] | None:
    """(examples part, chunk, entity types) of a cached extraction prompt, or None when the
    prompt has no recognisable real-data section."""
    found = list(_REAL_DATA.finditer(prompt))
    if not found:
        return None
    head, tail = prompt[: found[-1].start()], prompt[found[-1].end():]
    text_at = _TEXT.search(tail)
    if text_at is None:
        return None
    rest = tail[text_at.end():]
    end = _OUTPUT.search(rest)
    chunk = rest[: end.start()] if end else rest
    types_at = _TYPES.search(tail)
    raw_types = types_at.group(1) if types_at else ""
    types = [t.strip().strip("[]'\"") for t in re.split(r"[,，]", raw_types) if t.strip().strip("[]'\"")]
    return head, chunk.strip().strip("#").strip(), types


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    args = ap.parse_args()
    if not args.path.exists():
        print(f"{args.path}: not found (the shared corpus sits beside the checkout)", file=sys.stderr)
        return 2

    answers = skipped = 0
    totals: collections.Counter[str] = collections.Counter()
    leaking_answers = typed_answers = 0
    leaked: collections.Counter[str] = collections.Counter()
    grounding_rates: list[float] = []
    spent = 0.0
    for line in args.path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("call") != "extract" or not row.get("prompt"):
            continue
        parts = split_prompt(row["prompt"])
        if parts is None:
            skipped += 1
            continue
        examples, chunk, types = parts
        started = time.perf_counter()
        graph = parse(row["output"]).graph
        figures = reference_free(graph, chunk, entity_types=types or None, examples=examples)
        spent += time.perf_counter() - started
        answers += 1
        totals.update({
            "entities": figures.entities, "grounded": figures.grounded, "entity_records": figures.entity_records,
            "conforming": figures.conforming_records or 0, "typed_records": figures.entity_records if types else 0,
            "duplicates": figures.duplicate_records, "type_conflicts": figures.type_conflicts,
            "relationship_records": figures.relationship_records, "dangling": figures.dangling,
            "self_loops": figures.self_loops, "leaks": figures.example_leaks or 0,
            "empty_descriptions": figures.empty_descriptions, "out_of_scale": figures.strengths_out_of_scale,
        })
        typed_answers += bool(types)
        if figures.example_leaks:
            leaking_answers += 1
            leaked.update(figures.example_leak_names)
        if figures.entities:
            grounding_rates.append(figures.grounded / figures.entities)

    def share(num: int, den: int) -> str:
        return "n/a" if den == 0 else f"{num / den:.1%}"

    print(f"answers scored: {answers} (extract rows with a stored prompt; {skipped} without a real-data section)")
    print(f"distinct entities: {totals['entities']}, grounded {totals['grounded']} "
          f"({share(totals['grounded'], totals['entities'])} micro)")
    if grounding_rates:
        ordered = sorted(grounding_rates)
        print(f"per-answer grounding rate: median {ordered[len(ordered) // 2]:.1%}, "
              f"answers below 80%: {sum(r < 0.8 for r in ordered)} of {len(ordered)}")
    print(f"type conformance: {share(totals['conforming'], totals['typed_records'])} of entity records "
          f"({typed_answers} answers had a type list)")
    print(f"duplicate records: {totals['duplicates']} of {totals['entity_records']} entity records; "
          f"type conflicts: {totals['type_conflicts']}")
    print(f"dangling: {totals['dangling']} of {totals['relationship_records']} relationship records "
          f"({share(totals['dangling'], totals['relationship_records'])}); self-loops: {totals['self_loops']}")
    print(f"example leaks: {totals['leaks']} names in {leaking_answers} answers "
          f"({share(leaking_answers, answers)} of answers); most leaked: "
          + ", ".join(f"{name} x{n}" for name, n in leaked.most_common(8)))
    print(f"empty/placeholder descriptions: {totals['empty_descriptions']}; strengths out of 1-10: "
          f"{totals['out_of_scale']}")
    print(f"time: {spent * 1000 / max(answers, 1):.2f} ms per answer (parse + figures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
