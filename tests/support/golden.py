"""Golden outputs of the shipped suites: replay them, and normalise what legitimately varies.

Shared by `scripts/capture_golden.py` (writes `tests/golden/`) and `tests/test_behaviour_unchanged.py`
(replays again and compares by meaning, `tests/support/golden_compare.py`), so both see exactly the
same commands and the same normalisation.

What is replayed is what `make run` does: `harness run suites/*.yaml --record-mode none --gate`
(into a scratch reports folder holding a copy of `reports/baselines/`, with the fixed run id
`golden`) and the podcast tuning replay `harness tune --suite suites/podcast.yaml ... --selection
top --limit 6 --record-mode none`. The harness runs through `tests/support/plot_probe.py`, which is
`python -m harness.cli` plus a note of what each saved plot plots.

Normalised, and nothing else:
- timings: the number under any JSON key ending in `_s` (`latency_s`, `latency_total_s`, `wall_s`);
- timestamps: the value of JSON `created_at`;
- the scratch folder's absolute path (a baseline's path in gate.json and report.md, the tuned files'
  paths in the tuning report), which becomes `<OUT>`;
- plots, by what they plot: each run's `plots/<name>.png` is stored as `plots/<name>.png.json`, the
  description of the figure that drew it (`plot_probe.describe`: size and dpi, bars, points, lines,
  texts, labels, limits, in data coordinates; a PNG no probed `savefig` wrote: its pixel size and SHA-256), and report.html's embedded copy of it
  (`data:image/png;base64,...`) becomes a link to it, `src="plots/<name>.png"` (an embedded PNG that
  is no plot file becomes `report-images/<n>.png`, with its own `.png.json`). A plot that changes
  what it draws fails; one drawn by another matplotlib or FreeType (other glyphs, axes a few pixels
  elsewhere) does not (plot_probe's docstring says why the pixels cannot tell those apart): checked
  by replaying under matplotlib 3.9.4 against a capture made with 3.11.2.
- report.html's style sheet, the same in every report: its `<style>` block becomes
  `<style data-sha256='...'></style>`, the SHA-256 of what it held, so a changed style still fails
  (the digest differs) while the golden folder holds no copy of the harness's CSS per suite.
Run ids are fixed, so they are not normalised. `environment.json` records the matplotlib version of
the capture, shown when a plot differs; it is not compared.
"""

from __future__ import annotations

import base64
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

from .golden_compare import differences
from .plot_probe import PROBE_ENV, png_size

REPO = Path(__file__).resolve().parents[2]
GOLDEN_DIR = REPO / "tests" / "golden"
PROBE = Path(__file__).resolve().parent / "plot_probe.py"
RUN_ID = "golden"
# In pipeline order: when several differ, the earliest names the stage that changed.
# case_diffs.jsonl: only a run that compares variants has one (summary schema 2)
RUN_FILES = ("results.jsonl", "summary.json", "case_diffs.jsonl", "gate.json", "report.md", "junit.xml", "report.html")
OPTIONAL_RUN_FILES = ("case_diffs.jsonl",)
PLOT_SUFFIX = ".png.json"  # a plot's description, stored in place of the PNG
TUNE_NAME = "podcast-auto"
COMMANDS = "commands.json"
# The matplotlib version of the capture: not compared (plots are compared by what they plot), shown
# when a plot differs, in case the difference is matplotlib's (an autoscaled limit, say).
ENVIRONMENT = "environment.json"

# Credentials and endpoints change what is redacted or where calls go; replay needs none of them.
_SCRUBBED_ENV = re.compile(r"^(OPENAI_|AZURE_OPENAI_)")

_TIMING = re.compile(r'(?<!\\)("[A-Za-z0-9_]*_s")(\s*:\s*)-?[0-9][0-9.eE+-]*')
_CREATED_AT = re.compile(r'(?<!\\)("created_at")(\s*:\s*)"[^"\\]*"')
_EMBEDDED_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
_STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)


def normalise(text: str, scratch_roots: list[str]) -> str:
    """`text` with timings, timestamps and the scratch folder replaced."""
    for root in sorted(set(scratch_roots), key=len, reverse=True):
        text = text.replace(root, "<OUT>")
    text = _TIMING.sub(r'\1\2"<timing>"', text)
    return _CREATED_AT.sub(r'\1\2"<timestamp>"', text)


def digest_style(html: str) -> str:
    """`html` with each `<style>` block's content replaced by its SHA-256 (see the module docstring)."""
    return _STYLE.sub(lambda m: f"<style data-sha256='{hashlib.sha256(m.group(1).encode()).hexdigest()}'></style>", html)


