"""The files of `harness view`: `index.html` (the index of every suite's runs, embedded as inert
JSON), `view.js` (the page's one script, package data), and `data/` (one script file per run, per
precomputed pair of runs and per graph diff of `<reports>/diffs/`, loaded when a view needs it).

The page opens from a folder (file://), where a page may not fetch() its neighbours but may load
a `<script src>`: so each data file is a script that hands its JSON to the page
(`harnessView.loaded(key, data)`). The Content-Security-Policy allows scripts of the site's own
folder only ('self'; `file:` for browsers whose file pages have no 'self'), inline styles, and
nothing else: no network, no inline script, no form, no `javascript:` URL. Names are never made
from run or case ids: every data file is named by a digest.

Data files are reused while their run's files are unchanged (`scan.FoundRun.stamp`), so a
rebuild after one new run reads one run's rows and computes its pairs only; files no run names
any more are removed.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..annotate.page import embed_json
from ..atomicfile import atomic_write
from ..confined import make_folder
from ..errors import InputError
from ..runfolder import read_commit, read_rows
from .casedata import case_values, run_case_data
from .diffs import FoundDiff, diff_entry, find_diffs
from .figures import metric_entry, series, suite_figures
from .pairs import pair_statistics
from .scan import FoundRun, find_runs

DATA_VERSION = "1"  # part of every data file's name: a new layout never reuses an old file
INDEX = "index.html"
SCRIPT = "view.js"
DATA = "data"
CSP = ("default-src 'none'; script-src 'self' file:; style-src 'unsafe-inline'; img-src 'none'; "
       "connect-src 'none'; base-uri 'none'; form-action 'none'")

Values = dict[tuple[str, str], list[float | None]]


@dataclass
class SiteResult:
    """What a build did: for the console and the bench."""

    out: Path
    suites: int = 0
    runs: int = 0
    pairs: int = 0
    written: int = 0  # data files written (runs and pairs)
    reused: int = 0  # data files kept from an earlier build
    removed: int = 0  # stale data files deleted
    index_bytes: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\u0000".join((DATA_VERSION, *parts)).encode("utf-8")).hexdigest()[:20]


def data_script(key: str, data: Any) -> str:
    """A data file: a script that hands `data` to the page. ASCII-only JSON is a JS expression
    that no run or case id can break out of (U+2028 and U+2029 escaped with the rest)."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    # `<`, `>` and `&` only occur inside strings: escaped, the file stays inert even if inlined
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"harnessView.loaded({json.dumps(key)},{text});\n"


class _Builder:
    def __init__(self, out: Path, resamples: int) -> None:
        self.out = out
        self.resamples = resamples
        self.result = SiteResult(out)
        self.keep: set[str] = set()

    def write(self, name: str, make: Callable[[], Any]) -> str:
        """`data/<name>.js`, written unless an earlier build left it; returns its path in the site."""
        relative = f"{DATA}/{name}.js"
        self.keep.add(f"{name}.js")
        path = self.out / relative
        if path.is_file():
            self.result.reused += 1
        else:
            atomic_write(path, data_script(name, make()))
            self.result.written += 1
        return relative

    def suite(self, name: str, runs: list[FoundRun], baseline: Any) -> dict[str, Any]:
        metrics = suite_figures([run.summary for run in runs])
        names = [metric.name for metric in metrics]
        values: dict[str, Values] = {}

        def values_of(run: FoundRun) -> Values:
            if run.summary.run_id not in values:
                values[run.summary.run_id] = case_values(read_rows(run.run_dir), names)
            return values[run.summary.run_id]

        kept: list[FoundRun] = []
        seen: set[str] = set()
        for run in runs:
            if run.summary.run_id in seen:
                self.result.skipped.append((str(run.run_dir), f"run id '{run.summary.run_id}' of suite '{name}' "
                                            "appears twice"))
                continue
            seen.add(run.summary.run_id)
            kept.append(run)
        base_run = next((run for run in kept if baseline is not None and run.summary.run_id == baseline.run_id), None)
        entries: list[dict[str, Any]] = []
        pairs: list[dict[str, str]] = []
        for position, run in enumerate(kept):
            def make(run: FoundRun = run) -> Any:
                rows = read_rows(run.run_dir)
                values[run.summary.run_id] = case_values(rows, names)
                return run_case_data(run.summary, rows, names)

            summary = run.summary
            data = self.write("run-" + _digest("run", name, summary.run_id, run.stamp, *names), make)
            entries.append({"id": summary.run_id, "created": summary.created_at, "commit": read_commit(run.run_dir),
                            "version": summary.harness_version,
                            "mode": summary.record_mode, "baseline_variant": summary.baseline,
                            "data": data, "series": series(summary, names)})
            sides = [kept[position - 1]] if position else []
            if base_run is not None and run is not base_run and base_run not in sides:
                sides.append(base_run)  # every run against the accepted baseline's run too
            for a in sides:
                def make_pair(a: FoundRun = a, b: FoundRun = run) -> Any:
                    return {"a": a.summary.run_id, "b": b.summary.run_id,
                            "series": pair_statistics(values_of(a), values_of(b), names, resamples=self.resamples)}

                data = self.write("pair-" + _digest("pair", name, a.summary.run_id, a.stamp, summary.run_id,
                                                     run.stamp, *names, str(self.resamples)), make_pair)
                pairs.append({"a": a.summary.run_id, "b": summary.run_id, "data": data})
            needed = {summary.run_id} | ({base_run.summary.run_id} if base_run is not None else set())
            for run_id in [run_id for run_id in values if run_id not in needed]:
                del values[run_id]  # the next pairs need only this run (and the baseline's)
        self.result.runs += len(entries)
        self.result.pairs += len(pairs)
        return {
            "name": name,
            "kind": runs[-1].summary.suite_kind,
            "metrics": [metric_entry(metric) for metric in metrics],
            "baseline": None if baseline is None else {
                "run": baseline.run_id, "accepted_from": baseline.accepted_from, "created": baseline.created_at,
                "series": series(baseline, names)},
            "runs": entries,
            "pairs": pairs,
        }

    def remove_stale(self) -> None:
        for path in (self.out / DATA).glob("*.js"):
            if path.name not in self.keep and path.name.startswith(("run-", "pair-", "diff-")):
                path.unlink()
                self.result.removed += 1


