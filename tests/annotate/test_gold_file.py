"""The gold side file: loading through `gold_file:`, its errors, and pending gold being no gold."""

from __future__ import annotations

import pytest

from harness.errors import InputError
from harness.model import CaseResult, Entity, ExtractedGraph, GoldCase, GoldEntity
from harness.scoring import score_case
from harness.suites import load_suite
from harness.summary import pending_review
from tests.support.pooling import pooled

SUITE = """\
name: tiny
# a comment the user wrote
variants: {v: {prompt: "builtin:graphrag.extract_graph"}}
cases:
  - id: one
    text: "Ana Ruiz met Bob."
    entities: [{name: Ana Ruiz}]
  - id: two
    text: "Lowbridge is a town."
gold_file: tiny.gold.yaml
"""

GOLD = """\
cases:
  - id: two
    review: pending
    entities:
      - {name: Lowbridge, type: geo, found_by: [v], grounded: true, type_votes: {geo: 1}}
"""


def _write(tmp_path, gold: str = GOLD):
    (tmp_path / "tiny.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "tiny.gold.yaml").write_text(gold, encoding="utf-8")
    return tmp_path / "tiny.yaml"


def test_the_side_file_gives_its_cases_their_gold_and_review_state(tmp_path):
    suite = load_suite(_write(tmp_path))
    one, two = suite.cases
    assert [e.name for e in one.entities] == ["Ana Ruiz"] and one.review is None
    assert [e.name for e in two.entities] == ["Lowbridge"] and two.review == "pending"
    assert two.entities[0] == GoldEntity(name="Lowbridge", type="geo")  # proposal keys are not gold


def test_pending_gold_is_no_gold():
    case = GoldCase(id="c", text="Lowbridge", entities=[GoldEntity(name="Lowbridge")], review="pending")
    assert not case.has_entity_gold and not case.has_relationship_gold
    score = score_case(case, ExtractedGraph(entities=[Entity(name="Lowbridge")]))
    # the model found exactly the pending proposal: were it gold, recall would be 1/1; pending: n/a
    assert score.entities.recall is None and not score.entities.annotated
    assert pooled([score]).annotated == {"entities": 0, "relationships": 0}
    assert pooled([score]).get("entity_recall") is None
    done = case.model_copy(update={"review": "done"})
    assert score_case(done, ExtractedGraph(entities=[Entity(name="Lowbridge")])).entities.recall == 1.0


def test_the_summary_counts_pending_cases_of_the_run_only(tmp_path):
    suite = load_suite(_write(tmp_path))
    rows = [CaseResult(suite="tiny", variant="v", case_id=i) for i in ("one", "two")]
    assert pending_review(suite.cases, rows) == 1
    assert pending_review(suite.cases, rows[:1]) is None  # case two not in this run: nothing pending


@pytest.mark.parametrize(("gold", "message"), [
    ("cases:\n  - id: two\n    entities: [{name: A}]\n    relationships: [{source: A, target: B}]\n",
     "tiny.gold.yaml:4: cases[0].relationships[0].target: 'B' is not an entity of case 'two'"),
    ("cases:\n  - id: three\n", "tiny.gold.yaml: case 'three' is not a case of suite 'tiny'"),
    ("cases:\n  - id: two\n    review: maybe\n", "tiny.gold.yaml:3: cases[0].review: Input should be 'pending' or 'done'"),
    ("cases:\n  - id: two\n    entities: [{name: A, colour: red}]\n", "tiny.gold.yaml:3: cases[0].entities[0].colour: unknown key 'colour'"),
    ("- just a list\n", "tiny.gold.yaml: a gold file is a mapping"),
    ("suite: other\ncases:\n  - id: two\n", "tiny.gold.yaml: gold of suite 'other', refused by suite 'tiny'"),
])
def test_a_bad_side_file_is_one_line_naming_its_file_and_line(tmp_path, gold, message):
    with pytest.raises(InputError) as info:
        load_suite(_write(tmp_path, gold))
    assert message in info.value.message and "\n" not in info.value.message


def test_the_suites_own_gold_is_validated_even_where_the_side_file_gives_the_gold(tmp_path):
    # case two's gold in the suite names an endpoint that is no entity; the side file gives case two
    # other gold, which used to hide the suite's broken gold until the side file was gone
    path = _write(tmp_path)
    path.write_text(SUITE.replace('    text: "Lowbridge is a town."\n', '    text: "Lowbridge is a town."\n'
                                  "    entities: [{name: Lowbridge}]\n"
                                  "    relationships: [{source: Lowbridge, target: Highbridge}]\n"), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert info.value.message.endswith(
        "tiny.yaml:11: cases[1].relationships[0].target: 'Highbridge' is not an entity of case 'two'")


def test_a_duplicate_case_id_is_reported_before_a_side_file_error(tmp_path):
    # both are wrong; the duplicate first: which case a side file's gold belongs to depends on the
    # suite's ids (here the side file's error is about a case the duplicate may have meant)
    path = _write(tmp_path, "cases:\n  - id: three\n")
    path.write_text(SUITE.replace("  - id: two\n", "  - id: one\n"), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert info.value.message.endswith("tiny.yaml:8: cases[1].id: duplicate case id 'one' (first at case 0)")
    (tmp_path / "tiny.gold.yaml").write_text("cases:\n  - id: one\n    review: maybe\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert "duplicate case id 'one'" in info.value.message


def test_a_missing_side_file_is_named_at_the_suite_line(tmp_path):
    path = _write(tmp_path)
    (tmp_path / "tiny.gold.yaml").unlink()
    with pytest.raises(InputError, match=r"tiny.yaml:10: gold_file: gold file not found: tiny.gold.yaml"):
        load_suite(path)


def test_review_fields_written_in_the_suite_itself_are_read_too(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(SUITE.replace("gold_file: tiny.gold.yaml\n", "").replace(
        "    entities: [{name: Ana Ruiz}]\n",
        "    entities: [{name: Ana Ruiz}]\n    review: pending\n    reviewer: Rosa\n    reviewed: '2026-11-24'\n"),
        encoding="utf-8")
    one = load_suite(path).cases[0]
    assert (one.review, one.reviewer, one.reviewed, one.has_entity_gold) == ("pending", "Rosa", "2026-11-24", False)


def test_the_written_side_file_reads_back_equal(tmp_path):
    from harness.annotate.gold_file import (GoldFileCase, GoldSideFile, ProposedEntity, ProposedFrom,
                                            ProposedRelationship, read_gold_file, write_gold_file)

    gold = GoldSideFile(suite="tiny", proposed_from=ProposedFrom(run="reports/tiny/r1", variants=["v"]), cases=[
        GoldFileCase(id="two", review="pending", entities=[
            ProposedEntity(name="Lowbridge", type="location", aliases=["Low: bridge # x"], found_by=["v"],
                           grounded=True, type_votes={"location": 1}),
            ProposedEntity(name="yes", found_by=["v"], grounded=False)],
            relationships=[ProposedRelationship(source="Lowbridge", target="yes", type="near", found_by=["v"])]),
        GoldFileCase(id="one", review="done", annotated=True, reviewer="Ana", reviewed="2026-11-24")])
    target = tmp_path / "tiny.gold.yaml"
    write_gold_file(target, gold, header="# a header\n")
    assert target.read_text(encoding="utf-8").startswith("# a header\nsuite: tiny\n")
    assert read_gold_file(target) == gold


@pytest.mark.parametrize("written, kept", [("2026-01-31", "2026-01-31"), ("'2026-01-31'", "2026-01-31"),
                                           ("2026-01-31T08:30:00Z", "2026-01-31")])
def test_a_review_date_is_a_day_of_the_calendar(tmp_path, written, kept) -> None:
    """Issue 28 item 22: an unquoted date (YAML reads it as a date) was refused as "not a string"."""
    from harness.annotate.gold_file import read_gold_file

    path = tmp_path / "reviewed.yaml"
    path.write_text(f"reviewed: {written}\ncases:\n  - id: one\n    reviewed: {written}\n", encoding="utf-8")
    gold = read_gold_file(path)
    assert gold.reviewed == kept and gold.cases[0].reviewed == kept


@pytest.mark.parametrize("written", ["'2026-99-99'", "'2026-02-30'", "'2026-13-01'", "last tuesday", "'20260131'",
                                     "'2026-1-5'"])
@pytest.mark.parametrize("where", ["file", "case"])
def test_a_review_date_that_is_no_day_is_refused_naming_its_line(tmp_path, written, where) -> None:
    """Issue 28 item 22: `reviewed: 2026-99-99` (as the review page writes it, quoted) was accepted."""
    from harness.annotate.gold_file import read_gold_file
    from harness.errors import InputError

    path = tmp_path / "reviewed.yaml"
    top, case = (f"reviewed: {written}\n", "") if where == "file" else ("", f"    reviewed: {written}\n")
    path.write_text(f"{top}cases:\n  - id: one\n{case}", encoding="utf-8")
    line = 1 if where == "file" else 3
    with pytest.raises(InputError, match=rf"reviewed\.yaml:{line}: (cases\[0\]\.)?reviewed: '.*' is not a date"):
        read_gold_file(path)
