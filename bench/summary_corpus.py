"""Description-summary figures on real cached summaries: what the summary scoring says of real runs.

    python bench/summary_corpus.py [PATH] [--share 0.5 ...]   (default: ../shared/corpus/real-llm-outputs.jsonl)

Takes every description summary (`call: summarize`) whose cache stored its prompt, reads the
entity (`Entities:`) and the description list (`Description List:`, the JSON list GraphRAG writes)
back from the prompt, and scores the answer with `harness.scoring.summary_score`. Prints, for
Latin-script and CJK summaries apart, the share of description facts dropped and of summary facts
added at each keep share asked for, and how many summaries name their entity, stay in the third
person and within their limit (docs/scoring.md, "Description summaries", quotes these figures).

The corpus is other people's data, for measuring only; nothing of it is copied into the project.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.formats.summary import summary_text  # noqa: E402
from harness.model import GoldCase  # noqa: E402
from harness.scoring import summary_score  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "real-llm-outputs.jsonl"
_ENTITY = re.compile(r"Entities:\s*(.*?)\n")
_LIST = re.compile(r"Description List:\s*(\[.*\])\s*\n", re.S)
_LIMIT = re.compile(r"Limit the final description length to (\d+) words")
_CJK = re.compile("[\u4e00-\u9fff]")


def case_of(prompt: str) -> GoldCase | None:
    """The summary case a cached prompt was filled from, or None when it cannot be read back."""
    entity, listed = _ENTITY.search(prompt), _LIST.search(prompt)
    if entity is None or listed is None:
        return None
    try:
        name, descriptions = json.loads(entity.group(1)), json.loads(listed.group(1))
    except ValueError:
        return None
    limit = _LIMIT.search(prompt)
    return GoldCase(
        id="corpus", text=listed.group(1),
        entity_name=json.dumps(name, ensure_ascii=False) if isinstance(name, list) else str(name).strip('"'),
        descriptions=[d.strip('"') for d in descriptions if isinstance(d, str)],
        max_length=int(limit.group(1)) if limit else None,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--share", type=float, action="append", help="keep shares to try (default 0.25 0.34 0.5 0.67)")
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.path.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases = [(case, summary_text(row["output"])) for row in rows if row.get("call") == "summarize"
             and (case := case_of(row.get("prompt") or "")) is not None]
    groups = {"latin": [c for c in cases if not _CJK.search(c[1])], "cjk": [c for c in cases if _CJK.search(c[1])]}
    print(f"{len(cases)} summaries read back ({len(groups['latin'])} Latin-script, {len(groups['cjk'])} CJK)")
    default = summary_score.KEEP_SHARE
    for share in args.share or [0.25, 0.34, 0.5, 0.67]:
        summary_score.KEEP_SHARE = share
        for label, group in groups.items():
            scores = [summary_score.score_summary(case, text) for case, text in group]
            facts = sum(s.description_facts for s in scores)
            dropped = facts - sum(s.facts_kept for s in scores)
            stated = sum(s.summary_facts for s in scores)
            added = sum(s.facts_added for s in scores)
            print(f"share {share:.2f} {label:5s}: description facts dropped {dropped}/{facts} = {dropped / max(facts, 1):.1%}; "
                  f"summary facts added {added}/{stated} = {added / max(stated, 1):.1%}")
    summary_score.KEEP_SHARE = default
    scores = [summary_score.score_summary(case, text) for case, text in cases]
    share = sum(1 for s in scores if s.names_entity) / len(scores)
    third = sum(1 for s in scores if s.third_person) / len(scores)
    within = sum(1 for s in scores if s.within_length) / len(scores)
    print(f"names the entity {share:.1%}; third person {third:.1%}; within the limit {within:.1%}")
    pronouns = collections.Counter(p for s in scores for p in s.first_or_second_person)
    print("first/second person:", ", ".join(f"{p} {n}" for p, n in pronouns.most_common(8)) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
