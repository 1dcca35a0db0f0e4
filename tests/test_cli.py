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


@pytest.mark.slow
def test_run_replays_and_prints_a_table_per_suite(recorded, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    code, out, err = run_cli(capsys, "run", str(recorded))
    assert code == 0, err
    assert "towns — baseline: default" in out
    assert "tuned" in out and "×" in out  # ratio to the baseline
    run_dir = next((recorded.parent.parent / "reports" / "towns").iterdir())
    assert {"results.jsonl", "summary.json", "report.md"} <= {p.name for p in run_dir.iterdir()}


@pytest.mark.slow
def test_deleted_cassette_exits_3_naming_the_case(recorded, capsys):
    (recorded.parent.parent / "fixtures" / "cassettes" / "towns" / "tuned" / "flood.json").unlink()
    code, out, err = run_cli(capsys, "run", str(recorded))
    assert code == 3
    assert "case 'flood' of variant 'tuned'" in err
    assert "harness record" in err and "--case flood" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.slow
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


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_parse_jsonl_keeps_a_line_separator_inside_an_answer(tmp_path, capsys, separator):
    """Issue 28 item 16: `str.splitlines` cut the row at a raw U+2028 inside its JSON string."""
    rows = tmp_path / "rows.jsonl"
    answer = f'("entity"<|>A<|>person<|>one{separator}two)\n<|COMPLETE|>'
    rows.write_text(json.dumps({"id": "a", "output": answer}, ensure_ascii=False) + "\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "parse", "--jsonl", str(rows), "--json")
    assert code == 0, err
    [result] = [json.loads(line) for line in out.split("\n") if line]
    assert result["id"] == "a" and result["entities"][0]["description"] == f"one{separator}two"


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


@pytest.mark.slow
def test_compare_json(recorded, capsys):
    run_cli(capsys, "run", str(recorded))
    run_dir = next((recorded.parent.parent / "reports" / "towns").iterdir())
    code, out, err = run_cli(capsys, "compare", str(run_dir), str(run_dir), "--variant-a", "default",
                             "--variant-b", "tuned", "--json")
    assert code == 0, err
    data = json.loads(out)["comparisons"]["default..tuned"]
    assert data["metrics"]["entity_recall"]["delta"] > 0
    assert data["cases"]["paired"] == 3


@pytest.mark.slow
def test_compare_prints_each_f1_change_of_a_regressed_case(recorded, capsys):
    """Issue 27, item 10: not "F1 change -2.000" (the sum of two changes)."""
    run_cli(capsys, "run", str(recorded))
    run_dir = next((recorded.parent.parent / "reports" / "towns").iterdir())
    code, out, err = run_cli(capsys, "compare", str(run_dir), str(run_dir), "--variant-a", "tuned",
                             "--variant-b", "default")
    assert code == 0, err
    regressed = [line for line in out.splitlines() if line.lstrip().startswith("regressed:")]
    assert regressed and all("(entity F1 " in line and ", relationship F1 " in line for line in regressed)
    assert "F1 change" not in out


@pytest.mark.slow
def test_a_replay_claims_no_latency(recorded, capsys):
    """Issue 28, item 21: a replayed run's summary showed a total latency of about 0 s (the time
    to read cassettes) as if it were the endpoint's; the record run beside it measured real calls."""
    recorded_runs = list((recorded.parent.parent / "reports" / "towns").iterdir())
    live = json.loads((recorded_runs[0] / "summary.json").read_text(encoding="utf-8"))
    assert all(isinstance(v["latency_total_s"], float) for v in live["variants"].values())
    run_cli(capsys, "run", str(recorded), "--run-id", "replayed")
    replay = json.loads((recorded.parent.parent / "reports" / "towns" / "replayed" / "summary.json").read_text(encoding="utf-8"))
    assert replay["record_mode"] == "none"
    assert all(v["latency_total_s"] is None for v in replay["variants"].values())


@pytest.mark.slow
def test_recording_into_a_suite_whose_notes_say_hand_written_says_so(project, api_key, capsys):
    """Issue 28, item 21: a suite copied from a shipped one kept "answers written by hand" in its
    notes (and so in every report) after its cassettes held a real model's answers."""
    text = project.read_text(encoding="utf-8")
    project.write_text(text.replace("variants:", "notes: The answers were written by hand.\nvariants:", 1),
                       encoding="utf-8")
    suite = load_suite(project)
    with FakeOpenAIServer(script_for(suite)) as srv:
        code, _, err = run_cli(capsys, "record", str(project), "--base-url", srv.base_url)
        assert code == 0, err
        assert "its notes say the answers were written by hand" in err and "update `notes:`" in err
        code, _, err = run_cli(capsys, "record", str(project), "--base-url", srv.base_url)  # nothing new recorded
        assert code == 0, err
        assert "written by hand" not in err


@pytest.mark.slow
def test_compare_header_names_the_runs_in_the_order_given(recorded, capsys):
    """Issue 28, item 21: `harness compare A B` printed "B vs A" above figures that read A -> B."""
    run_cli(capsys, "run", str(recorded))
    run_dir = next((recorded.parent.parent / "reports" / "towns").iterdir())
    code, out, err = run_cli(capsys, "compare", str(run_dir), str(run_dir), "--variant-a", "tuned",
                             "--variant-b", "default")
    assert code == 0, err
    header = out.splitlines()[0]
    assert header.index(":tuned") < header.index(":default") and " -> " in header and " vs " not in header


def test_shipped_suites_validate():
    for path in sorted((REPO / "suites").glob("*.yaml")):
        suite = load_suite(path)
        assert "written by hand" in suite.spec.notes
        if suite.spec.judge is not None:
            # a judge example (docs/judges.md): short, its judge's answers written by hand too
            assert "judge answer" in suite.spec.notes and len(suite.cases) >= 2
            continue
        if suite.spec.kind == "summarize_descriptions":
            # an entity of an extraction suite's world with what several chunks say of it (GraphRAG summarises 2+)
            assert len(suite.cases) >= 6 and all(len(case.descriptions) >= 2 for case in suite.cases)
            continue
        if suite.spec.kind == "global_search_map":
            # a question asked of one batch of the podcast world's reports, as global search writes it
            assert len(suite.cases) >= 3 and all(case.question and case.text.startswith("id|title|") for case in suite.cases)
            continue
        if suite.spec.kind == "community_report":
            # a community of the podcast world as GraphRAG lays its context out (tests/checks/test_context_tables.py)
            assert len(suite.cases) >= 5 and all("-----Entities-----" in case.text for case in suite.cases)
            continue
        assert len(suite.cases) >= 12
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


# ---------------------------------------------------------------- harness score: reference-free figures (issue 15)

REFERENCE_FREE_KEYS = ["entities", "relationships", "grounded", "ungrounded", "type_conformance", "duplicate_records",
                       "type_conflicts", "dangling", "self_loops", "example_leaks", "example_leak_names",
                       "empty_descriptions", "type_word_names", "type_word_names_found", "example_relationships",
                       "example_endpoint_names", "example_descriptions", "ungrounded_endpoints"]
RF_ANSWER = ('("entity"<|>JOSÉ NÚÑEZ<|>person<|>Mayor of Lowbridge)##("entity"<|>José Núñez<|>organization<|>n/a)##'
             '("entity"<|>LOWBRIDGE<|>geo<|>A river town)##("entity"<|>MARTIN SMITH<|>person<|>Chair)##'
             '("entity"<|>JOSE NUNEZ<|>person<|>Mayor)##'
             '("relationship"<|>JOSÉ NÚÑEZ<|>LOWBRIDGE<|>Mayor of the town<|>8)##'
             '("relationship"<|>LOWBRIDGE<|>José Núñez<|>Same link written back<|>12)##'
             '("relationship"<|>JOSÉ NÚÑEZ<|>HARBOR TRUST<|>-<|>5)##'
             '("relationship"<|>LOWBRIDGE<|>lowbridge<|>Itself<|>3)\n<|COMPLETE|>')
RF_CHUNK = "José Núñez, mayor of Lowbridge, met the Harbor Trust."
# A GraphRAG-style text prompt whose example names Martin Smith, as GraphRAG's default prompt does.
RF_PROMPT = ("-Goal- Extract entities of types [{entity_types}].\n-Examples-\nText: Martin Smith, Chair of the "
             "Central Institution, spoke.\nOutput:\n(\"entity\"{tuple_delimiter}MARTIN SMITH{tuple_delimiter}person"
             "{tuple_delimiter}Chair){completion_delimiter}\n-Real Data-\nText: {input_text}\nOutput:\n")


@pytest.fixture
def rf_files(tmp_path) -> dict[str, Path]:
    files = {"pred": tmp_path / "pred.txt", "text": tmp_path / "chunk.txt", "prompt": tmp_path / "prompt.txt",
             "gold": tmp_path / "gold.yaml"}
    files["pred"].write_text(RF_ANSWER, encoding="utf-8")
    files["text"].write_text(RF_CHUNK, encoding="utf-8")
    files["prompt"].write_text(RF_PROMPT, encoding="utf-8")
    files["gold"].write_text(f"id: c1\ntext: {RF_CHUNK}\nentities:\n  - {{name: José Núñez, type: person}}\n"
                             "  - {name: Lowbridge, type: geo}\nrelationships:\n  - {source: José Núñez, target: Lowbridge}\n",
                             encoding="utf-8")
    return files


def test_score_without_gold_prints_only_the_reference_free_object(rf_files, capsys):
    code, out, err = run_cli(capsys, "score", "--pred", str(rf_files["pred"]), "--text", str(rf_files["text"]),
                             "--entity-types", "person, geo", "--examples", str(rf_files["prompt"]), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["reference_free", "parse"]  # no gold: the gold-based part is absent, not zeros
    assert list(data["reference_free"]) == REFERENCE_FREE_KEYS
    assert data["reference_free"] == {
        "entities": 4, "relationships": 2, "grounded": 2, "ungrounded": ["MARTIN SMITH", "JOSE NUNEZ"],
        "type_conformance": 0.8, "duplicate_records": 1, "type_conflicts": 1, "dangling": 1, "self_loops": 1,
        "example_leaks": 1, "example_leak_names": ["MARTIN SMITH"], "empty_descriptions": 2,
        "type_word_names": 0, "type_word_names_found": [],
        "example_relationships": 0, "example_endpoint_names": [], "example_descriptions": 0, "ungrounded_endpoints": 0,
    }


def test_score_without_types_or_examples_gives_nulls(rf_files, capsys):
    code, out, err = run_cli(capsys, "score", "--pred", str(rf_files["pred"]), "--text", str(rf_files["text"]), "--json")
    assert code == 0, err
    figures = json.loads(out)["reference_free"]
    assert figures["type_conformance"] is None and figures["example_leaks"] is None and figures["example_leak_names"] == []


def test_score_with_gold_keeps_todays_keys_and_adds_reference_free(rf_files, capsys):
    code, out, err = run_cli(capsys, "score", "--gold", str(rf_files["gold"]), "--pred", str(rf_files["pred"]), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["entities", "relationships", "grounding", "reference_free", "parse"]
    assert list(data["reference_free"]) == REFERENCE_FREE_KEYS
    assert data["reference_free"]["grounded"] == data["grounding"]["grounded"] == 2  # the gold case's text
    # --text replaces the chunk of the reference-free figures only
    other = rf_files["text"].parent / "other.txt"
    other.write_text("Martin Smith and José Núñez.", encoding="utf-8")
    code, out, _ = run_cli(capsys, "score", "--gold", str(rf_files["gold"]), "--pred", str(rf_files["pred"]),
                           "--text", str(other), "--json")
    data = json.loads(out)
    assert data["grounding"]["grounded"] == 2 and data["reference_free"]["ungrounded"] == ["LOWBRIDGE", "JOSE NUNEZ"]


def test_score_with_a_builtin_prompt_as_examples(rf_files, capsys):
    code, out, err = run_cli(capsys, "score", "--pred", str(rf_files["pred"]), "--text", str(rf_files["text"]),
                             "--examples", "builtin:graphrag/extract_graph", "--json")
    assert code == 0, err
    assert json.loads(out)["reference_free"]["example_leaks"] == 0  # the built-in's examples name neither


def test_score_plain_output_is_one_block(rf_files, capsys):
    code, out, err = run_cli(capsys, "score", "--pred", str(rf_files["pred"]), "--text", str(rf_files["text"]),
                             "--entity-types", "person,geo", "--examples", str(rf_files["prompt"]))
    assert code == 0, err
    assert out.splitlines() == [
        "reference-free: 4 entities, 2 grounded in the chunk; 2 relationships",
        "  ungrounded: MARTIN SMITH, JOSE NUNEZ",
        "  type conformance 0.800; 1 duplicate record, 1 type conflict",
        "  1 dangling, 1 self-loop, 2 empty descriptions, 1 strength out of scale",
        "  example leaks: 1 (MARTIN SMITH)",
    ]
    code, out, _ = run_cli(capsys, "score", "--gold", str(rf_files["gold"]), "--pred", str(rf_files["pred"]))
    assert out.startswith("entities:") and "reference-free: 4 entities" in out and "example leaks: n/a" in out


@pytest.mark.parametrize("extra,message", [
    ([], "give --text CHUNK.txt"),
    (["--text", "missing.txt"], "missing.txt"),
    (["--text", "{text}", "--entity-types", " , "], "--entity-types"),
    (["--text", "{text}", "--examples", "nowhere.yaml"], "nowhere.yaml"),
    (["--text", "{text}", "--format", "csv"], "--format"),
])
def test_score_bad_input_is_one_line_and_exit_2(rf_files, capsys, extra, message):
    argv = ["score", "--pred", str(rf_files["pred"]), *[a.format(text=rf_files["text"]) for a in extra]]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_score_refuses_two_inputs_on_stdin(rf_files, capsys):
    code, _, err = run_cli(capsys, "score", "--pred", "-", "--text", "-")
    assert code == 2 and "standard input" in err


def test_score_of_llamaindex_triples_leaves_descriptions_and_untyped_conformance_na(tmp_path, capsys):
    pred, text = tmp_path / "pred.txt", tmp_path / "chunk.txt"
    pred.write_text("(Philz, founded in, Berkeley)\n(Philz, sells, coffee)\n", encoding="utf-8")
    text.write_text("Philz, which sells coffee, was founded in Berkeley.", encoding="utf-8")
    code, out, err = run_cli(capsys, "score", "--pred", str(pred), "--text", str(text),
                             "--entity-types", "organization,geo", "--json")
    assert code == 0, err
    rf = json.loads(out)["reference_free"]
    # 3 distinct entities, all in the chunk; the triples give no type and no description
    assert (rf["entities"], rf["grounded"], rf["relationships"]) == (3, 3, 2)
    assert rf["type_conformance"] is None and rf["empty_descriptions"] is None


def test_plain_score_says_which_mode_each_relationship_figure_is_in(tmp_path, capsys):
    # gold: (Philz, founded_in, Berkeley); the answer gets the endpoints right and the predicate wrong
    gold, pred = tmp_path / "gold.yaml", tmp_path / "pred.txt"
    gold.write_text("id: c1\ntext: Philz was founded in Berkeley.\nentities: [{name: Philz}, {name: Berkeley}]\n"
                    "relationships: [{source: Philz, target: Berkeley, type: founded_in}]\n", encoding="utf-8")
    pred.write_text("(Philz, located in, Berkeley)\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "score", "--gold", str(gold), "--pred", str(pred))
    assert code == 0, err
    assert "relationships: P 1.000  R 1.000  F1 1.000  (1 of 1 gold, 1 predicted; endpoints only)" in out
    assert "  typed:       P 0.000  R 0.000  F1 0.000  (0 of 1 gold, 1 predicted; endpoints and predicate)" in out
    assert "missed typed relationships: (Philz, founded_in, Berkeley)" in out  # as the gold writes it


def test_what_a_command_prints_is_scrubbed_of_the_key(project, api_key, capsys, tmp_path):
    """Issue 28: the error printer, usage errors and `--json` all print through the one redaction
    (a path or a value the user typed may be, or hold, the key)."""
    code, out, err = run_cli(capsys, "run", f"suites/{api_key}.yaml")
    assert code == 2 and api_key not in err and "[REDACTED]" in err
    code, out, err = run_cli(capsys, "record", str(project), "--base-url", f"ftp://proxy.test/?api-key={api_key}")
    assert code == 2 and api_key not in err and "[REDACTED]" in err
    (tmp_path / "answer.txt").write_text(f'("entity"<|>{api_key}<|>person<|>leaked)\n<|COMPLETE|>', encoding="utf-8")
    code, out, err = run_cli(capsys, "parse", str(tmp_path / "answer.txt"), "--json")
    assert code == 0 and api_key not in out and "[REDACTED]" in out


def test_a_gold_side_file_among_the_suites_is_skipped_with_a_note(tmp_path: Path, capsys, monkeypatch):
    # `harness annotate` writes suites/<suite>.gold.yaml beside the suite, so `harness run
    # suites/*.yaml` (make run, the README's CI) matches it: it is not a suite
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    side = tmp_path / "podcast-global-map.gold.yaml"
    side.write_text("cases:\n  - id: c1\n    review: pending\n", encoding="utf-8")
    monkeypatch.chdir(REPO)
    code, out, err = run_cli(capsys, "run", "suites/podcast-global-map.yaml", str(side), "--record-mode", "none",
                             "--reports", str(tmp_path / "reports"))
    assert code == 0, err
    assert f"harness: note: {side}: a gold side file of `harness annotate`, not a suite: skipped" in err
    assert (tmp_path / "reports" / "podcast-global-map").is_dir()


def test_a_gold_side_file_alone_is_refused_in_one_line(tmp_path: Path, capsys):
    side = tmp_path / "podcast.gold.yaml"
    side.write_text("cases: []\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "run", str(side))
    assert code == 2
    assert err.strip().splitlines()[-1] == (f"harness: {side}: a gold side file of `harness annotate`, not a suite: "
                                            "give the suite that names it in `gold_file:`")
