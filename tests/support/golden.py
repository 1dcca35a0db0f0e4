"""Golden outputs of the shipped suites: replay them, and normalise what legitimately varies.

Shared by `scripts/capture_golden.py` (writes `tests/golden/`) and `tests/test_behaviour_unchanged.py`
(replays again and compares), so both see exactly the same commands and the same normalisation.

What is replayed is what `make run` does: `harness run suites/*.yaml --record-mode none --gate`
(into a scratch reports folder holding a copy of `reports/baselines/`, with the fixed run id
`golden`) and the podcast tuning replay `harness tune --suite suites/podcast.yaml ... --selection
top --limit 6 --record-mode none`.

Normalised, and nothing else:
- timings: the number under any JSON key ending in `_s` (`latency_s`, `latency_total_s`, `wall_s`);
- timestamps: the value of JSON `created_at`;
- the scratch folder's absolute path (a baseline's path in gate.json and report.md, the tuned files'
  paths in the tuning report), which becomes `<OUT>`;
- in report.html, each embedded PNG (`data:image/png;base64,...`) becomes its SHA-256: any changed
  pixel still changes the file, but the golden copy stays small and its diff readable.
Run ids are fixed, so they are not normalised. `environment.json` records the matplotlib version the
plots were drawn with; under another version the PNG digests are not compared (see `comparable`).
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GOLDEN_DIR = REPO / "tests" / "golden"
RUN_ID = "golden"
# In pipeline order: when several differ, the earliest names the stage that changed.
RUN_FILES = ("results.jsonl", "summary.json", "gate.json", "report.md", "junit.xml", "report.html")
TUNE_NAME = "podcast-auto"
COMMANDS = "commands.json"
# The plots are PNGs drawn by matplotlib (with its own bundled FreeType): the same version draws the
# same bytes, another version may not. The version is captured, and PNG digests compared only under it.
ENVIRONMENT = "environment.json"

# Credentials and endpoints change what is redacted or where calls go; replay needs none of them.
_SCRUBBED_ENV = re.compile(r"^(OPENAI_|AZURE_OPENAI_)")

_TIMING = re.compile(r'(?<!\\)("[A-Za-z0-9_]*_s")(\s*:\s*)-?[0-9][0-9.eE+-]*')
_CREATED_AT = re.compile(r'(?<!\\)("created_at")(\s*:\s*)"[^"\\]*"')
_EMBEDDED_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
_PNG_DIGEST = re.compile(r"(?<=data:image/png;)sha256,[0-9a-f]{64}")


def normalise(text: str, scratch_roots: list[str]) -> str:
    """`text` with timings, timestamps, the scratch folder and embedded PNG bytes replaced."""
    for root in sorted(set(scratch_roots), key=len, reverse=True):
        text = text.replace(root, "<OUT>")
    text = _TIMING.sub(r'\1\2"<timing>"', text)
    text = _CREATED_AT.sub(r'\1\2"<timestamp>"', text)
    return _EMBEDDED_PNG.sub(
        lambda m: "data:image/png;sha256," + hashlib.sha256(base64.b64decode(m.group(1))).hexdigest(), text)


@dataclass
class Replay:
    """Normalised outputs by their path under tests/golden/ (POSIX), and the commands' exit codes."""

    files: dict[str, str]


def _harness(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, encoding="utf-8", check=False)


def replay(scratch: Path) -> Replay:
    """Replay the shipped suites and the podcast tuning into `scratch`; the normalised outputs."""
    scratch.mkdir(parents=True, exist_ok=True)
    reports = scratch / "reports"
    shutil.copytree(REPO / "reports" / "baselines", reports / "baselines")  # the gate's regression rules
    tune_out = scratch / "tune" / f"{TUNE_NAME}.yaml"
    env = {key: value for key, value in os.environ.items() if not _SCRUBBED_ENV.match(key)}
    suites = sorted(path.relative_to(REPO).as_posix() for path in (REPO / "suites").glob("*.yaml"))
    commands = [
        ["run", *suites, "--record-mode", "none", "--gate", "--reports", str(reports), "--run-id", RUN_ID],
        ["tune", "--suite", "suites/podcast.yaml", "--out", str(tune_out), "--selection", "top",
         "--limit", "6", "--record-mode", "none"],
    ]
    roots = [str(scratch), str(scratch.resolve())]
    record = []
    for args in commands:
        done = _harness(args, env)
        if done.returncode not in (0, 1):  # 1 is a gate verdict, anything else a broken replay
            raise RuntimeError(f"harness {' '.join(args)} exited {done.returncode}:\n{done.stderr[-4000:]}")
        record.append({"command": ["harness", *(normalise(a, roots) for a in args)], "exit_code": done.returncode})
    files = {COMMANDS: json.dumps(record, indent=2) + "\n", ENVIRONMENT: json.dumps(environment(), indent=2) + "\n"}
    for suite in sorted(path.name for path in reports.iterdir() if path.name != "baselines"):
        for name in RUN_FILES:
            text = (reports / suite / RUN_ID / name).read_text(encoding="utf-8")
            files[f"{suite}/{name}"] = normalise(text, roots)
    for path in sorted(tune_out.parent.iterdir()):
        files[f"tune/{path.name}"] = normalise(path.read_text(encoding="utf-8"), roots)
    return Replay(files)


