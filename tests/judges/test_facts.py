"""(c) Summary facts and report findings judged only where the stems are unsure: the band, the
counts from hand-written verdicts, and the shipped examples replayed with no key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.judges.facts import UNSURE_HIGH, UNSURE_LOW, judged_report, judged_summary, report_questions, summary_questions, unsure
from harness.metrics import get as get_metric
from harness.model import CaseScore, CommunityReport, GoldCase, ReportFinding
from harness.scoring.case_score import score_case
from harness.model import ExtractedGraph

REPO = Path(__file__).resolve().parents[2]

CASE = GoldCase(id="c", text="", entity_name="HARCASTLE BANK", descriptions=[
    "Bank whose mobile banking went down during the outage",
    "Bank running a portfolio optimisation pilot with Qubitra",
])
SUMMARY = ("Harcastle Bank is a lender whose mobile app failed during the outage. "
           "It runs an optimisation pilot. It plans to leave for another cloud provider.")


def test_the_unsure_band_is_a_quarter_either_side_of_the_stem_line() -> None:
    assert (UNSURE_LOW, UNSURE_HIGH) == (0.25, 0.75)
    assert [unsure(v) for v in (0.0, 0.24, 0.25, 0.5, 0.74, 0.75, 1.0)] == [False, False, True, True, True, False, False]


def test_only_unsure_summary_facts_are_asked() -> None:
    asked = summary_questions(CASE, SUMMARY, "English")
    # content words, stemmed, the entity's name left out: the descriptions' {bank, mobil, outag, went}
    # and {optimis, pilot, portfolio, qubitra, run}; the summary's first fact {lender, mobil, app,
    # fail, outag}. Shares: 2/4 and 3/5 of the descriptions' in the summary, 2/5 of the first
    # summary fact's in the descriptions (unsure); the pilot 3/3 and the cloud 0/5 (sure)
    assert [(qid, share) for qid, _, _, share in asked] == [
        ("summary kept: Bank whose mobile banking went down during the outage", 0.5),
        ("summary kept: Bank running a portfolio optimisation pilot with Qubitra", 0.6),
        ("summary added: Harcastle Bank is a lender whose mobile app failed during the outage.", 0.4),
    ]
    assert asked[0][2] == SUMMARY and asked[2][2] == "\n".join(CASE.descriptions)  # each against its own text


def _figures(facts_value: object) -> dict[str, float | None]:
    score: CaseScore = score_case(GoldCase(id="c", text="t"), ExtractedGraph())
    score.judged_facts = facts_value  # type: ignore[assignment]
    return {name: get_metric(name).value(score) for name in ("judged_facts_kept", "judged_facts_added", "judged_findings_supported")}


def test_readable_verdicts_replace_the_stem_calls_and_unreadable_ones_leave_them() -> None:
    asked = summary_questions(CASE, SUMMARY, "English")
    # the judge: the outage fact kept, the pilot not; the lender fact unreadable, so the stems'
    # call (2/5 < 1/2: added) stands; the pilot fact (sure, supported) and the cloud fact (sure, added)
    found = judged_summary(CASE, SUMMARY, "English", asked, ["supported", "unsupported", None])
    assert (found.facts_kept, found.description_facts, found.facts_added, found.summary_facts) == (1, 2, 2, 3)
    assert [q.verdict for q in found.questions] == ["supported", "unsupported", None]
    assert _figures(found) == {"judged_facts_kept": 0.5, "judged_facts_added": pytest.approx(2 / 3),
                               "judged_findings_supported": None}


def test_report_findings_judged_where_unsure() -> None:
    context = "Pennant Mobile was fined 400 million dollars and must allow other payment providers within ninety days."
    report = CommunityReport(findings=[
        ReportFinding(summary="Pennant Mobile was fined 400 million dollars"),
        ReportFinding(summary="Rival payment providers", explanation="allowed within three months"),
        ReportFinding(summary="A record fine", explanation="never seen before in the country"),
    ])
    asked = report_questions(report, context, "English")
    assert [qid for qid, *_ in asked] == ["report finding: Rival payment providers"]  # 3 of 6 words: unsure
    found = judged_report(report, context, "English", asked, ["unsupported"])
    assert (found.findings_supported, found.findings) == (1, 3)  # the record fine: sure, unsupported by the stems
    assert _figures(found)["judged_findings_supported"] == pytest.approx(1 / 3)


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, chunks in (("judged-summaries", None), ("judged-reports", "podcast-reports")):
        for part in (f"suites/{name}.yaml", f"fixtures/cassettes/{name}", f"fixtures/judge-cassettes/{name}",
                     *((f"fixtures/chunks/{chunks}",) if chunks else ())):
            source, target = REPO / part, tmp_path / part
            target.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CI"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _run(root: Path, name: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict, dict]:
    code = main(["run", f"suites/{name}.yaml", "--record-mode", "none", "--gate", "--reports", "reports"])
    out = "".join(capsys.readouterr())
    (run,) = (root / "reports" / name).glob("2*")
    return code, out, json.loads((run / "summary.json").read_text()), json.loads((run / "gate.json").read_text())


def test_the_shipped_summary_example_replays_its_verdicts_with_no_key(shipped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, summary, _ = _run(shipped, "judged-summaries", capsys)
    assert code == 0, out
    metrics = summary["variants"]["default"]["metrics"]["metrics"]
    # 10 summary facts: the stems call 1 added; the judge adds Harcastle's credits and both of Dana's
    assert metrics["facts_added"]["micro"] == pytest.approx(1 / 10)
    assert metrics["judged_facts_added"]["micro"] == pytest.approx(4 / 10)
    assert metrics["judged_facts_kept"]["micro"] == pytest.approx(12 / 12)
    calibration = summary["judges"]["calibration"]["facts"]
    # 5 reviewed, 4 agreed; judge supported 2 unsupported 3, reviewer 3 and 2: pe 12/25, kappa 8/13
    assert calibration["questions"] == 5 and calibration["kappa"] == pytest.approx(8 / 13)
    assert "judged facts added 40.0% — judge kappa 0.62" in out


def test_the_shipped_report_example_replays_its_verdicts_with_no_key(shipped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, summary, _ = _run(shipped, "judged-reports", capsys)
    assert code == 0, out
    assert summary["variants"]["default"]["metrics"]["metrics"]["judged_findings_supported"]["micro"] == pytest.approx(9 / 10)
    calibration = summary["judges"]["calibration"]["facts"]
    assert (calibration["questions"], calibration["unreadable"], calibration["kappa"]) == (2, 1, pytest.approx(1.0))


def test_facts_below_min_kappa_fail_the_gate_on_their_figures(shipped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shipped / "suites" / "judged-summaries.yaml"
    data = yaml.safe_load(path.read_text())
    data["judge"]["min_kappa"] = 0.7  # the judge's kappa is 8/13 = 0.62
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, _, _, gate = _run(shipped, "judged-summaries", capsys)
    assert code == 1
    assert {r["metric"] for r in gate["rules"] if r["rule"] == "calibration"} == {"judged_facts_kept", "judged_facts_added"}


def test_facts_on_an_extraction_suite_is_one_line_exit_2(shipped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shipped / "suites" / "judged-reports.yaml"
    data = yaml.safe_load(path.read_text())
    data["kind"] = "extract_graph"
    data["cases"] = [{"id": "c", "text": "Some text."}]
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    code = main(["run", str(path), "--record-mode", "none", "--reports", "reports"])
    out = "".join(capsys.readouterr())
    assert code == 2 and "judge.facts: judges the facts of summarize_descriptions and community_report suites" in out
