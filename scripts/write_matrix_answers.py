"""Write the answers of the example model-matrix suite (suites/model-matrix.yaml).

No model is reachable where these fixtures are made. The matrix suite runs the podcast suite's twelve cases
with two prompts (`default`, `tuned`) and three models, so each of its six cells needs answers:
they are the podcast suite's hand-written answers (fixtures/responses/podcast/<prompt>/<case>.yaml),
edited by the fixed rules below so that the three models answer differently, as three models
of differing strength might. None of them is the output of any model.

- gpt-4o-mini: the podcast suite's hand-written first answer, as written.
- gpt-4o: that answer with the records of its hand-written gleaning answer added before the
  completion delimiter (as if the stronger model found them in one pass).
- qwen2.5-7b-local (a local OpenAI-compatible server): that answer without its last two entity
  records and the relationships that name them, every third remaining relationship left out, and,
  under the `default` prompt, no completion delimiter (a small model stopping early).

Each file says so in its header. Then record the cassettes with
`.venv/bin/python scripts/record_handwritten.py suites/model-matrix.yaml`, which serves these answers
from the local test server, one model at a time.

    .venv/bin/python scripts/write_matrix_answers.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "fixtures" / "responses" / "podcast"
TARGET = REPO / "fixtures" / "responses" / "model-matrix"
CASES = ("host-welcomes-guest", "series-a-funding", "acquisition-deal", "outage-postmortem", "conference-recap",
         "headset-launch", "chip-fab-news", "license-change-fork", "founder-origin-story", "model-benchmark-debate",
         "regulator-fine", "quantum-startup-interview")  # every case of the podcast suite
PROMPTS = ("default", "tuned")
COMPLETE = "<|COMPLETE|>"
RECORD = re.compile(r'^\("(entity|relationship)"<\|>(.*)\)$')
HEADER = ("# Hand-written by the harness team for the podcast suite, then edited by scripts/write_matrix_answers.py\n"
          "# ({rule}); not the output of any model.\n")


class _BlockDumper(yaml.SafeDumper):
    """Multi-line answers as `|-` blocks, as the hand-written files hold them."""


_BlockDumper.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None))


def records(answer: str) -> list[str]:
    """The answer's records, one per line, without separators or the completion delimiter."""
    return [line.strip() for line in answer.splitlines() if RECORD.match(line.strip())]


def written(found: list[str], separated: bool, complete: bool) -> str:
    """Records as an answer: `##` between them when the source separated them so."""
    body = "\n##\n".join(found) if separated else "\n".join(found)
    return body + (f"\n{COMPLETE}" if complete else "")


def fields(record: str) -> list[str]:
    match = RECORD.match(record)
    assert match is not None
    return match.group(2).split("<|>")


def local_model(found: list[str], prompt: str) -> tuple[list[str], bool]:
    """The rule of the local model's answers (module docstring)."""
    entities = [r for r in found if r.startswith('("entity"')]
    dropped = {fields(r)[0] for r in entities[-2:]}
    kept_entities = [r for r in entities if fields(r)[0] not in dropped]
    relationships = [r for r in found if r.startswith('("relationship"')
                     and not {fields(r)[0], fields(r)[1]} & dropped]
    kept_relationships = [r for i, r in enumerate(relationships) if i % 3 != 2]
    return kept_entities + kept_relationships, prompt != "default"


def main() -> int:
    for prompt in PROMPTS:
        for case in CASES:
            source = yaml.safe_load((SOURCE / prompt / f"{case}.yaml").read_text(encoding="utf-8"))
            first, *gleaned = [str(r) for r in source["rounds"]]
            separated = "\n##\n" in first
            complete = COMPLETE in first
            base = records(first)
            extra = [r for answer in gleaned for r in records(answer) if r not in base]
            local, local_complete = local_model(base, prompt)
            answers = {
                "gpt-4o-mini": ("as written", written(base, separated, complete)),
                "gpt-4o": ("gleaned records added", written(base + extra, separated, complete)),
                "qwen2.5-7b-local": ("records left out", written(local, separated, complete and local_complete)),
            }
            for model, (rule, text) in answers.items():
                path = TARGET / f"{prompt}@{model}" / f"{case}.yaml"
                path.parent.mkdir(parents=True, exist_ok=True)
                body = yaml.dump({"rounds": [text]}, Dumper=_BlockDumper, allow_unicode=True, width=10_000)
                path.write_text(HEADER.format(rule=rule) + body, encoding="utf-8")
    print(f"wrote {len(PROMPTS) * len(CASES) * 3} answers under {TARGET.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
