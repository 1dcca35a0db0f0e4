"""The judge as recorded calls: the shipped example replayed with no key, the recording path
through a real HTTP server on 127.0.0.1, missing cassettes, and the calibration gate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.judges.call import judge_cassette_path
from harness.judges.stage import judge_rows
from harness.run.schedule import RunOptions, check_outcome, run_suite
from harness.suites import load_suite
from tests.support.fake_server import FakeOpenAIServer, Script

TEST_KEY = "sk-" + "judge" * 5  # built here so the repository holds no credential-like text

REPO = Path(__file__).resolve().parents[2]
NAME = "judged-helpdesk"


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped example project (suite, prompt, chunks, both cassette folders)."""
    for part in (f"suites/{NAME}.yaml", "prompts/default", f"fixtures/chunks/{NAME}",
                 f"fixtures/cassettes/{NAME}", f"fixtures/judge-cassettes/{NAME}"):
        source, target = REPO / part, tmp_path / part
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return tmp_path / "suites" / f"{NAME}.yaml"


def _run(capsys: pytest.CaptureFixture[str], suite: Path, *more: str) -> tuple[int, str, dict, dict]:
    code = main(["run", str(suite), "--record-mode", "none", "--gate", "--reports", "reports", *more])
    out, err = capsys.readouterr()
    runs = sorted((suite.parent.parent / "reports" / NAME).glob("2*"))
    finished = runs and (runs[-1] / "summary.json").exists()
    summary = json.loads((runs[-1] / "summary.json").read_text()) if finished else {}
    gate = json.loads((runs[-1] / "gate.json").read_text()) if finished else {}
    return code, out + err, summary, gate


