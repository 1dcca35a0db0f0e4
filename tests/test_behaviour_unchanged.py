"""The shipped suites replay to the same outputs as captured in tests/golden/ (issue 14).

`harness run suites/*.yaml --record-mode none --gate` and the podcast tuning replay (`harness tune
--suite suites/podcast.yaml --selection top --limit 6 --record-mode none`), as `make run` does them,
must give byte-identical results.jsonl, summary.json, report.md, report.html, junit.xml, gate.json,
tuning outputs and exit codes, once timings, timestamps and the scratch folder's path are
normalised (tests/support/golden.py says exactly what is normalised, and nothing else is).

This is the safety net of the architecture refactor: a refactor must NOT refresh tests/golden/;
when this test fails after one, the refactor changed behaviour. After a deliberate behaviour change
(a parser fix, a new metric, a report wording), refresh the golden files and commit them with the
change, saying why in the commit message:

    .venv/bin/python scripts/capture_golden.py
    git diff --stat tests/golden/
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from tests.support.golden import GOLDEN_DIR, comparable, pipeline_order, read_golden, replay, show_diff


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return replay(tmp_path_factory.mktemp("golden-replay")).files


def test_shipped_suites_replay_to_the_golden_outputs(replayed: dict[str, str]) -> None:
    golden, replayed, note = comparable(read_golden(), replayed)
    if note:
        warnings.warn(note, stacklevel=1)
    assert golden, f"{GOLDEN_DIR} is empty: capture it with scripts/capture_golden.py"
    assert sorted(replayed) == sorted(golden), (
        f"the replay writes other files than tests/golden/ holds: only in the replay {sorted(set(replayed) - set(golden))}, "
        f"only golden {sorted(set(golden) - set(replayed))}")
    differing = [name for name in pipeline_order(list(golden)) if golden[name] != replayed[name]]
    if differing:
        first = differing[0]
        pytest.fail(f"{len(differing)} file(s) differ from tests/golden/: {', '.join(differing)}\n"
                    f"first: {first}\n{show_diff(first, golden[first], replayed[first])}", pytrace=False)


def test_normalisation_keeps_everything_but_timings_timestamps_and_the_scratch_path(tmp_path: Path) -> None:
    from tests.support.golden import normalise

    scratch = str(tmp_path)
    row = ('{"latency_s":0.0123,"wall_s":1e-05,"created_at":"2026-11-23T22:30:16+00:00","recall":0.5,'
           f'"output":"\\"latency_s\\":7","baseline_file":"{scratch}/reports/baselines/a.json","tokens_s":null}}')
    assert normalise(row, [scratch]) == (
        '{"latency_s":"<timing>","wall_s":"<timing>","created_at":"<timestamp>","recall":0.5,'
        '"output":"\\"latency_s\\":7","baseline_file":"<OUT>/reports/baselines/a.json","tokens_s":null}')
    html = "<img src='data:image/png;base64,iVBORw0KGgo='>"
    assert normalise(html, []) == ("<img src='data:image/png;sha256,"
                                   "4c4b6a3be1314ab86138bef4314dde022e600960d8689a2c8f8631802d20dab6'>")


def test_diff_names_the_row_and_crops_long_lines_around_the_change() -> None:
    from tests.support.golden import show_diff

    row = '{"variant":"tuned","case_id":"c1","output":"%s"}'
    diff = show_diff("s/results.jsonl", row % ("x" * 500 + "old") + "\n", row % ("x" * 500 + "new") + "\n", max_width=60)
    changed = [line for line in diff.splitlines() if line.endswith(('old"', 'new"'))]
    assert [(line[:11], line[-4:]) for line in changed] == [("-tuned/c1 |", 'old"'), ("+tuned/c1 |", 'new"')]
    assert all(" [...] " in line for line in changed)
    assert all(len(line) <= 80 for line in diff.splitlines())
    spacing = show_diff("s/summary.json", '{"a": 1}\n', '{"a":1}\n')  # equal once parsed: the raw bytes are shown
    assert '-{"a": 1}' in spacing and '+{"a":1}' in spacing
    long = show_diff("r.md", "".join(f"{i}\n" for i in range(500)), "".join(f"{i}!\n" for i in range(500)), max_lines=20)
    assert len(long.splitlines()) == 21 and long.endswith("more diff lines]")


def test_plots_drawn_by_another_matplotlib_are_not_compared_but_everything_else_is() -> None:
    digest = "data:image/png;sha256," + "ab" * 32
    golden = {"environment.json": '{"matplotlib": "3.9.0"}\n', "s/report.html": f"<img src='{digest}'> 50%"}
    other_png = {"environment.json": '{"matplotlib": "3.11.2"}\n', "s/report.html": f"<img src='{digest.replace('ab', 'cd')}'> 50%"}
    old, new, note = comparable(golden, other_png)
    assert old == new and note is not None and "3.9.0" in note
    other_text = dict(other_png, **{"s/report.html": other_png["s/report.html"].replace("50%", "51%")})
    old, new, _ = comparable(golden, other_text)
    assert old != new
    same_version = dict(other_png, **{"environment.json": golden["environment.json"]})
    old, new, note = comparable(golden, same_version)
    assert old != new and note is None
