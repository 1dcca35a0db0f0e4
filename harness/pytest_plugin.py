"""Suites as pytest items: `pytest suites/` runs every case × variant of every suite file.

Registered through the `pytest11` entry point, so it is loaded by every pytest in the
environment, but it only collects suite YAML files when asked:

- a path given to pytest is the suite file itself (`pytest suites/podcast.yaml`), or a folder
  named `suites` that holds it (`pytest suites/`); or
- `--harness-suites` is given: every suite file under the paths pytest collects is a suite
  (a YAML mapping with `variants` and `cases`; other YAML files are left alone).

Each suite runs once per session (replaying cassettes by default: `--harness-record-mode`), and
writes its usual outputs to `--harness-reports` (default `reports/`). Its items are
`<suite file>::<variant>::<case>`: an item fails when the case breaks a per-case rule as the gate
judges it (`harness.gate.case_checks`: no score, a drop larger than `case_max_drop` against the
baseline, or a score below a threshold the variant fails) and its message names the missed
entities and relationships; a score below a threshold the variant meets on average passes with a
`CaseWarning`, as `harness run --gate` passes it. With
`--harness-gate` each suite gets one more item, `<suite file>::gate`, that fails when the run
fails the gate (thresholds and regression against `--harness-baseline`, default
`<reports>/baselines/<suite>.json`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle

    from .artifacts import CaseCheck, RunSummary, Verdict
    from .run.schedule import RunOutcome
    from .suites import Suite


GATE_ITEM = "gate"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kg-prompt-harness", "knowledge-graph prompt suites (kg-prompt-harness)")
    group.addoption("--harness-suites", action="store_true", default=False,
                    help="Collect every suite YAML file under the given paths (otherwise only suite files named "
                         "on the command line, or held by a folder named 'suites' named on it).")
    group.addoption("--harness-record-mode", default=None, metavar="MODE",
                    help="none (replay only; the default, and always with CI set), once, rewrite or all.")
    group.addoption("--harness-gate", action="store_true", default=False,
                    help="Add a `gate` item per suite that fails when the run fails the gate.")
    group.addoption("--harness-baseline", default=None, metavar="PATH",
                    help="Baseline file or folder of <suite>.json (default: <reports>/baselines/<suite>.json).")
    group.addoption("--harness-reports", default="reports", metavar="DIR",
                    help="Folder for the runs' outputs (default: reports).")
    group.addoption("--harness-allow-changed-gold", action="store_true", default=False,
                    help="Gate against a baseline scored on other gold (refused by default), with a warning.")


def _asked_paths(config: pytest.Config) -> list[Path]:
    base = Path(config.invocation_params.dir)
    out = []
    for arg in config.args:
        text = str(arg).split("::", 1)[0]
        if text:
            out.append((base / text).resolve())
    return out


def _wanted(file_path: Path, config: pytest.Config) -> bool:
    if config.getoption("--harness-suites"):
        return True
    resolved = file_path.resolve()
    for asked in _asked_paths(config):
        if asked == resolved:
            return True
        if asked.is_dir() and asked.name == "suites" and asked in resolved.parents:
            return True
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix not in (".yaml", ".yml") or not _wanted(file_path, parent.config):
        return None
    if not _looks_like_suite(file_path):
        return None
    return SuiteFile.from_parent(parent, path=file_path)


def _looks_like_suite(path: Path) -> bool:
    from .errors import InputError
    from .yamlfile import load_yaml

    try:
        data, _ = load_yaml(path)  # bounded like every user YAML file (no bomb, FIFO or device hangs here)
    except InputError:  # a broken YAML file in a suites folder is reported by load_suite
        return path.parent.name == "suites"
    return isinstance(data, dict) and "cases" in data and "variants" in data


# --------------------------------------------------------------------------- the run, once per suite


class SuiteRun:
    """Runs a suite once, on first use, and keeps what the items need."""

    def __init__(self, suite: Suite, config: pytest.Config) -> None:
        self.suite = suite
        self.config = config
        self.selected: set[tuple[str, str]] | None = None
        self.done = False
        self.error: str | None = None
        self.outcome: RunOutcome | None = None
        self.summary: RunSummary | None = None  # of a finished run
        self.verdict: Verdict | None = None
        self.checks: dict[tuple[str, str], CaseCheck] = {}
        self.missing: dict[tuple[str, str], str] = {}
        self.rerecord_all: str | None = None  # one command for every missing or stale cassette
        self.failures: dict[tuple[str, str], str] = {}
        # the default baseline could not be used (unreadable, or scored on other gold): the gate item fails with it
        self.baseline_error: str | None = None

    def record_mode(self) -> str:
        from .llm.record_modes import RECORD_MODES, default_record_mode

        mode = self.config.getoption("--harness-record-mode") or default_record_mode("run")
        if mode not in RECORD_MODES:
            raise pytest.UsageError(f"--harness-record-mode: '{mode}' is not one of {', '.join(RECORD_MODES)}")
        return mode

    def ensure(self) -> None:
        if self.done:
            return
        self.done = True
        from .errors import HarnessError
        from .finish import finish_run
        from .run.schedule import RunOptions, case_order, rerecord_command, run_suite

        variants = cases = None
        if self.selected is not None:
            variants = sorted({v for v, _ in self.selected})
            cases = sorted({c for _, c in self.selected})
        reports = Path(self.config.getoption("--harness-reports"))
        if not reports.is_absolute():
            reports = Path(self.config.invocation_params.dir) / reports
        baseline_opt = self.config.getoption("--harness-baseline")
        baseline = None
        if baseline_opt:
            baseline = Path(baseline_opt)
            if not baseline.is_absolute():
                baseline = Path(self.config.invocation_params.dir) / baseline
        mode = self.record_mode()
        try:
            outcome = run_suite(self.suite, RunOptions(record_mode=mode, reports_dir=reports, fresh=True,
                                                       variants=variants, cases=cases))
            self.outcome = outcome
            # the mode is spelled out: `harness record` defaults to `none` when CI is set
            order = case_order(self.suite)  # once: a hint per missing cassette must not cost the whole suite
            for unsettled in outcome.missing:
                variant, case, why = unsettled.cassette
                self.missing[(variant, case)] = (
                    f"cassette {why}: record it with `{rerecord_command(self.suite, [(variant, case, why)], order=order)}`")
            self.rerecord_all = (rerecord_command(self.suite, [m.cassette for m in outcome.missing])
                                 if outcome.missing else None)
            for failed in outcome.failures:
                self.failures[(failed.variant, failed.case_id)] = failed.message
            if outcome.missing or outcome.failures:
                # like `harness run`: an incomplete run keeps no summary (a rerun resumes it)
                self.verdict = None
                if outcome.results:
                    from .gate import case_checks, gate_config

                    self.checks = case_checks(outcome.results, gate_config(self.suite))
                return
            finished = finish_run(self.suite, outcome.run_dir, outcome.results, record_mode=mode,
                                  wall_s=outcome.wall_s, entity_types=outcome.entity_types, baseline=baseline,
                                  prompts=outcome.prompts,
                                  allow_changed_gold=self.config.getoption("--harness-allow-changed-gold"))
            self.summary, self.verdict, self.checks = finished.summary, finished.verdict, finished.checks
            if finished.baseline_error is not None:
                self.baseline_error = finished.baseline_error.message
        except HarnessError as exc:
            self.error = exc.message
        except Exception as exc:  # a bug: its traceback goes to the first item, the others name it
            self.error = f"{type(exc).__name__}: {exc}"
            raise


_RUNS_KEY = pytest.StashKey[dict[str, SuiteRun]]()


def _runs(config: pytest.Config) -> dict[str, SuiteRun]:
    runs = config.stash.get(_RUNS_KEY, None)
    if runs is None:
        runs = {}
        config.stash[_RUNS_KEY] = runs
    return runs


# --------------------------------------------------------------------------- collection


class SuiteFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        from .errors import HarnessError
        from .suites import load_suite

        try:
            suite = load_suite(self.path)
        except HarnessError as exc:
            raise self.CollectError(exc.message) from None
        run = SuiteRun(suite, self.config)
        _runs(self.config)[self.nodeid] = run
        for variant in suite.variant_names():
            yield VariantCollector.from_parent(self, name=variant, run=run)
        if self.config.getoption("--harness-gate"):
            name = GATE_ITEM if GATE_ITEM not in suite.variant_names() else f"{GATE_ITEM}-verdict"
            yield GateItem.from_parent(self, name=name, run=run)


class VariantCollector(pytest.Collector):
    def __init__(self, *, run: SuiteRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        for case in self.run.suite.variant_cases(self.name):
            yield CaseItem.from_parent(self, name=case.id, run=self.run, variant=self.name)


class CaseFailure(Exception):
    """A case that breaks a per-case rule (its message is the whole report)."""


class CaseWarning(UserWarning):
    """A case below a threshold its variant meets on average: the gate passes it, with a warning."""


class CaseItem(pytest.Item):
    def __init__(self, *, run: SuiteRun, variant: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.variant = variant
        self.case_id = self.name
        self.user_properties.append(("suite", run.suite.name))
        self.user_properties.append(("variant", variant))

    def runtest(self) -> None:
        run = self.run
        run.ensure()
        key = (self.variant, self.case_id)
        head = f"{run.suite.name} / {self.variant} / {self.case_id}"
        if run.error:
            raise CaseFailure(f"{head}: the suite could not run: {run.error}")
        if key in run.missing:
            raise CaseFailure(f"{head}: {run.missing[key]}")
        if key in run.failures:
            raise CaseFailure(f"{head}: model call failed: {run.failures[key]}")
        check = run.checks.get(key)
        if check is None:
            raise CaseFailure(f"{head}: no result (the run produced no row for this case)")
        results = run.outcome.results if run.outcome is not None else []
        row = next((r for r in results if (r.variant, r.case_id) == key), None)
        if row is not None and row.score is not None:
            # here: a pytest run that collects no suite loads none of it
            from .gate import effective_thresholds
            from .metrics.registry import get, key_figures
            from .scoring.case_metrics import measured

            # the key figures, then every other metric the variant has a threshold on (a count too)
            limits = effective_thresholds(run.suite.spec.thresholds, self.variant)
            shown = [*key_figures(run.suite.spec.kind), *(m for name in limits if (m := get(name)) is not None)]
            values = measured(row)  # computed when the case was scored
            for metric in dict.fromkeys(shown):
                self.user_properties.append((metric.name, None if values is None else values.value(metric.name)))
        if not check.passed:
            details = check.details()
            raise CaseFailure(f"{head}: {check.message()}" + (f"\n{details}" if details else ""))
        if check.warnings:  # the gate passes it (the variant meets the threshold on average): so does the item
            import warnings

            warnings.warn(CaseWarning(f"{head}: {check.warning_message()}"), stacklevel=1)
        if check.unchecked:
            pytest.skip(f"{head}: {check.skip_reason()}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.run.suite.name}::{self.variant}::{self.case_id}"


class GateItem(pytest.Item):
    def __init__(self, *, run: SuiteRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run

    def runtest(self) -> None:
        run = self.run
        run.ensure()
        if run.error:
            raise CaseFailure(f"{run.suite.name}: gate not evaluated: {run.error}")
        if run.verdict is None:
            hint = f"; record every missing or stale cassette with `{run.rerecord_all}`" if run.rerecord_all else ""
            raise CaseFailure(f"{run.suite.name}: gate not evaluated: the run is incomplete "
                              f"({len(run.missing)} missing cassette(s), {len(run.failures)} failed call(s)){hint}")
        if run.baseline_error is not None:  # as `harness run --gate`: no verdict against an unusable baseline
            raise CaseFailure(f"{run.suite.name}: gate not evaluated: {run.baseline_error}")
        if run.verdict.status == "fail":
            raise CaseFailure("\n".join(run.verdict.lines()))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.run.suite.name}::gate"


# --------------------------------------------------------------------------- session hooks


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run only what was selected (-k, node ids): the union of the selected variants and cases."""
    selected: dict[int, set[tuple[str, str]]] = {}
    gated: set[int] = set()
    for item in items:
        if isinstance(item, CaseItem):
            selected.setdefault(id(item.run), set()).add((item.variant, item.case_id))
        elif isinstance(item, GateItem):
            gated.add(id(item.run))
    for run in _runs(config).values():
        if id(run) in gated:
            run.selected = None  # the gate needs every case
        elif id(run) in selected:
            run.selected = selected[id(run)]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    runs = [run for run in _runs(config).values() if run.done]
    if not runs:
        return
    terminalreporter.section("kg-prompt-harness")
    for run in runs:
        if run.error:
            terminalreporter.write_line(f"{run.suite.name}: could not run: {run.error}")
            continue
        where = run.outcome.run_dir if run.outcome is not None else "?"
        if run.verdict is None:
            terminalreporter.write_line(f"{run.suite.name}: incomplete run ({where}); no reports written")
            continue
        terminalreporter.write_line(f"{run.suite.name}: gate {run.verdict.status.upper()} — reports in {where}")
        for rule in run.verdict.failed() + run.verdict.warned():
            terminalreporter.write_line(f"  {rule.status.upper()}  {rule.variant}: {rule.message}")
