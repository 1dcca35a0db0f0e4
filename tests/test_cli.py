"""The `harness` command: exit codes and one-line errors, on a tiny project and the shipped suites."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.cli import main
from .support.fake_server import FakeOpenAIServer
from harness.suites import load_suite

from .conftest import REPO, script_for


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def recorded(project: Path, api_key, capsys) -> Path:
    suite = load_suite(project)
    with FakeOpenAIServer(script_for(suite)) as srv:
        code, _, err = run_cli(capsys, "record", str(project), "--base-url", srv.base_url)
    assert code == 0, err
    return project


def test_run_replays_and_prints_a_table_per_suite(recorded, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    code, out, err = run_cli(capsys, "run", str(recorded))
    assert code == 0, err
    assert "towns — baseline: default" in out
    assert "tuned" in out and "×" in out  # ratio to the baseline
    run_dir = next((recorded.parent.parent / "reports" / "towns").iterdir())
    assert {"results.jsonl", "summary.json", "report.md"} <= {p.name for p in run_dir.iterdir()}


def test_deleted_cassette_exits_3_naming_the_case(recorded, capsys):
    (recorded.parent.parent / "fixtures" / "cassettes" / "towns" / "tuned" / "flood.json").unlink()
    code, out, err = run_cli(capsys, "run", str(recorded))
    assert code == 3
    assert "case 'flood' of variant 'tuned'" in err
    assert "harness record" in err and "--case flood" in err
    assert len(err.strip().splitlines()) == 1


def test_ci_never_records(recorded, capsys, monkeypatch):
    monkeypatch.setenv("CI", "true")
    (recorded.parent.parent / "fixtures" / "cassettes" / "towns" / "tuned" / "flood.json").unlink()
    code, _, err = run_cli(capsys, "record", str(recorded), "--base-url", "http://127.0.0.1:9/v1")
    assert code == 3, err


def suite_text(project: Path) -> str:
    return project.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("edit", "expected", "on_line"),
    [
        (lambda t: t.replace("name: towns", "name: towns\n  bad: [", 1), "YAML error", None),
        (lambda t: t.replace("description:", "descripton:", 1), "unknown key 'descripton'", "descripton"),
        (lambda t: t.replace("- id: flood", "- id: mayor", 1), "duplicate case id 'mayor'", "id: mayor"),
        (lambda t: t.replace("target: Millbrook", "target: Millbrok", 1), "'Millbrok' is not an entity of case 'flood'", "Millbrok"),
        (lambda t: t.replace("baseline: default", "baseline: nothing", 1), "baseline 'nothing' is not one of the variants", "nothing"),
        (lambda t: t.replace("prompts/tuned.txt", "prompts/missing.txt", 1), "prompt file not found", "missing.txt"),
    ],
)
def test_malformed_suite_exits_2_with_file_and_line(project, capsys, edit, expected, on_line):
    project.write_text(edit(suite_text(project)), encoding="utf-8")
    code, out, err = run_cli(capsys, "run", str(project))
    assert code == 2
    assert expected in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    match = re.search(r"towns\.yaml:(\d+): ", err)
    assert match, f"no line number in {err!r}"
    if on_line:  # the line named really holds the problem
        assert on_line in suite_text(project).splitlines()[int(match.group(1)) - 1]


def test_missing_chunk_file_is_named(project, capsys):
    import yaml

    data = yaml.safe_load(suite_text(project))
    data["cases"][1].pop("text")
    data["cases"][1]["chunk"] = "fixtures/chunks/none.txt"
    project.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    code, _, err = run_cli(capsys, "run", str(project))
    assert code == 2 and "chunk file not found: fixtures/chunks/none.txt" in err


def test_parse_exit_codes(tmp_path, capsys):
    clean = tmp_path / "clean.txt"
    clean.write_text('("entity"<|>A<|>person<|>d)##("relationship"<|>A<|>B<|>r<|>5)\n<|COMPLETE|>')
    code, out, _ = run_cli(capsys, "parse", str(clean), "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"format", "entities", "relationships", "claims", "report", "format_report"}
    assert data["relationships"][0]["strength"] == 5
    broken = tmp_path / "broken.txt"
    broken.write_text('("entity"<|>A<|>person<|>d)')
    assert run_cli(capsys, "parse", str(broken), "--json")[0] == 1
    assert run_cli(capsys, "parse", str(tmp_path / "absent.txt"))[0] == 2
    assert run_cli(capsys, "parse", str(clean), "--format", "yaml")[0] == 2


def test_parse_jsonl_carries_ids(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "output": '("entity"<|>A<|>person<|>d)\n<|COMPLETE|>'}) + "\n"
                    + json.dumps({"id": "b", "output": "Sorry, I can't help with that."}) + "\n")
    code, out, _ = run_cli(capsys, "parse", "--jsonl", str(rows), "--json")
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in results] == ["a", "b"]
    assert code == 1  # the refusal is a format error


def test_score_json_contract(tmp_path, capsys):
    gold = tmp_path / "gold.yaml"
    gold.write_text(
        "id: c1\ntext: Ana Ruiz runs Lowbridge.\nentities:\n  - {name: Ana Ruiz, type: person}\n"
        "  - {name: Lowbridge, type: geo}\nrelationships:\n  - {source: Ana Ruiz, target: Lowbridge}\n"
    )
    pred = tmp_path / "pred.txt"
    pred.write_text('("entity"<|>ANA RUIZ<|>person<|>x)##("entity"<|>ANA RUIZ<|>person<|>dup)##'
                    '("entity"<|>LOWBRIDGE<|>geo<|>y)##("relationship"<|>LOWBRIDGE<|>ANA RUIZ<|>runs<|>7)\n<|COMPLETE|>')
    code, out, err = run_cli(capsys, "score", "--gold", str(gold), "--pred", str(pred), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data["entities"]) >= {"precision", "recall", "f1", "strict_f1", "type_accuracy", "tp", "gold", "pred",
                                     "exact", "fuzzy", "missed", "unmatched"}
    assert set(data["relationships"]) >= {"precision", "recall", "f1", "directed_recall", "endpoint_recall", "tp",
                                          "gold", "pred", "missed"}
    assert data["entities"]["pred"] == 2  # after de-duplication
    assert data["entities"]["recall"] == 1.0 and data["relationships"]["recall"] == 1.0
    assert data["relationships"]["directed_recall"] == 0.0  # the edge came reversed


def test_score_of_a_case_without_relationship_gold_prints_n_a(tmp_path, capsys):
    """Issue 12.1: undefined metrics are "n/a" in `harness score`, not 1.000 (and not a traceback)."""
    gold = tmp_path / "gold.yaml"
    gold.write_text("id: c1\ntext: Ana Ruiz runs Lowbridge.\nentities:\n  - {name: Ana Ruiz, type: person}\n")
    pred = tmp_path / "pred.txt"
    pred.write_text('("entity"<|>ANA RUIZ<|>person<|>x)##("relationship"<|>LOWBRIDGE<|>ANA RUIZ<|>runs<|>7)\n<|COMPLETE|>')
    code, out, err = run_cli(capsys, "score", "--gold", str(gold), "--pred", str(pred))
    assert code == 0, err
    assert "entities:      P 1.000  R 1.000  F1 1.000" in out
    assert "relationships: P n/a  R n/a  F1 n/a" in out
    code, out, _ = run_cli(capsys, "score", "--gold", str(gold), "--pred", str(pred), "--json")
    assert json.loads(out)["relationships"]["recall"] is None


def test_compare_json(recorded, capsys):
    run_cli(capsys, "run", str(recorded))
    run_dir = next((recorded.parent.parent / "reports" / "towns").iterdir())
    code, out, err = run_cli(capsys, "compare", str(run_dir), str(run_dir), "--variant-a", "default",
                             "--variant-b", "tuned", "--json")
    assert code == 0, err
    data = json.loads(out)["comparisons"]["default..tuned"]
    assert data["metrics"]["entity_recall"]["delta"] > 0
    assert data["cases"]["paired"] == 3


def test_shipped_suites_validate():
    for path in sorted((REPO / "suites").glob("*.yaml")):
        suite = load_suite(path)
        assert len(suite.cases) >= 12
        assert "written by hand" in suite.spec.notes
        for case in suite.cases:
            words = len(case.text.split())
            assert 150 <= words <= 400, f"{path.name}:{case.id} has {words} words"


def test_ctrl_c_says_how_to_resume(monkeypatch, capsys, tmp_path):
    """Typer turns KeyboardInterrupt into exit 130 itself; the user still gets the one line that
    says the run resumes."""
    import harness.suites
    from harness.cli import main

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(harness.suites, "load_suite", interrupted)
    assert main(["run", str(tmp_path / "s.yaml")]) == 130
    assert capsys.readouterr().err == "harness: interrupted; rerun the same command to resume\n"
