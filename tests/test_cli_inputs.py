"""Bad arguments and damaged run files: one line on stderr, exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.inputfiles import MAX_JSON_DEPTH, parse_json
from tests.test_compare import run_a

DEEP = "[" * 100_000 + "]" * 100_000


def harness(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("harness: "), err
    assert "Traceback" not in err
    return err


# ------------------------------------------------------------------ --base-url


@pytest.mark.parametrize(
    ("url", "problem"),
    [("http://[::1", "not a URL"), ("http://localhost:99999/v1", "port"), ("ftp://host/v1", "http"),
     ("localhost:8000", "http"), ("http:///v1", "host"), ("http://host:abc/v1", "port")],
)
def test_bad_base_url_is_refused_before_anything_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      url: str, problem: str) -> None:
    code, _, err = harness(capsys, "record", str(tmp_path / "missing-suite.yaml"), "--base-url", url)
    assert code == 2
    assert "--base-url" in one_line(err) and problem in err


def test_bad_base_url_in_a_suite_is_refused_at_load(tmp_path: Path) -> None:
    from harness.suites import load_suite

    (tmp_path / "p.txt").write_text("{input_text}", encoding="utf-8")
    suite = tmp_path / "s.yaml"
    suite.write_text("name: s\nmodel: {base_url: 'http://[::1'}\nvariants: {v: {prompt: p.txt}}\n"
                     "cases: [{id: a, text: hi}]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"s\.yaml:2: model\.base_url: "):
        load_suite(suite)


# ------------------------------------------------------------------ run files


def write_run(folder: Path, *, results: bytes | None = None, summary: bytes | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = "".join(r.model_dump_json() + "\n" for r in run_a()).encode()
    (folder / "results.jsonl").write_bytes(rows if results is None else results)
    good_summary = {"suite": "demo", "run_id": folder.name, "variants": {"default": {}}}
    (folder / "summary.json").write_bytes(json.dumps(good_summary).encode() if summary is None else summary)
    return folder


COMMANDS = [
    ("report",), ("gate",), ("baseline", "update"), ("inspect", "{run}", "Alpha"), ("merge",), ("compare", "{run}"),
]


def argv_for(command: tuple[str, ...], run: Path) -> list[str]:
    if "{run}" in command:
        return [part.replace("{run}", str(run)) for part in command] + ([str(run)] if command[0] == "compare" else [])
    return [*command, str(run)]


# inspect and compare read results.jsonl only, so they get no damaged summary.json
DAMAGED = [(command, damage) for command in COMMANDS
           for damage in ["results-latin1", "results-deep", "summary-latin1", "summary-deep"]
           if not (damage.startswith("summary") and command[0] in ("inspect", "compare"))]


@pytest.mark.slow
@pytest.mark.parametrize(("command", "damage"), DAMAGED, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_damaged_run_files_name_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         command: tuple[str, ...], damage: str) -> None:
    which, kind = damage.split("-")
    content = "café".encode("latin-1") + b"\n" if kind == "latin1" else DEEP.encode() + b"\n"
    if which == "results" and kind == "deep":
        rows = "".join(r.model_dump_json() + "\n" for r in run_a()).encode()
        content = DEEP.encode() + b"\n" + rows  # not the last line: not a torn write
    run = write_run(tmp_path / "run1", **{which: content})
    code, _, err = harness(capsys, *argv_for(command, run))
    assert code == 2, err
    target = "results.jsonl" if which == "results" else "summary.json"
    assert target in one_line(err)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_duplicate_rows_are_refused_by_every_reader(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    command: tuple[str, ...]) -> None:
    """One case × variant twice (an edited or concatenated file) is refused by the shared reader,
    so no command pairs or counts an arbitrary one of them."""
    rows = run_a()
    text = "".join(r.model_dump_json() + "\n" for r in [*rows, rows[0], rows[-1]]).encode()
    run = write_run(tmp_path / "dup", results=text)
    code, _, err = harness(capsys, *argv_for(command, run))
    assert code == 2, err
    assert "results.jsonl" in one_line(err) and "'c1'" in err and "twice" in err


def test_parse_json_bounds_depth_without_recursing() -> None:
    with pytest.raises(InputError, match=f"^x.json: JSON nested deeper than {MAX_JSON_DEPTH} levels"):
        parse_json(DEEP, "x.json")
    assert parse_json('{"a": "[[[[[[" , "b": [1]}', "ok.json") == {"a": "[[[[[[", "b": [1]}


# ------------------------------------------------------------------ parse


@pytest.mark.parametrize("option", ["--tuple-delimiter", "--record-delimiter", "--completion-delimiter"])
def test_parse_refuses_empty_delimiters(capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str) -> None:
    answer = tmp_path / "a.txt"
    answer.write_text('("entity"<|>A<|>person<|>x)\n<|COMPLETE|>', encoding="utf-8")
    code, _, err = harness(capsys, "parse", str(answer), option, "")
    assert code == 2
    assert option in one_line(err)


def test_parse_jsonl_reports_a_deep_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    jsonl = tmp_path / "outputs.jsonl"
    jsonl.write_text(json.dumps({"output": "x"}) + "\n" + DEEP + "\n", encoding="utf-8")
    code, _, err = harness(capsys, "parse", "--jsonl", str(jsonl))
    assert code == 2
    assert f"{jsonl}:2:" in one_line(err) and "nested deeper" in err


def test_citations_context_deep_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "ctx.json").write_text(DEEP, encoding="utf-8")
    (tmp_path / "r.txt").write_text("Text [Data: Entities (1)].", encoding="utf-8")
    code, _, err = harness(capsys, "citations", str(tmp_path / "r.txt"), "--context", str(tmp_path / "ctx.json"))
    assert code == 2
    assert "ctx.json" in one_line(err)


def test_input_files_that_are_devices_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = harness(capsys, "parse", "/dev/zero")
    assert code == 2
    assert "not a regular file" in one_line(err)


# ------------------------------------------------------------------ usage errors


@pytest.mark.parametrize(
    "argv",
    [["run", "--bogus"], ["record", "x.yaml", "--concurrency", "0"], ["run"], ["parse", "--format"],
     ["inspect", "run-folder"], ["nosuchcommand"], ["run", "x.yaml", "--record-mode", "sometimes"]],
)
def test_usage_errors_are_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _, err = harness(capsys, *argv)
    assert code == 2
    one_line(err)


@pytest.mark.parametrize(("argv", "command", "takes"), [
    # Click's own text suggested close matches only: "No such option: --cache (Possible options: --help, --name)"
    # (before import lightrag took --cache)
    (["import", "lightrag", "setup", "--caches"], "import lightrag", ["--out", "--name", "--limit", "--cache", "--force", "--help"]),
    (["run", "x.yaml", "--gatee"], "run", ["--record-mode", "--variant", "--case", "--gate", "--workers", "--help"]),
    (["prompts", "lint", "p.txt", "-z"], "prompts lint", ["--suite", "--json", "--kind", "--engine", "--help"]),
    (["--nope"], "", ["--help"]),
])
def test_an_unknown_option_lists_the_commands_options(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                      command: str, takes: list[str]) -> None:
    code, _, err = harness(capsys, *argv)
    line = one_line(err)
    assert code == 2 and "Possible options" not in line
    where = f"harness: {command}: " if command else "harness: "
    assert line.startswith(f"{where}unknown option {argv[-1]}; `harness{' ' + command if command else ''}` takes ")
    listed = line.split(" takes ", 1)[1].strip().split(", ")
    assert all(option in listed for option in takes) and argv[-1] not in listed


@pytest.mark.parametrize("command", [["compare", "x" * 300, "y"], ["report", "x" * 300], ["gate", "x" * 300],
                                     ["inspect", "x" * 300, "A"]])
def test_path_too_long_for_the_system_is_one_line(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, _, err = harness(capsys, *command)
    assert code == 2
    assert len(one_line(err)) < 400


def test_run_refuses_outside_chunks_unless_allowed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "suites").mkdir(parents=True)
    (root / "p.txt").write_text("{input_text}", encoding="utf-8")
    (tmp_path / "outside.txt").write_text("Ana met Bo.", encoding="utf-8")
    suite = root / "suites" / "s.yaml"
    suite.write_text("name: s\nvariants: {v: {prompt: p.txt}}\ncases: [{id: a, chunk: ../outside.txt}]\n", encoding="utf-8")
    reports = str(tmp_path / "reports")
    code, _, err = harness(capsys, "run", str(suite), "--reports", reports)
    assert code == 2 and "outside the project" in one_line(err)
    code, _, err = harness(capsys, "run", str(suite), "--reports", reports, "--allow-outside-chunks")
    assert code == 3 and "cassette missing" in err  # loaded; replay then needs a cassette
