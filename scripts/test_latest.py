"""`make test-latest`: run the tests under the newest versions pyproject.toml allows, on purpose.

`make test` installs requirements.lock, so a fresh machine gets what CI tested. This script finds
drift before a user does: it installs the package with the newest versions its own ranges allow
into a separate venv, prints which packages moved past the lock, and runs every test. When tests
fail, it puts each moved package back to its locked version, one at a time, and reruns just the
failing tests: a package whose locked version makes them pass is named as the one that broke them.

Exit codes: 0 all tests pass with the newest versions; 1 tests fail (the culprits are named, or
the message says no single package explains the failure); 2 the venv could not be installed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `name==version ; marker \` — one pinned requirement of the lock (hash lines follow it)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")
# set for the tests run here (tests/test_lock.py reads it)
LATEST_ENV = "KG_HARNESS_TEST_LATEST"
# pytest's short summary: `FAILED tests/x.py::test[p] - message` and `ERROR tests/x.py - message`
SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - .*)?$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_pins(lock: Path) -> list[tuple[str, str, str | None]]:
    """(canonical name, version, marker or None) of every pin in the lock, in its order."""
    pins = []
    for line in lock.read_text(encoding="utf-8").splitlines():
        match = PIN.match(line)
        if match:
            pins.append((canonical(match[1]), match[2], match[3]))
    return pins


def run(cmd: list[str], *, capture: bool = False) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, text=True, capture_output=capture, check=False)


def venv_python(venv: Path) -> str:
    return str(venv / "bin" / "python")


def install_latest(venv: Path) -> bool:
    if not (venv / "bin" / "python").exists():
        if run([sys.executable, "-m", "venv", str(venv)]).returncode:
            return False
    python = venv_python(venv)
    steps = [
        # the build requirements are locked too (build-requirements.in): the newest of them as well
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--upgrade", "pip", "setuptools", "wheel"],
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--upgrade",
         "--upgrade-strategy", "eager", "-e", ".[test,ray]"],
    ]
    return all(run(step).returncode == 0 for step in steps)


def applicable_locked_versions(venv: Path, pins: list[tuple[str, str, str | None]]) -> dict[str, str]:
    """The locked version of each package for the venv's interpreter and platform (markers
    evaluated there, with the `packaging` the tests install)."""
    program = (
        "import json, sys\n"
        "from packaging.markers import Marker\n"
        "pins = json.load(sys.stdin)\n"
        "print(json.dumps({n: v for n, v, m in pins if m is None or Marker(m).evaluate()}))\n")
    done = subprocess.run([venv_python(venv), "-c", program], input=json.dumps(pins), text=True,
                          capture_output=True, check=True)
    return dict(json.loads(done.stdout))


def installed_versions(venv: Path) -> dict[str, str]:
    done = subprocess.run([venv_python(venv), "-m", "pip", "list", "--format", "json",
                           "--disable-pip-version-check"], text=True, capture_output=True, check=True)
    return {canonical(row["name"]): row["version"] for row in json.loads(done.stdout)}


def failing_tests(output: str) -> list[str]:
    """Node ids of the failed and errored tests in pytest's `-rfE` short summary."""
    found = []
    for line in output.splitlines():
        match = SUMMARY.match(line.strip())
        if match and match[2] not in found:
            found.append(match[2])
    return found


def pytest(venv: Path, args: list[str], workers: str) -> subprocess.CompletedProcess[str]:
    cmd = [venv_python(venv), "-m", "pytest", "-q", "-rfE", "-p", "no:randomly"]
    if workers not in ("0", ""):
        cmd += ["-n", workers, "--dist", "loadgroup"]
    # tests that check the venv against the lock skip here: these versions differ from it on purpose
    done = subprocess.run(cmd + args, cwd=ROOT, text=True, capture_output=True, check=False,
                          env={**os.environ, LATEST_ENV: "1"})
    print("+", " ".join(cmd + args), flush=True)
    sys.stdout.write(done.stdout[-4000:])
    sys.stderr.write(done.stderr[-2000:])
    return done


def set_version(venv: Path, name: str, version: str) -> bool:
    return run([venv_python(venv), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                "--no-deps", f"{name}=={version}"]).returncode == 0


def find_culprits(moved: list[tuple[str, str, str]], set_to: Callable[[str, str], bool],
                  failing_tests_pass: Callable[[], bool]) -> list[str]:
    """Each moved package (name, locked, newest) whose locked version, alone, makes the failing
    tests pass: put back, rerun, restore the newest before trying the next."""
    culprits = []
    for name, old, new in moved:
        if not set_to(name, old):
            continue
        if failing_tests_pass():
            culprits.append(f"{name} {new} (locked: {old})")
        set_to(name, new)
    return culprits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv-latest")
    parser.add_argument("--lock", type=Path, default=ROOT / "requirements.lock")
    parser.add_argument("--workers", default="auto", help="pytest-xdist workers (0: one process)")
    args = parser.parse_args(argv)

    if not install_latest(args.venv):
        print("test-latest: could not install the newest versions (see pip's output above)", file=sys.stderr)
        return 2
    locked = applicable_locked_versions(args.venv, locked_pins(args.lock))
    latest = installed_versions(args.venv)
    moved = [(name, locked[name], latest[name]) for name in locked
             if name in latest and latest[name] != locked[name] and name != "kg-prompt-harness"]
    if moved:
        print("test-latest: newer than the lock: " + ", ".join(f"{n} {old} -> {new}" for n, old, new in moved))
    else:
        print("test-latest: the newest versions are the locked ones")

    done = pytest(args.venv, [], args.workers)
    if done.returncode == 0:
        print("test-latest: every test passes with the newest versions")
        return 0
    failed = failing_tests(done.stdout)
    if not failed:
        print(f"test-latest: pytest exited {done.returncode} without naming a failing test", file=sys.stderr)
        return 1
    print(f"test-latest: {len(failed)} test(s) fail with the newest versions; looking for the package")
    culprits = find_culprits(moved, lambda name, version: set_version(args.venv, name, version),
                             lambda: pytest(args.venv, failed, "0").returncode == 0)
    shown = ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
    if culprits:
        print(f"test-latest: FAILED: {'; '.join(culprits)} breaks {shown}", file=sys.stderr)
    else:
        print(f"test-latest: FAILED: {shown}; no single package's locked version makes them pass "
              f"(moved: {', '.join(f'{n} {new}' for n, _, new in moved) or 'none'})", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
