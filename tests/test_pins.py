"""Two sides' input fingerprints compared (harness/pins.py): what changed, what is unknown, and
the sentences the gate and `harness compare` say."""

from __future__ import annotations

from harness.artifacts import InputFingerprints
from harness.fingerprint import METHOD
from harness.pins import allowed_warning, check_inputs, gold_refusal, inputs_line


def side(**changes) -> InputFingerprints:
    values = dict(method=METHOD, suite="s1", ontology="o1", prompts={"default": "p1", "tuned": "p2"},
                  gold={f"c{i}": f"g{i}" for i in range(8)}, chunks={f"c{i}": f"t{i}" for i in range(8)})
    values.update(changes)
    return InputFingerprints(**values)


def test_the_same_inputs_are_same_in_every_part():
    check = check_inputs(side(), side(), against="baseline")
    assert [getattr(check, p).status for p in ("suite", "ontology", "prompts", "gold", "chunks")] == ["same"] * 5
    assert check.gold.compared == 8 and not check.gold_changed
    assert inputs_line(check) == "inputs against the baseline: unchanged: suite, ontology, prompts, gold, chunks"


def test_changed_gold_names_the_cases_in_the_runs_order_over_the_cases_both_have():
    base = side()
    run = side(gold={**{f"c{i}": f"g{i}" for i in range(8) if i != 3}, "c3": "other", "c9": "new"})
    run.gold = {"c5": "changed", **{k: v for k, v in run.gold.items() if k != "c5"}}
    check = check_inputs(base, run, against="baseline")
    assert check.gold.status == "changed"
    assert check.gold.changed == ["c5", "c3"]  # c9 is the run's alone: not a change (coverage says it)
    assert check.gold.compared == 8
    assert check.chunks.status == "same"
    line = inputs_line(check)
    assert line.startswith("inputs against the baseline: gold changed for 2 of 8 case(s) (c5, c3);")
    assert "unchanged: suite, ontology, prompts, chunks" in line


def test_many_changes_are_named_a_few_and_counted():
    run = side(chunks={f"c{i}": "x" for i in range(8)})
    line = inputs_line(check_inputs(side(), run, against="baseline"))
    assert "chunks changed for 8 of 8 case(s) (c0, c1, c2, c3, c4 and 3 more)" in line


def test_prompts_ontology_and_suite_changes_are_each_said():
    run = side(prompts={"default": "p1", "tuned": "p9"}, ontology="o2", suite="s2")
    check = check_inputs(side(), run, against="baseline")
    assert (check.prompts.status, check.prompts.changed) == ("changed", ["tuned"])
    assert check.ontology.status == check.suite.status == "changed"
    assert not check.gold_changed
    line = inputs_line(check)
    assert "prompt changed: tuned" in line and "ontology changed" in line and "suite settings changed" in line


def test_prompts_of_two_variants_are_compared_as_a_pair():
    check = check_inputs(side(), side(), against="run A", prompt_pairs=[("default", "tuned")])
    assert (check.prompts.status, check.prompts.changed) == ("changed", ["default..tuned"])


def test_prompts_known_on_one_side_only_are_unknown():
    check = check_inputs(side(prompts={}), side(), against="baseline")
    assert check.prompts.status == "unknown"
    assert "unknown: prompts" in inputs_line(check)


def test_a_side_without_fingerprints_is_unknown_not_unchanged():
    for a, b, who in ((None, side(), ["baseline"]), (side(), None, ["run"]), (None, None, ["baseline", "run"])):
        check = check_inputs(a, b, against="baseline")
        assert check.unknown == who
        assert {getattr(check, p).status for p in ("suite", "ontology", "prompts", "gold", "chunks")} == {"unknown"}
        assert not check.gold_changed  # unknown is not refused
        assert "unknown" in inputs_line(check) and "unchanged" not in inputs_line(check)


def test_fingerprints_of_another_recipe_are_unknown():
    check = check_inputs(side(method="sha1/other"), side(), against="baseline")
    assert check.unknown == ["baseline"] and not check.gold_changed


def test_the_refusal_and_the_warning_name_the_cases():
    check = check_inputs(side(), side(gold={"c0": "x", "c1": "g1"}), against="baseline")
    refusal = gold_refusal(check, "reports/baselines/s.json")
    assert refusal == ("reports/baselines/s.json: gold changed for 1 of 2 case(s) (c0) since the baseline was "
                       "scored: no regression verdict across changed gold; accept a new baseline "
                       "(`harness baseline update RUN`) or pass --allow-changed-gold")
    assert "\n" not in refusal
    assert allowed_warning(check).startswith("warning: verdict given across changed gold (--allow-changed-gold): "
                                             "gold changed for 1 of 2 case(s) (c0)")
    other = check_inputs(side(), side(gold={"c0": "x"}), against="run A")
    assert gold_refusal(other, "B", verdict="comparison").endswith(
        "no comparison across changed gold; pass --allow-changed-gold to compare anyway")