def test_the_example_replays_every_verdict_with_no_key(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, summary, gate = _run(capsys, example)
    assert code == 0, out
    judges = summary["judges"]
    assert judges["questions"] == 34 + 35 and judges["unreadable"] == 1 + 1  # (a) then (b)'s descriptions
    calibration = judges["calibration"]["match"]
    assert calibration["status"] == "calibrated" and calibration["questions"] == 11
    assert calibration["kappa"] == pytest.approx(48 / 59)  # computed by hand in test_calibration.py
    metrics = summary["variants"]["default"]["metrics"]["metrics"]
    assert metrics["entity_recall"]["micro"] == pytest.approx(3 / 10)  # the string figure, unchanged
    assert metrics["judged_entity_recall"]["micro"] == pytest.approx(9 / 10)
    assert metrics["judged_relationship_recall"]["micro"] == pytest.approx(5 / 7)
    assert gate["status"] == "pass"
    assert "kappa 0.81" in out
    report = next((example.parent.parent / "reports" / NAME).glob("2*/report.md")).read_text()
    assert "## Judged figures" in report and "| default | Judged entity recall | 90.0% | kappa 0.81" in report
    rows = next((example.parent.parent / "reports" / NAME).glob("2*/results.jsonl")).read_text().splitlines()
    assert all("judged" in json.loads(line)["score"] for line in rows)  # report and gate read the same rows
    assert all("faithful" in json.loads(line)["score"] for line in rows)


def test_faithfulness_figures_and_calibration_from_the_hand_written_verdicts(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(b) The hand-written judge (fixtures/responses/judged-helpdesk/judge.yaml) calls default's
    BACKUP SERVER and strong's INVOICE SERVICE unsupported and cannot be read on default's
    XINGHE TECHNOLOGY; every other description is supported."""
    code, out, summary, _ = _run(capsys, example)
    assert code == 0, out
    for variant in ("default", "strong"):
        metrics = summary["variants"][variant]["metrics"]["metrics"]
        assert metrics["judged_entity_faithfulness"]["micro"] == pytest.approx(9 / 10)  # 10 readable, 1 unsupported
        assert metrics["judged_relationship_faithfulness"]["micro"] == pytest.approx(1.0)
    assert summary["judges"]["figures"]["faithful"] == ["judged_entity_faithfulness", "judged_relationship_faithfulness"]
    calibration = summary["judges"]["calibration"]["faithful"]
    # 8 readable reviewed questions, 7 agreed (strong's INVOICE SERVICE not), 1 unreadable left out
    assert (calibration["questions"], calibration["unreadable"]) == (8, 1)
    assert calibration["kappa"] == pytest.approx(3 / 5)  # computed by hand in test_calibration.py
    assert calibration["per_class"]["unsupported"] == {"judge": 2, "human": 1, "both": 1}
    report = next((example.parent.parent / "reports" / NAME).glob("2*/report.md")).read_text()
    assert "| default | Judged entity faithfulness | 90.0% | kappa 0.60, accuracy 87.5% over 8 reviewed" in report


def test_a_missing_judge_cassette_exits_3_naming_it(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judge_cassette_path(example.parent.parent, NAME, "default", "rust-migration").unlink()
    code, out, _, _ = _run(capsys, example)
    assert code == 3
    assert "judge cassette missing for case 'rust-migration' of variant 'default'" in out


def test_a_changed_judge_prompt_makes_its_cassettes_stale(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = example.parent / "judge.yaml"
    prompt.write_text('name: mine\nversion: "2"\nuser: "{input_text}\\n{gold} or {predicted}? SAME or DIFFERENT"\n')
    data = yaml.safe_load(example.read_text())
    data["judge"]["prompt"] = "judge.yaml"
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, _, _ = _run(capsys, example)
    assert code == 3 and "judge cassette stale" in out


def test_a_judge_prompt_without_its_placeholders_is_one_line_exit_2(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (example.parent / "judge.yaml").write_text('name: mine\nuser: "{input_text}: is {gold} the same?"\n')
    data = yaml.safe_load(example.read_text())
    data["judge"]["prompt"] = "judge.yaml"
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, _, _ = _run(capsys, example)
    assert code == 2
    assert "judge.yaml: a judge prompt needs the placeholders {predicted}" in out and "Traceback" not in out


def test_a_suite_judge_prompt_is_linted_as_its_kind_at_load(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A judge prompt with a lint error (a placeholder the harness never fills) or of another kind
    stops the run before any call: one line naming the file, exit 2."""
    data = yaml.safe_load(example.read_text())
    data["judge"]["prompt"] = "judge.yaml"
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    (example.parent / "judge.yaml").write_text('name: mine\nuser: "{input_text}: is {gold} {predicted}? {hint}"\n')
    code, out, _, _ = _run(capsys, example)
    assert code == 2 and "Traceback" not in out and len(out.strip().splitlines()) == 1, out
    assert "judge.yaml:2: judge prompt: placeholder-unknown: {hint} is never supplied" in out
    (example.parent / "judge.yaml").write_text(
        'name: mine\nkind: harness.judge_pairwise\nuser: "{input_text}: is {gold} {predicted}? {first} {second}"\n')
    code, out, _, _ = _run(capsys, example)
    assert code == 2 and "judge.yaml: a prompt of kind harness.judge_pairwise, where the judge needs one of kind harness.judge_match" in out


def test_kappa_below_min_kappa_fails_the_gate_on_each_judged_figure(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = yaml.safe_load(example.read_text())
    data["judge"]["min_kappa"] = 0.9  # the judge's kappa is 48/59 = 0.81
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, _, gate = _run(capsys, example)
    assert code == 1
    failed = [r for r in gate["rules"] if r["rule"] == "calibration"]
    # every figure of every family: (a)'s kappa 48/59, (b)'s 3/5 and (d)'s 6/13 are all below 0.9
    assert {r["metric"]: r["value"] for r in failed} == pytest.approx({
        **{f"judged_{p}_{a}": 48 / 59 for p in ("entity", "relationship") for a in ("precision", "recall", "f1")},
        "judged_entity_faithfulness": 3 / 5, "judged_relationship_faithfulness": 3 / 5, "pairwise_win_rate": 6 / 13})
    assert all(r["status"] == "fail" for r in failed)


def test_each_family_fails_the_gate_only_below_min_kappa(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """min_kappa 0.5 lies between (d)'s kappa 6/13 and (b)'s 3/5: only the pairwise figure fails."""
    data = yaml.safe_load(example.read_text())
    data["judge"]["min_kappa"] = 0.5
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, _, gate = _run(capsys, example)
    assert code == 1
    assert [(r["variant"], r["metric"]) for r in gate["rules"] if r["rule"] == "calibration"] == [("strong", "pairwise_win_rate")]


def test_without_reviewer_verdicts_every_judged_figure_is_uncalibrated(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = yaml.safe_load(example.read_text())
    for case in data["cases"]:
        case.pop("judgements")
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, summary, gate = _run(capsys, example)
    for decision in ("match", "faithful"):
        assert summary["judges"]["calibration"][decision]["status"] == "uncalibrated"
        assert summary["judges"]["calibration"][decision]["kappa"] is None
    assert summary["judges"]["pairwise"]["calibration"]["status"] == "uncalibrated"
    assert "uncalibrated (no reviewer verdict" in out
    assert code == 1  # min_kappa is set and cannot be met
    failed = {r["metric"] for r in gate["rules"] if r["rule"] == "calibration" and "n/a (uncalibrated" in r["message"]}
    assert {"judged_entity_recall", "judged_entity_faithfulness", "pairwise_win_rate"} <= failed


def test_a_gold_side_files_judgements_calibrate_the_judge(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The verdicts a `harness annotate` side file holds (gold_file:) are the reviewers' verdicts."""
    data = yaml.safe_load(example.read_text())
    side = {"suite": NAME, "cases": []}
    for case in data["cases"]:
        moved = ("review", "annotated", "entities", "relationships", "judgements")
        side["cases"].append({"id": case["id"], **{key: case.pop(key) for key in moved}})
    (example.parent / f"{NAME}.gold.yaml").write_text(yaml.safe_dump(side, allow_unicode=True))
    data["gold_file"] = f"{NAME}.gold.yaml"
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, summary, _ = _run(capsys, example)
    assert code == 0, out
    assert summary["judges"]["calibration"]["match"]["kappa"] == pytest.approx(48 / 59)
    assert summary["judges"]["calibration"]["faithful"]["kappa"] == pytest.approx(3 / 5)
    assert summary["judges"]["pairwise"]["calibration"]["kappa"] == pytest.approx(6 / 13)


def test_a_bad_reviewer_verdict_is_one_line_exit_2(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = yaml.safe_load(example.read_text())
    data["cases"][0]["judgements"]["entity: 张伟 = ZHANG WEI"] = "maybe"
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, _, _ = _run(capsys, example)
    assert code == 2 and f"{NAME}.yaml" in out and "judgements" in out and "Traceback" not in out


def test_recording_goes_through_a_real_http_server_then_replays_the_same(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = example.parent.parent
    shutil.rmtree(root / "fixtures" / "judge-cassettes")
    suite = load_suite(example)
    outcome = run_suite(suite, RunOptions(reports_dir=root / "r1", judge=False))
    check_outcome(outcome)
    # the judge's endpoint: SAME only when the romanized name is the gold one's translation
    same = {("系统管理员", "SYSTEM ADMIN"), ("张伟", "ZHANG WEI"), ("Rust", "RUST LANGUAGE")}

    def answer(body: dict) -> str:
        user = body["messages"][-1]["content"]
        if "First answer:" in user:  # pairwise: a judge that always prefers what it sees first
            return "FIRST"
        if "Statement: " in user:  # faithfulness: every description but the backup server's is supported
            return "UNSUPPORTED" if "BACKUP SERVER:" in user else "SUPPORTED"
        gold = user.split("Gold entity: ")[1].split("\n")[0]
        pred = user.split("Predicted entity: ")[1].split("\n")[0]
        return "SAME" if (gold, pred) in same else "DIFFERENT"

    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    with FakeOpenAIServer(answer) as server:
        recorded = judge_rows(suite, outcome.results, "once", base_url=server.base_url)
        # 8 pairwise: 2 cases x 2 orders x 2 repeats; 35 descriptions, one cassette per (variant, case)
        assert server.calls == 34 + 35 + 8 and recorded == 2 + 4 + 2
    live = [[(q.id, q.verdict) for q in r.score.judged.questions] for r in outcome.results]
    assert sum(v == "same" for row in live for _, v in row) == 3
    cassette = judge_cassette_path(root, NAME, "default", "mail-outage").read_text()
    assert TEST_KEY not in cassette

    monkeypatch.delenv("OPENAI_API_KEY")
    again = run_suite(suite, RunOptions(reports_dir=root / "r2"))  # judged in the run: no key, no server
    assert [[(q.id, q.verdict) for q in r.score.judged.questions] for r in again.results] == live
    faithful = [[(q.id, q.verdict) for q in r.score.faithful.entities] for r in outcome.results]
    assert sum(v == "unsupported" for row in faithful for _, v in row) == 1
    assert [[(q.id, q.verdict) for q in r.score.faithful.entities] for r in again.results] == faithful


def test_pairwise_is_judged_in_both_orders_and_replayed(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, summary, _ = _run(capsys, example)
    assert code == 0, out
    p = summary["judges"]["pairwise"]
    asked = [(v["case"], v["repeat"], v["order"]) for v in p["verdicts"]]
    assert asked == [(c, k, o) for c in ("mail-outage", "rust-migration") for k in (0, 1) for o in ("ab", "ba")]
    # the hand-written answers (fixtures/responses/judged-helpdesk/judge.yaml): mail-outage prefers
    # strong in both orders; rust-migration strong then default (a flip), then a tie and an unreadable one
    assert [v["preferred"] for v in p["verdicts"]] == ["strong"] * 4 + ["strong", "default", "tie", None]
    assert (p["b_wins"], p["a_wins"], p["ties"], p["unreadable"]) == (5, 1, 1, 1)
    assert p["b_win_rate"] == pytest.approx(5.5 / 7)
    assert p["interval"] == pytest.approx([0.4200, 0.9489], abs=5e-4)  # Wilson, computed by hand
    assert (p["order_pairs"], p["order_flips"]) == (3, 1)
    assert p["first_position_rate"] == pytest.approx(2 / 6)
    # reviewers prefer strong on mail-outage and call rust-migration a tie: each readable verdict is
    # compared with its case's (po 5/7, pe 23/49: kappa 6/13, computed by hand in test_calibration.py)
    assert p["calibration"]["status"] == "calibrated" and p["calibration"]["kappa"] == pytest.approx(6 / 13)
    assert (p["calibration"]["questions"], p["calibration"]["unreadable"]) == (7, 1)
    assert "strong over default: win rate 78.6% [95% CI 42.0%-94.9%]" in out and "order flips 1 of 3" in out


def test_a_position_biased_judge_shows_as_order_flips(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = example.parent.parent
    shutil.rmtree(root / "fixtures" / "judge-cassettes")
    suite = load_suite(example)
    outcome = run_suite(suite, RunOptions(reports_dir=root / "r1", judge=False))
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    with FakeOpenAIServer(lambda body: "FIRST" if "First answer:" in body["messages"][-1]["content"] else "DIFFERENT") as server:
        judge_rows(suite, outcome.results, "once", outcome.run_dir / "results.jsonl", base_url=server.base_url)
    from harness.judges.summary import judges_summary

    p = judges_summary(suite, outcome.results, outcome.run_dir).pairwise
    assert p is not None
    assert (p.b_wins, p.a_wins, p.ties) == (4, 4, 0) and p.b_win_rate == 0.5
    assert (p.order_pairs, p.order_flips, p.first_position_rate) == (4, 4, 1.0)


def test_pairwise_naming_an_unknown_variant_is_one_line_exit_2(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = yaml.safe_load(example.read_text())
    data["judge"]["pairwise"]["b"] = "nope"
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, _, _ = _run(capsys, example)
    assert code == 2 and "judge.pairwise.b: no variant named 'nope' (have default, strong)" in out


def test_merged_shards_carry_the_judging_of_the_unsharded_run(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each shard is judged in its run (run_suite); the merge joins their verdicts, pairwise ones
    included, into the unsharded run's judge block, without judging again."""
    reports = example.parent.parent / "reports"
    code, out, whole, _ = _run(capsys, example)
    assert code == 0, out
    shards = []
    for shard in ("1/2", "2/2"):
        assert main(["run", str(example), "--record-mode", "none", "--shard", shard, "--reports", "shards",
                     "--run-id", shard.replace("/", "-")]) == 0
        shards.append(str(example.parent.parent / "shards" / NAME / shard.replace("/", "-")))
    capsys.readouterr()
    assert main(["merge", *shards, "--reports", str(reports / "merged")]) == 0
    (merged,) = (reports / "merged" / NAME).iterdir()
    summary = json.loads((merged / "summary.json").read_text())
    assert summary["judges"] == whole["judges"] and summary["judges"]["pairwise"]["verdicts"]
    assert ([v["case"] for v in summary["judges"]["pairwise"]["verdicts"]]
            == [v["case"] for v in whole["judges"]["pairwise"]["verdicts"]])


def test_a_pairwise_reviewer_verdict_must_name_a_compared_variant_or_tie(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = yaml.safe_load(example.read_text())
    data["cases"][0]["judgements"]["pairwise: default vs strong"] = "neither"
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, _, _ = _run(capsys, example)
    assert code == 2 and "'neither' is not one of default, strong, tie" in out and "Traceback" not in out


def test_a_faithfulness_reviewer_verdict_takes_its_own_classes(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = yaml.safe_load(example.read_text())
    data["cases"][0]["judgements"]["entity description: ZHANG WEI"] = "same"
    example.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, out, _, _ = _run(capsys, example)
    assert code == 2 and "judgements" in out and "not one of supported, unsupported" in out and "Traceback" not in out


def test_a_missing_faithfulness_cassette_exits_3_naming_it(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.judges.stage import faithful_cassette_path

    faithful_cassette_path(example.parent.parent, NAME, "strong", "mail-outage").unlink()
    code, out, _, _ = _run(capsys, example)
    assert code == 3 and "judge cassette missing for the descriptions of case 'mail-outage' of variant 'strong'" in out

