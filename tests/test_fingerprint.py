"""Input fingerprints (harness/fingerprint.py, summary.input_fingerprints, ScoringPlan.fingerprint):
the same validated values give the same fingerprints whatever the YAML looks like, in any process,
and each part changes only when its own values change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.artifacts import InputFingerprints
from harness.fingerprint import METHOD, canonical_json, fingerprint
from harness.run.plan import plan_variant
from harness.suites import load_suite
from harness.summary import input_fingerprints

SUITE = """\
name: pinned
description: two cases, an ontology and two prompts
variants:
  default:
    prompt: builtin:graphrag.extract_graph
  tuned:
    prompt: prompts/tuned.yaml
ontology:
  name: small
  entity_types: [person, city]
  relations:
    - {name: born_in, domain: person, range: city}
thresholds:
  entity_recall: 0.5
cases:
  - id: c1
    text: "Ada was born in London."
    entities:
      - {name: Ada, type: person}
      - {name: London, type: city}
    relationships:
      - {source: Ada, target: London}
  - id: c2
    text: "Alan lived in Wilmslow."
    entities: [{name: Alan, type: person}]
"""

# the same values written another way: flow and block styles swapped, other quoting and
# indentation, keys in another order, defaults written out, comments
REFORMATTED = """\
# the same suite
cases:
    -   text: 'Ada was born in London.'
        id: "c1"
        relationships: [{target: London, source: Ada}]
        entities: [{type: person, name: Ada}, {name: "London", type: "city"}]
        annotated: null
    -   id: c2
        entities:
            -   name: Alan
                type: person
        text: >-
            Alan lived
            in Wilmslow.
thresholds: {entity_recall: 0.50}
ontology:
    relations:
        -   range: city
            name: born_in
            domain: person
    entity_types:
        - person
        - city
    name: small
variants:
    default: {prompt: "builtin:graphrag.extract_graph"}
    tuned:
        prompt: 'prompts/tuned.yaml'
        cases: null
description: "two cases, an ontology and two prompts"
name: pinned
language: English
"""

PROMPT = """\
name: tuned
format: graphrag
entity_types: [person, city]
user: |
  Extract {entity_types} from the text.
  Text: {input_text}
  Output:
"""

PROMPT_REFORMATTED = """\
user: "Extract {entity_types} from the text.\\nText: {input_text}\\nOutput:\\n"
entity_types:
  - person
  - city
