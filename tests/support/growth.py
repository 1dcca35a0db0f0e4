"""Bounded-work checks measured as growth in CPU instructions, never in seconds.

A pathological input is built at doubling sizes (n/8 ... 2n) and fn is run on each; the number of
CPU instructions each run executes is counted by valgrind's callgrind, which gives the same count
whatever else the machine is doing. A linear algorithm gives a ratio of at most 2 per doubling
(less while fixed costs still weigh), a quadratic one tends to 4. Timings (the old way) failed
under load ("grew 3.0x; expected at most 3.0x").

How: one valgrind process per test session (started on first use, ~10 s of CPU for Python,
harness and pytest under valgrind) runs every measurement. Callgrind collects only inside the C
function functools_reduce and writes one profile per call, so each measurement is
`functools.reduce(lambda _a, _b: fn(x), [0], None)` with x built beforehand, and its profile's
`totals:` line is the instruction count of fn(x) alone. fn and make_input travel to that process
by pickle: pass module-level functions, `functools.partial` of them, or `Repeat`, not lambdas.

Without valgrind the checks skip (CI installs it: .ci/run).
"""

from __future__ import annotations

import atexit
import functools
import gc
import json
import os
import pickle
import selectors
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Doubling the input may at most multiply the instructions by this. Linear code measures 1.3-2.1
# on every check here (2.1: dict and list resizes that fall in one size and not the other); a
# quadratic part worth a third of the linear work already gives 2.6, a dominant one about 4.
LIMIT = 2.6
# A hang guard, not a speed check: a measurement that runs this long has lost its way (valgrind
# runs Python about 50x slower; the largest check here takes a few seconds).
HANG_GUARD_S = 900.0


@dataclass(frozen=True)
class Repeat:
    """make_input for `before + unit * n + after`: picklable, unlike the lambda it replaces."""

    unit: str
    before: str = ""
    after: str = ""

    def __call__(self, n: int) -> str:
        return self.before + self.unit * n + self.after


def sizes_for(n: int) -> list[int]:
    """n/8, n/4, n/2, n, 2n, each twice the last (n/8 rounded): from small sizes up, so a
    quadratic fn fails before the big ones."""
    base = max(1, round(n / 8))
    return [base << k for k in range(5)]