def environment() -> dict[str, str]:
    """Versions of what draws bytes the harness does not own (the plots)."""
    return {"matplotlib": importlib.metadata.version("matplotlib")}


def comparable(golden: dict[str, str], replayed: dict[str, str]) -> tuple[dict[str, str], dict[str, str], str | None]:
    """The two sets of files as they can be compared here: under another matplotlib than the
    captured one, the plots' PNG digests are left out (and a note says so)."""
    if golden.get(ENVIRONMENT) == replayed.get(ENVIRONMENT):
        return golden, replayed, None

    def without_png_digests(files: dict[str, str]) -> dict[str, str]:
        return {name: _PNG_DIGEST.sub("sha256,<not compared>", text) for name, text in files.items() if name != ENVIRONMENT}

    note = (f"plots not compared: captured with {golden.get(ENVIRONMENT, '{}').strip()}, replayed with "
            f"{replayed.get(ENVIRONMENT, '{}').strip()} (recapture after a deliberate upgrade)")
    return without_png_digests(golden), without_png_digests(replayed), " ".join(note.split())


def read_golden(folder: Path = GOLDEN_DIR) -> dict[str, str]:
    """The captured files under `folder`, by POSIX path relative to it."""
    return {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(folder.rglob("*")) if path.is_file()}


def _readable_lines(name: str, text: str) -> list[str]:
    """Lines to diff: JSON pretty-printed (a results.jsonl row is one long line), else the text."""
    try:
        if name.endswith(".jsonl"):  # each line prefixed with its row's variant/case, which the diff then shows
            lines = []
            for number, raw in enumerate(text.splitlines(), 1):
                row = json.loads(raw)
                label = f"{row.get('variant')}/{row.get('case_id')}" if isinstance(row, dict) else f"row {number}"
                lines.extend(f"{label} | {line}" for line in json.dumps(row, indent=1, ensure_ascii=False).splitlines())
            return lines
        if name.endswith(".json"):
            return json.dumps(json.loads(text), indent=1, ensure_ascii=False).splitlines()
    except ValueError:
        pass
    return text.splitlines()


def _partners(lines: list[str]) -> list[str]:
    """For each `-` line followed by a `+` line (and that `+` line), the line it replaces or is replaced by."""
    partners = [""] * len(lines)
    for i in range(len(lines) - 1):
        if lines[i].startswith("-") and lines[i + 1].startswith("+") and not lines[i].startswith("---"):
            partners[i], partners[i + 1] = lines[i + 1], lines[i]
    return partners


def _crop(line: str, partner: str, width: int) -> str:
    """`line` cut to `width` characters around where it first differs from `partner` (a long HTML
    or JSON line differs far from its start)."""
    if len(line) <= width:
        return line
    head = width // 4  # the line's start stays (a results.jsonl line starts with its row's variant/case)
    same = next((i for i, (a, b) in enumerate(zip(line, partner)) if i and a != b), min(len(line), len(partner)))
    start = max(head, same - width // 3) if partner else head
    end = start + width - head
    return (line[:head] + (" [...] " if start > head else "") + line[start:end]
            + (" [...]" if end < len(line) else ""))


def pipeline_order(names: list[str]) -> list[str]:
    """Golden file names, results before summaries before gates before reports (then the tuning,
    then exit codes): the first that differs names the earliest stage that changed."""
    def key(name: str) -> tuple[int, int, str]:
        folder, _, file = name.rpartition("/")
        if file in RUN_FILES and folder != "tune":
            return (0, RUN_FILES.index(file), name)
        return (1 if folder == "tune" else 2 if name == COMMANDS else 3, 0, name)

    return sorted(names, key=key)


def show_diff(name: str, expected: str, actual: str, *, max_lines: int = 80, max_width: int = 240) -> str:
    """A unified diff of one file, cut to `max_lines` lines of at most `max_width` characters."""
    old, new = _readable_lines(name, expected), _readable_lines(name, actual)
    if old == new:  # equal once parsed: the difference is in the bytes (spacing, escaping, order of lines)
        old, new = expected.splitlines(), actual.splitlines()
    lines = list(difflib.unified_diff(old, new, f"golden/{name}", f"replay/{name}", lineterm="", n=2))
    if not lines:  # equal line by line: line endings or a final newline differ
        lines = [f"golden/{name}: {expected[-40:]!r}", f"replay/{name}: {actual[-40:]!r}"]
    shown = [_crop(line, other, max_width) for line, other in zip(lines[:max_lines], _partners(lines[:max_lines]))]
    if len(lines) > max_lines:
        shown.append(f"[... {len(lines) - max_lines} more diff lines]")
    return "\n".join(shown)
