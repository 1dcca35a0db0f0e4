"""What the file and JSON attack batteries (tests/test_battery_*.py) share: a tiny recorded project
to attack, special files to plant, the CLI run in a bounded subprocess, and the verdicts.

Every attack runs `harness` in its own process, under a memory cap and a time limit: a reader
that hangs on a FIFO or reads /dev/zero without end is a broken attack, not a hung test run (the
limit is a hang detector, not a timing assertion: a held attack ends in well under a second).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HANG_S = 60  # a command still running after this long is hung
MEMORY_CAP = 3 * 1024**3  # an unbounded read ends in MemoryError here, not in the machine's swap
KEY = "sk-test-" + "battery0123456789abcdefgh"

# Kinds of special file a path can be replaced with: none of them is a regular file to read.
SPECIAL = ("fifo", "dev-zero", "folder", "socket", "sparse-3g", "dangling")


@dataclass
class Outcome:
    code: int | None  # None: killed after HANG_S
    out: str
    err: str

    @property
    def hung(self) -> bool:
        return self.code is None

    @property
    def traceback(self) -> bool:
        return "Traceback" in self.err or "MemoryError" in self.err

    def last_line(self) -> str:
        lines = self.err.strip().splitlines()
        return lines[-1] if lines else ""

    def refused(self) -> bool:
        """Exit 2 with our one-line message last, no traceback."""
        return self.code == 2 and not self.traceback and self.last_line().startswith("harness: ")

    def clean(self, codes: tuple[int, ...]) -> bool:
        """Ended with one of `codes`, no traceback; an exit 2 ends with our one-line message."""
        if self.hung or self.traceback or self.code not in codes:
            return False
        return self.code != 2 or self.last_line().startswith("harness: ")

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.out[-1500:]}\n--- stderr\n{self.err[-3000:]}"


def _limits() -> None:  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def cli(cwd: Path, *argv: str, env: dict[str, str] | None = None, timeout: float = HANG_S) -> Outcome:
    """`harness ARGV` in `cwd`, in its own process; stdin is empty."""
    environ = {k: v for k, v in os.environ.items()
               if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CI", "AZURE_OPENAI_ENDPOINT", "HARNESS_WORKERS")}
    # BATTERY_HARNESS: a folder holding another `harness` package to attack (the counts before a fix)
    code = os.pathsep.join(filter(None, (os.environ.get("BATTERY_HARNESS"), str(REPO))))
    environ.update({"PYTHONPATH": code, "COLUMNS": "200", "NO_COLOR": "1"})
    environ.update(env or {})
    try:
        done = subprocess.run([sys.executable, "-c", "import sys; from harness.cli import main; sys.exit(main())", *argv],
                              cwd=cwd, env=environ, capture_output=True, text=True, errors="replace",
                              timeout=timeout, stdin=subprocess.DEVNULL, preexec_fn=_limits)
    except subprocess.TimeoutExpired as exc:
        def text(data: bytes | str | None) -> str:
            return data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")
        return Outcome(None, text(exc.stdout), text(exc.stderr))
    return Outcome(done.returncode, done.stdout, done.stderr)


def remove(path: Path) -> None:
    if path.is_symlink() or path.is_file() or path.is_socket() or path.is_fifo():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def plant_special(path: Path, kind: str) -> None:
    """Put a special file of `kind` (one of SPECIAL) where `path` is."""
    remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    elif kind == "socket":
        with contextlib.chdir(path.parent):  # socket paths are limited to ~100 bytes: bind a relative one
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(path.name)
            sock.close()
    elif kind == "sparse-3g":
        with path.open("wb") as handle:
            handle.truncate(3 * 1024**3)
    elif kind == "dangling":
        path.symlink_to(path.parent / "no-such-file-anywhere")
    else:
        raise ValueError(kind)


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry below `folder`: file bytes, 'dir', or 'link -> target' (what a write outside would change)."""
    seen: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            seen[rel] = f"link -> {os.readlink(path)}"
        elif path.is_dir():
            seen[rel] = "dir"
        elif path.is_file():
            seen[rel] = path.read_bytes()
        else:
            seen[rel] = "special"
    return seen


def big_int(digits: int = 5000) -> str:
    """A JSON integer literal longer than Python's int-string limit (4300 digits by default)."""
    return "9" * digits


def template_project(root: Path, server_url: str) -> Path:
    """The tests' tiny `towns` project in `root`, its cassettes recorded from `server_url`, with a
    finished run `reports/towns/base` and two finished shard runs `s1`, `s2`. Returns `root`."""
    sys.path.insert(0, str(REPO))
    from tests.conftest import write_project

    write_project(root)
    for argv in (("record", "suites/towns.yaml", "--base-url", server_url, "--reports", "scratch"),
                 ("run", "suites/towns.yaml", "--run-id", "base"),
                 ("run", "suites/towns.yaml", "--run-id", "s1", "--shard", "1/2"),
                 ("run", "suites/towns.yaml", "--run-id", "s2", "--shard", "2/2")):
        outcome = cli(root, *argv, env={"OPENAI_API_KEY": KEY})
        if outcome.code != 0:
            raise RuntimeError(f"building the battery's project: harness {' '.join(argv)}: {outcome}")
    shutil.rmtree(root / "scratch")
    return root


def copy_project(template: Path, target: Path) -> Path:
    shutil.copytree(template, target, symlinks=True)
    return target