class _Worker:
    """The session's valgrind process: a job in (a pickle file's name), its counts out (JSON)."""

    def __init__(self, valgrind: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="growth-"))
        self.jobs = 0
        self.log = self.dir / "valgrind.log"
        self.proc = subprocess.Popen(
            [valgrind, "--tool=callgrind", f"--callgrind-out-file={self.dir}/cg.%p", "--collect-atstart=no",
             "--toggle-collect=functools_reduce", "--dump-after=functools_reduce", f"--log-file={self.log}",
             sys.executable, "-c", "from tests.support.growth import serve; serve()"],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        atexit.register(self.close)

    def measure(self, pickled: bytes) -> list[tuple[int, int]]:
        """The counts of one pickled (fn, make_input, sizes, limit)."""
        self.jobs += 1
        job = self.dir / f"job-{self.jobs}.pkl"
        job.write_bytes(pickled)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{job}\n".encode())
        self.proc.stdin.flush()
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if not sel.select(HANG_GUARD_S):
                self.close()
                raise AssertionError(f"no count after {HANG_GUARD_S:.0f} s: the measured function seems to hang")
        line = self.proc.stdout.readline()
        if not line:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"the valgrind worker ended (exit {self.proc.wait()}):\n{log}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"measuring under valgrind failed:\n{reply['error']}")
        return [(size, count) for size, count in reply["counts"]]

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@functools.cache
def _worker() -> _Worker:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        pytest.skip("valgrind is not installed: growth is counted in CPU instructions by callgrind "
                    "(apt-get install valgrind)")
    return _Worker(valgrind)


def instruction_counts(fn: Callable[[Any], object], make_input: Callable[[int], Any], sizes: list[int],
                       *, limit: float = float("inf")) -> list[tuple[int, int]]:
    """(size, instructions of fn(make_input(size))) for each size, stopping after the first
    doubling that grows more than `limit`-fold (the next sizes would only take longer)."""
    try:
        job = pickle.dumps((fn, make_input, sizes, limit))
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise TypeError("assert_linear runs fn and make_input in another process: pass module-level "
                        f"functions, functools.partial of them or Repeat, not lambdas or closures ({exc})") from None
    return _worker().measure(job)


def _name(fn: Callable[..., object]) -> str:
    if isinstance(fn, functools.partial):
        given = [repr(a) for a in fn.args] + [f"{k}={type(v).__name__ if not isinstance(v, (str, int)) else repr(v)}"
                                                for k, v in fn.keywords.items()]
        return f"{_name(fn.func)}(_, {', '.join(given)})"
    return getattr(fn, "__qualname__", repr(fn))


def assert_linear(fn: Callable[[Any], object], make_input: Callable[[int], Any], n: int,
                  *, limit: float = LIMIT) -> None:
    """Fail when doubling the input (from n/8 up to 2n) more than `limit`-folds the instructions
    fn executes: linear work gives at most 2, quadratic about 4."""
    counts = instruction_counts(fn, make_input, sizes_for(n), limit=limit)
    shown = ", ".join(f"{size}: {count:,}" for size, count in counts)
    ratios = [after / max(before, 1) for (_, before), (_, after) in zip(counts, counts[1:])]
    print(f"growth of {_name(fn)} n={n}: {shown}; ratios {', '.join(f'{r:.2f}' for r in ratios)}")
    for (small, before), (large, after) in zip(counts, counts[1:]):
        ratio = after / max(before, 1)
        assert ratio <= limit, (f"instructions grew {ratio:.2f}x from n={small} to n={large}; expected at most "
                                f"{limit}x (instructions by size: {shown})")


# ------------------------------------------------------------------------ in the valgrind process


def _profile_count(path: Path) -> int:
    """The `totals:` line of one callgrind profile: instructions executed while collecting."""
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError(f"{path.name} has no totals line")


def _measure_once(fn: Callable[[Any], object], arg: Any, out_dir: Path, prefix: str) -> int:
    """Instructions of fn(arg): run inside functools.reduce, the one C function callgrind collects in."""
    before = {p.name for p in out_dir.glob(prefix + "*")}
    gc.collect()
    functools.reduce(lambda _a, _b: fn(arg), [0], None)
    new = [p for p in out_dir.glob(prefix + "*") if p.name not in before]
    if len(new) != 1:
        raise RuntimeError(f"expected one callgrind profile per measurement, got {len(new)}: "
                           "does fn call functools.reduce itself?")
    count = _profile_count(new[0])
    new[0].unlink()
    return count


def serve() -> None:
    """The worker's loop (run under valgrind by _Worker): one job per line of stdin."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # fn's prints must not garble the replies
    sys.path.insert(0, str(ROOT))
    prefix = f"cg.{os.getpid()}."
    for line in sys.stdin:
        job = Path(line.strip())
        try:
            fn, make_input, sizes, limit = pickle.loads(job.read_bytes())
            fn(make_input(sizes[0]))  # warm: imports, regex compilation, caches
            counts: list[tuple[int, int]] = []
            for size in sizes:
                arg = make_input(size)
                counts.append((size, _measure_once(fn, arg, job.parent, prefix)))
                del arg
                if len(counts) > 1 and counts[-1][1] > limit * max(counts[-2][1], 1):
                    break
            reply: dict[str, Any] = {"counts": counts}
        except BaseException:  # noqa: BLE001 - reported to the test, which fails naming it
            reply = {"error": traceback.format_exc()}
        out.write(json.dumps(reply) + "\n")
        out.flush()