def plot_record(png: bytes, probe: Path | None) -> str:
    """The golden text of one PNG: its pixel size and what it plots (the probe's description of the
    figure saved as these bytes); a PNG no probed `savefig` wrote keeps its SHA-256 instead."""
    described = probe / f"{hashlib.sha256(png).hexdigest()}.json" if probe is not None else None
    if described is not None and described.is_file():
        # no pixel size: the description's inches and dpi say it, and matplotlib 3.9 makes 4.6 in at
        # 100 dpi 459 pixels high where 3.11 makes it 460
        record: dict[str, object] = {"plots": json.loads(described.read_text(encoding="utf-8"))}
    else:
        width, height = png_size(png) or (0, 0)
        record = {"png": {"width": width, "height": height, "sha256": hashlib.sha256(png).hexdigest()}}
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def link_images(html: str, plots: dict[str, bytes], probe: Path | None) -> tuple[str, dict[str, str]]:
    """`html` with each embedded PNG replaced by the relative path of the plot file with the same
    bytes (`plots/metrics.png`), or of a new `report-images/<n>.png`; and the records of those new ones."""
    by_digest = {hashlib.sha256(png).hexdigest(): name for name, png in plots.items()}
    extra: dict[str, str] = {}

    def link(match: re.Match[str]) -> str:
        png = base64.b64decode(match.group(1))
        name = by_digest.get(hashlib.sha256(png).hexdigest())
        if name is None:
            name = f"report-images/{len(extra) + 1}.png"
            extra[name] = plot_record(png, probe)
            by_digest[hashlib.sha256(png).hexdigest()] = name
        return name

    return _EMBEDDED_PNG.sub(link, html), extra


@dataclass
class Replay:
    """Normalised outputs by their path under tests/golden/ (POSIX), and the commands' exit codes."""

    files: dict[str, str]


def _harness(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(PROBE), *args], cwd=REPO, env=env,
                          capture_output=True, text=True, encoding="utf-8", check=False)


def replay(scratch: Path) -> Replay:
    """Replay the shipped suites and the podcast tuning into `scratch`; the normalised outputs."""
    scratch.mkdir(parents=True, exist_ok=True)
    reports = scratch / "reports"
    shutil.copytree(REPO / "reports" / "baselines", reports / "baselines")  # the gate's regression rules
    tune_out = scratch / "tune" / f"{TUNE_NAME}.yaml"
    probe = scratch / "plot-probe"
    env = {key: value for key, value in os.environ.items() if not _SCRUBBED_ENV.match(key)}
    env[PROBE_ENV] = str(probe)
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
        run = reports / suite / RUN_ID
        plots = {path.relative_to(run).as_posix(): path.read_bytes() for path in sorted((run / "plots").glob("*.png"))}
        for name, png in plots.items():
            files[f"{suite}/{name[:-len('.png')]}{PLOT_SUFFIX}"] = plot_record(png, probe)
        for name in RUN_FILES:
            if name in OPTIONAL_RUN_FILES and not (run / name).exists():
                continue
            text = normalise((run / name).read_text(encoding="utf-8"), roots)
            if name == "report.html":
                text, images = link_images(digest_style(text), plots, probe)
                files.update({f"{suite}/{image[:-len('.png')]}{PLOT_SUFFIX}": data for image, data in images.items()})
            files[f"{suite}/{name}"] = text
    for path in sorted(tune_out.parent.iterdir()):
        files[f"tune/{path.name}"] = normalise(path.read_text(encoding="utf-8"), roots)
    return Replay(files)


def environment() -> dict[str, str]:
    """Versions of what draws what the harness does not own (the plots)."""
    return {"matplotlib": importlib.metadata.version("matplotlib")}


def read_golden(folder: Path = GOLDEN_DIR) -> dict[str, str]:
    """The captured files under `folder`, by POSIX path relative to it."""
    return {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(folder.rglob("*")) if path.is_file()}


def pipeline_order(names: list[str]) -> list[str]:
    """Golden file names, results before summaries before gates before reports and their plots
    (then the tuning, then exit codes): the first that differs names the earliest stage that changed."""
    def key(name: str) -> tuple[int, int, str]:
        folder, _, file = name.rpartition("/")
        if file in RUN_FILES and folder != "tune":
            return (0, RUN_FILES.index(file), name)
        if name.endswith(PLOT_SUFFIX):
            return (0, len(RUN_FILES), name)
        return (1 if folder == "tune" else 2 if name == COMMANDS else 3, 0, name)

    return sorted(names, key=key)


def compare(golden: dict[str, str], replayed: dict[str, str], *, first_lines: int = 40,
            other_lines: int = 4, other_files: int = 8) -> str | None:
    """None when the replay means the same as the golden files; else a report: the files that
    differ in pipeline order, the first in detail (`first_lines`), a few lines of the next ones."""
    versions = golden.get(ENVIRONMENT), replayed.get(ENVIRONMENT)
    golden = {name: text for name, text in golden.items() if name != ENVIRONMENT}
    replayed = {name: text for name, text in replayed.items() if name != ENVIRONMENT}
    found: dict[str, list[str]] = {}
    for name in pipeline_order(sorted(set(golden) | set(replayed))):
        if name not in replayed:
            found[name] = ["only in tests/golden/: the replay no longer writes it"]
        elif name not in golden:
            found[name] = ["only in the replay: not in tests/golden/"]
        elif golden[name] != replayed[name]:
            lines = differences(name, golden[name], replayed[name], max_lines=first_lines if not found else other_lines)
            if lines:
                found[name] = lines
    if not found:
        return None
    names = list(found)
    out = [f"{len(names)} file(s) differ in meaning from tests/golden/: {', '.join(names)}"]
    for name in names[: 1 + other_files]:
        out.append(f"{name}:")
        out.extend(f"  {line}" for line in found[name])
    if len(names) > 1 + other_files:
        out.append(f"[... {len(names) - 1 - other_files} more files]")
    if versions[0] != versions[1] and any(name.endswith(PLOT_SUFFIX) for name in names):
        out.append(" ".join(f"(plots captured with {versions[0] or '{}'}, replayed with {versions[1] or '{}'}: a "
                            "difference in an autoscaled limit may be matplotlib's)".split()))
    return "\n".join(out)
