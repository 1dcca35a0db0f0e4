"""Start-up: commands that do not need the heavy libraries do not load them.

Each check runs in a fresh interpreter (a test process has long since imported everything) and
reads `sys.modules` after the import or the command. Timings are in bench/startup.py, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Third-party packages that cost tens to hundreds of milliseconds to import, and that only some
# commands use: the model client (openai, httpx2, vcr), scoring (scipy, numpy, networkx),
# comparison and plots (pandas, deepdiff, matplotlib), the trace export (OpenTelemetry's SDK, protobuf).
HEAVY = ("openai", "httpx2", "vcr", "scipy", "numpy", "pandas", "matplotlib", "networkx", "deepdiff",
         "opentelemetry", "google.protobuf")

ANSWER = (
    '("entity"<|>ANA RUIZ<|>person<|>Mayor of Lowbridge)##\n'
    '("entity"<|>LOWBRIDGE<|>geo<|>A river town)##\n'
    '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>Ana Ruiz is the mayor of Lowbridge<|>8)\n'
    "<|COMPLETE|>\n"
)

# Prints, as the last line of stdout, the heavy packages the code before it left loaded.
REPORT = "import json, sys; print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))"


def _loaded_after(code: str, cwd: Path) -> tuple[list[str], subprocess.CompletedProcess]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_", "PYTHON"))}
    script = f"{code}\n{REPORT.format(heavy=HEAVY)}"
    done = subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip(), done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done


@pytest.mark.parametrize("module", ["harness.cli", "harness.pytest_plugin"])
def test_importing_loads_no_heavy_package(module, tmp_path):
    loaded, done = _loaded_after(f"import {module}", tmp_path)
    assert done.returncode == 0, done.stderr
    assert loaded == []


@pytest.mark.parametrize("argv", [["--help"], ["tune", "--help"], ["prompts", "lint", "--help"], ["score", "--help"],
                                  ["export", "--help"], ["version"]],
                         ids=["help", "tune-help", "prompts-lint-help", "score-help", "export-help", "version"])
@pytest.mark.slow
def test_light_commands_load_no_heavy_package(argv, tmp_path):
    code = f"from harness.cli import main\nprint('exit', main({argv!r}))"
    loaded, done = _loaded_after(code, tmp_path)
    assert "exit 0" in done.stdout, done.stdout + done.stderr
    assert loaded == []


def test_parse_of_one_answer_loads_no_heavy_package(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER, encoding="utf-8")
    code = f"from harness.cli import main\ncode = main(['parse', {str(answer)!r}])\nprint('exit', code)"
    loaded, done = _loaded_after(code, tmp_path)
    assert "format: graphrag; entities 2, relationships 1" in done.stdout, done.stdout + done.stderr
    assert "exit 0" in done.stdout
    assert loaded == []


@pytest.mark.parametrize("argv", [
    ["prompts", "export", str(REPO / "prompts" / "podcast" / "auto.yaml"), "{out}", "--to", "graphrag"],
    ["prompts", "export", "builtin:lightrag.extract_graph", "{out}", "--to", "lightrag"],
    ["prompts", "lint", str(REPO / "prompts" / "podcast" / "extract_graph.txt")],
    ["prompts", "list"],
    ["prompts", "show", "graphrag.extract_graph"],
], ids=["export-yaml", "export-builtin", "lint-file", "list", "show"])
@pytest.mark.slow
def test_prompt_commands_without_a_suite_load_no_heavy_package(argv, tmp_path):
    """Exporting or linting one prompt file needs neither the model client nor scoring (the prompt
    resolver once imported the suite loader, and scoring with it, for a type annotation)."""
    argv = [arg.replace("{out}", str(tmp_path / "project")) for arg in argv]
    code = f"from harness.cli import main\nprint('exit', main({argv!r}))"
    loaded, done = _loaded_after(code, tmp_path)
    assert "exit 0" in done.stdout, done.stdout + done.stderr
    assert loaded == []


def test_pytest_run_that_collects_no_suite_loads_no_heavy_package(tmp_path):
    """The plugin is loaded by every pytest in the environment: it must cost nothing there."""
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert True\n", encoding="utf-8")
    (tmp_path / "settings.yaml").write_text("cases: []\nvariants: {}\n", encoding="utf-8")  # not asked for
    registered = any(ep.value == "harness.pytest_plugin" for ep in entry_points(group="pytest11"))
    args = ["-q", "-p", "no:cacheprovider", *([] if registered else ["-p", "harness.pytest_plugin"]), "."]
    code = ("import pytest\n"
            f"code = pytest.main({args!r})\n"
            "print('exit', int(code))")
    loaded, done = _loaded_after(code, tmp_path)
    assert "1 passed" in done.stdout and "exit 0" in done.stdout, done.stdout + done.stderr
    assert loaded == []


def test_the_plugin_imports_no_harness_module_and_no_pydantic_until_a_suite_is_collected(tmp_path):
    # every pytest in the environment loads the plugin: the metric registry (and with it pydantic
    # and harness.model) once cost 0.09 s there; suites bring those in when one is collected
    script = ("import json, sys\nimport harness.pytest_plugin\n"
              "print(json.dumps(sorted(m for m in sys.modules if m == 'pydantic' or "
              "(m.startswith('harness.') and m != 'harness.pytest_plugin'))))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_", "PYTHON"))}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
