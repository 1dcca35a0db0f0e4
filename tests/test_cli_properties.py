"""Property test for the command line: random argv for each subcommand, run in-process through
`harness.cli.main`, may raise nothing and may exit only with a documented code (0-4); exit 2
ends with one line on stderr. Live model calls are kept out (no `record`, no `tune`, replay only)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from tests.support.shipped import shipped_project

REPO = Path(__file__).resolve().parent.parent

FILES = ["suites/mini.yaml", "suites/biomed.yaml", "reports/biomed/r1", "reports/biomed/r1/results.jsonl",
         "reports/biomed/r1/summary.json", "prompts/default/extract_graph.txt", "prompts/podcast/auto.yaml",
         "gold.yaml", "answer.txt", "missing.yaml", "-", "", ".", "/dev/null", "/dev/zero", "suites",
         "x" * 300, "a\x00b", "é", "--", "reports/biomed/r1/../../../suites/mini.yaml"]
WORDS = ["auto", "graphrag", "lightrag", "json", "xml", "none", "once", "all", "rewrite", "1/2", "0/0", "3/2", "-1",
         "0", "99999", "1e9", "nan", "default", "tuned", "c1", "Alpha", "in", "out", "both", "http://[::1",
         "http://localhost:99999", "", " ", "\n", "{}", "[]", "<|>", "##"]
COMMANDS: dict[tuple[str, ...], list[str]] = {
    ("run",): ["--variant", "--case", "--reports", "--run-id", "--fresh", "--shard", "--gate", "--baseline",
               "--allow-outside-chunks"],
    ("parse",): ["--format", "--json", "--jsonl", "--tuple-delimiter", "--record-delimiter", "--completion-delimiter",
                 "--entity", "--max-words", "--context"],
    ("score",): ["--gold", "--pred", "--format", "--json"],
    ("citations",): ["--context", "--dataset", "--json"],
    ("audit-cache",): ["--json", "--engine"],
    ("compare",): ["--variant-a", "--variant-b", "--json"],
    ("gate",): ["--baseline", "--json", "--no-reports"],
    ("baseline", "update"): ["--out"],
    ("merge",): ["--reports", "--run-id", "--suite", "--baseline", "--gate", "--json"],
    ("inspect",): ["--variant", "--direction", "--min-strength", "--related-type", "--suite", "--json"],
    ("report",): ["--against", "--out", "--variant", "--baseline", "--markdown"],
    ("prompts", "lint"): ["--suite", "--json", "--max-tokens"],
    ("prompts", "render"): ["--suite", "--case", "--variant", "--text"],
    ("cassettes", "audit"): ["--json"],
    ("import", "graphrag"): ["--out", "--name", "--limit", "--max-cases", "--documents", "--graphrag-version", "--force"],
    ("import", "lightrag"): ["--out", "--name", "--limit", "--max-cases", "--force"],
    ("version",): [],
    (): ["--help", "--version"],
}
SAFE_OUTPUTS = {"--out", "--reports"}  # options whose value is a path the command writes: keep it in the project


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shipped project with a two-case suite and one finished replayed run."""
    root = tmp_path_factory.mktemp("cli")
    shipped_project(root, suites=("biomed",), cassettes=("biomed",))
    data = yaml.safe_load((REPO / "suites" / "biomed.yaml").read_text(encoding="utf-8"))
    data["cases"] = data["cases"][:2]
    (root / "suites" / "mini.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    (root / "gold.yaml").write_text("text: Alpha met Beta.\nentities: [{name: Alpha, type: person}]\n", encoding="utf-8")
    (root / "answer.txt").write_text('("entity"<|>ALPHA<|>person<|>x)\n<|COMPLETE|>', encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(["run", "suites/mini.yaml", "--reports", "reports", "--run-id", "r1"]) == 0
    finally:
        os.chdir(cwd)
    return root


def argv_strategy() -> st.SearchStrategy[list[str]]:
    def build(command: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
        options = COMMANDS[command]
        token = st.one_of(st.sampled_from(FILES), st.sampled_from(WORDS), st.text(max_size=10),
                          *([st.sampled_from(options)] if options else []))
        return st.lists(token, max_size=6).map(lambda rest: [*command, *rest])

    return st.sampled_from(sorted(COMMANDS)).flatmap(build)


def keep_inside(argv: list[str]) -> list[str]:
    """Outputs go inside the project copy, never beside the repository."""
    out = list(argv)
    for index, part in enumerate(out[:-1]):
        if part in SAFE_OUTPUTS:
            out[index + 1] = f"out/{abs(hash(out[index + 1])) % 1000}"
    return out


@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(argv=argv_strategy())
def test_random_argv_exits_with_a_documented_code(project: Path, argv: list[str], capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setenv("CI", "true")  # replay only: no command may reach for a model
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr("sys.stdin", open(os.devnull))  # `-` reads an empty stdin, never the terminal
    argv = keep_inside(argv)
    code = main(argv)
    _, err = capsys.readouterr()
    assert code in (0, 1, 2, 3, 4), (argv, code, err[-500:])
    assert "Traceback" not in err, (argv, err[-2000:])
    if code == 2 and err.strip():
        assert err.rstrip("\n").split("\n")[-1].startswith("harness: "), (argv, err[-500:])