def _script() -> str:
    return resources.files(__package__).joinpath(SCRIPT).read_text(encoding="utf-8")


def render_index(index: dict[str, Any]) -> str:
    title = html.escape("runs: " + ", ".join(suite["name"] for suite in index["suites"]) if index["suites"]
                        else "runs", quote=True)
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{title}</title><style>{_STYLE}</style></head><body>{_BODY}"
        f"<script type='application/json' id='view-index'>{embed_json(index)}</script>"
        f"<script src='{SCRIPT}'></script>"
        "</body></html>\n"
    )


def build_site(reports: Path, out: Path, *, resamples: int = 10_000) -> SiteResult:
    """Write the site over every run under `reports` into `out` (see the module docstring)."""
    if not reports.is_dir():
        raise InputError(f"{reports}: no such reports folder (runs are written to reports/ by `harness run`)")
    found = find_runs(reports)
    make_folder(out / DATA)
    builder = _Builder(out, resamples)
    suites = [builder.suite(name, found.suites[name], found.baselines.get(name)) for name in sorted(found.suites)]
    diffs, diffs_skipped = find_diffs(reports)
    diff_entries = []
    for diff in diffs:
        entry = diff_entry(diff)

        def content(diff: FoundDiff = diff) -> Any:
            return diff.data

        entry["data"] = builder.write("diff-" + _digest("diff", diff.name, diff.stamp), content)
        diff_entries.append(entry)
    skipped = found.skipped + builder.result.skipped + diffs_skipped
    index = {"version": DATA_VERSION, "suites": suites, "diffs": diff_entries,
             "skipped": [{"path": path, "reason": reason} for path, reason in skipped]}
    page = render_index(index)
    atomic_write(out / INDEX, page)
    atomic_write(out / SCRIPT, _script())
    builder.remove_stale()
    result = builder.result
    result.suites = len(suites)
    result.skipped = skipped
    result.index_bytes = len(page.encode("utf-8"))
    return result


_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}
header{position:sticky;top:0;background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:6px 12px;z-index:1}
header nav{display:inline} header nav a{margin-right:.2em} main{padding:8px 12px}
a{color:#0969da;text-decoration:none} a:hover{text-decoration:underline}
table{border-collapse:collapse;margin:6px 0} td,th{border-bottom:1px solid #eaeef2;padding:2px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0} td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.cursor{outline:2px solid #0969da;outline-offset:-2px} tr.base td:first-child{font-weight:600}
.up{color:#1a7f37} .down{color:#cf222e} .muted{color:#656d76} .sig{font-weight:600}
.charts{display:flex;flex-wrap:wrap;gap:12px} .chart{border:1px solid #d0d7de;border-radius:4px;padding:4px}
.chart h4{margin:2px 4px} .legend span{margin-right:1em;white-space:nowrap} .swatch{display:inline-block;width:10px;height:10px;margin-right:3px}
.cols{display:flex;flex-wrap:wrap;gap:16px} .cols>div{flex:1;min-width:16em}
.only-a{color:#cf222e} .only-b{color:#1a7f37} .retyped{color:#9a6700}
kbd{border:1px solid #d0d7de;border-bottom-width:2px;border-radius:3px;padding:0 3px;font-size:12px}
#help{display:none;position:fixed;right:12px;top:48px;background:#fff;border:1px solid #d0d7de;padding:8px 12px;box-shadow:0 2px 8px #0002}
#help.open{display:block} input[type=search]{width:14em}
"""

_BODY = """
<header><nav id="crumbs" aria-label="where you are"></nav>
 <span id="status" role="status" class="muted"></span>
 <span class="muted">· <kbd>?</kbd> keys</span></header>
<div id="help" role="dialog" aria-label="keys"><strong>Keys</strong><br>
 <kbd>j</kbd>/<kbd>↓</kbd> next row, <kbd>k</kbd>/<kbd>↑</kbd> previous row, <kbd>Enter</kbd> open the row<br>
 <kbd>a</kbd>/<kbd>b</kbd> mark the row's run as A/B, <kbd>c</kbd> compare A and B<br>
 <kbd>n</kbd>/<kbd>p</kbd> next/previous case, <kbd>/</kbd> filter, <kbd>u</kbd>/<kbd>Backspace</kbd> up, <kbd>?</kbd> this help</div>
<main id="main"></main>
"""