format: 'graphrag'
name: tuned
"""


def write(root: Path, suite: str = SUITE, prompt: str = PROMPT) -> Path:
    (root / "suites").mkdir(parents=True, exist_ok=True)
    (root / "prompts").mkdir(exist_ok=True)
    (root / "prompts" / "tuned.yaml").write_text(prompt, encoding="utf-8")
    path = root / "suites" / "pinned.yaml"
    path.write_text(suite, encoding="utf-8")
    return path


def pins(path: Path) -> InputFingerprints:
    suite = load_suite(path)
    prompts = {name: plan_variant(suite, name).fingerprint() for name in suite.variant_names()}
    return input_fingerprints(suite, {case.id for case in suite.cases},
                              {name: fp for name, fp in prompts.items() if fp is not None})


def test_the_recipe_is_pinned():
    # a change of recipe (hash, digits, key order, separators) would make every old fingerprint differ
    assert canonical_json({"b": [1, "é"], "a": None}) == '{"a":null,"b":[1,"é"]}'
    # the first 16 hex digits of SHA-256 over that text's UTF-8, written out once
    assert fingerprint({"b": [1, "é"], "a": None}) == "f8f17faab95c0248"
    assert METHOD == "sha256-16/canonical-json-1"


def test_fingerprints_do_not_depend_on_the_yaml_formatting(tmp_path):
    first = pins(write(tmp_path / "a"))
    second = pins(write(tmp_path / "b", REFORMATTED, PROMPT_REFORMATTED))
    assert first == second
    assert set(first.gold) == set(first.chunks) == {"c1", "c2"}
    assert set(first.prompts) == {"default", "tuned"}


def test_fingerprints_are_the_same_in_another_process(tmp_path):
    path = write(tmp_path)
    here = pins(path).model_dump()
    script = ("import json, sys; from tests.test_fingerprint import pins; from pathlib import Path; "
              "print(json.dumps(pins(Path(sys.argv[1])).model_dump()))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}  # another hash seed: no set or dict order leaks in
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, env=env,
                          cwd=Path(__file__).resolve().parent.parent, check=True)
    assert json.loads(done.stdout) == here


@pytest.mark.parametrize(("old", "new", "part", "changed"), [
    ("      - {name: London, type: city}\n", "      - {name: London, type: place}\n", "gold", ["c1"]),
    ('    text: "Alan lived in Wilmslow."\n', '    text: "Alan lived in Manchester."\n', "chunks", ["c2"]),
    ("  entity_types: [person, city]\n", "  entity_types: [person, city, country]\n", "ontology", None),
    ("  entity_recall: 0.5\n", "  entity_recall: 0.6\n", "suite", None),
])
def test_each_part_changes_alone(tmp_path, old, new, part, changed):
    before = pins(write(tmp_path / "a"))
    assert old in SUITE
    after = pins(write(tmp_path / "b", SUITE.replace(old, new)))
    for name in ("suite", "ontology", "prompts", "gold", "chunks"):
        same = getattr(before, name) == getattr(after, name)
        assert same == (name != part), name
    if changed is not None:
        mine, theirs = getattr(before, part), getattr(after, part)
        assert [case for case in mine if mine[case] != theirs[case]] == changed


def test_a_prompt_change_changes_that_variants_prompt_only(tmp_path):
    before = pins(write(tmp_path / "a"))
    after = pins(write(tmp_path / "b", prompt=PROMPT.replace("Extract", "List")))
    assert before.prompts["default"] == after.prompts["default"]
    assert before.prompts["tuned"] != after.prompts["tuned"]
    assert (before.gold, before.chunks, before.suite) == (after.gold, after.chunks, after.suite)


def test_a_review_state_is_gold_and_the_reviewer_is_not(tmp_path):
    base = pins(write(tmp_path / "a"))
    pending = pins(write(tmp_path / "b", SUITE.replace("  - id: c2\n", "  - id: c2\n    review: pending\n")))
    reviewer = pins(write(tmp_path / "c", SUITE.replace("  - id: c2\n", "  - id: c2\n    reviewer: someone\n")))
    assert pending.gold["c2"] != base.gold["c2"]
    assert reviewer.gold == base.gold


def test_only_the_cases_run_are_fingerprinted(tmp_path):
    suite = load_suite(write(tmp_path))
    pinned = input_fingerprints(suite, {"c2"}, {})
    assert set(pinned.gold) == set(pinned.chunks) == {"c2"}
    assert pinned.prompts == {}
    # the suite's own fingerprint still covers every case id
    assert pinned.suite == input_fingerprints(suite, {"c1", "c2"}, {}).suite


def test_every_case_field_is_input_gold_or_left_out_by_name() -> None:
    """A field added to GoldCase must be placed (a case's `example:` once changed its prompt unseen)."""
    from harness.fingerprint import GOLD_FIELDS, INPUT_FIELDS, LEFT_OUT_FIELDS
    from harness.model import GoldCase

    placed = [*INPUT_FIELDS, *GOLD_FIELDS, *LEFT_OUT_FIELDS]
    assert len(placed) == len(set(placed)) and sorted(placed) == sorted(GoldCase.model_fields)


def test_a_case_field_at_its_default_is_left_out_so_a_new_field_changes_no_fingerprint() -> None:
    from harness.fingerprint import fingerprint, input_fingerprint
    from harness.model import GoldCase

    case = GoldCase(id="a", text="Ana met Bo.")
    assert input_fingerprint(case) == fingerprint({"text": "Ana met Bo."})
    assert input_fingerprint(case.model_copy(update={"example": "Example: Oslo."})) != input_fingerprint(case)
