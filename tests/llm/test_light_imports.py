"""Commands that never send a request do not load the SDK, vcrpy or httpx.

Replaying, auditing cassettes, linting and rendering prompts read cassettes through the cassette
store and build requests through the provider, neither of which imports openai, vcr or httpx2.
Each check runs in a fresh interpreter and reads `sys.modules` afterwards (as tests/test_startup.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
SENDING = ("openai", "vcr", "httpx", "httpx2", "httpcore2")
REPORT = f"import json, sys; print(json.dumps(sorted(m for m in {SENDING!r} if m in sys.modules)))"


def _loaded_after(code: str) -> tuple[list[str], subprocess.CompletedProcess]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_", "PYTHON", "AZURE_"))}
    env.pop("CI", None)
    done = subprocess.run([sys.executable, "-c", f"{code}\n{REPORT}"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.stdout.strip(), done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done


def test_importing_the_runner_loads_no_sdk():
    loaded, done = _loaded_after("import harness.run.schedule, harness.llm.client, harness.run.audit")
    assert done.returncode == 0, done.stderr
    assert loaded == []


@pytest.mark.parametrize("argv", [
    ["cassettes", "audit", "suites/podcast.yaml"],
    ["prompts", "lint", "--suite", "suites/podcast.yaml"],
    ["prompts", "render", "--suite", "suites/podcast.yaml"],
], ids=["cassettes-audit", "prompts-lint", "prompts-render"])
@pytest.mark.slow
def test_commands_that_send_nothing_load_no_sdk(argv):
    loaded, done = _loaded_after(f"from harness.cli import main\nprint('exit', main({argv!r}))")
    assert "exit 0" in done.stdout, done.stdout + done.stderr
    assert loaded == []


@pytest.mark.slow
def test_a_replayed_run_loads_no_sdk(tmp_path):
    argv = ["run", "suites/podcast.yaml", "--reports", str(tmp_path)]
    loaded, done = _loaded_after(f"from harness.cli import main\nprint('exit', main({argv!r}))")
    assert "exit 0" in done.stdout, done.stdout + done.stderr
    assert loaded == []


@pytest.mark.slow
def test_a_replayed_tuning_loads_no_sdk(tmp_path):
    # tuning replays its steps from the cassette store, as runs do; only recording loads vcrpy
    argv = ["tune", "--suite", "suites/podcast.yaml", "--out", str(tmp_path / "auto.yaml"), "--selection", "top",
            "--limit", "6", "--record-mode", "none"]
    loaded, done = _loaded_after(f"from harness.cli import main\nprint('exit', main({argv!r}))")
    assert "exit 0" in done.stdout, done.stdout + done.stderr
    assert loaded == []


@pytest.mark.slow
def test_a_recording_run_does_load_the_sdk(tmp_path):
    """The check above can fail: recording sends through the SDK and vcrpy."""
    code = ("import os\nos.environ['OPENAI_API_KEY'] = 'sk-test-not-used'\n"
            "from harness.llm.client import ModelClient, EndpointSettings\n"
            "ModelClient(EndpointSettings(model='m', base_url='http://127.0.0.1:9/v1'), replay=False)._sdk_client()")
    loaded, done = _loaded_after(code)
    assert done.returncode == 0, done.stderr
    assert "openai" in loaded
