"""scripts/reproduce_webnlg.py's comparison with the published WebNLG+ 2020 figures, on small
figures written here: ours rounded to each published figure's own precision, compared as written.
(tests/test_evaluate_real_webnlg.py runs it on the real submissions.)"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reproduce_webnlg", ROOT / "scripts" / "reproduce_webnlg.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ours_is_rounded_to_each_published_figures_precision(script) -> None:
    ours = {"bt5": {"all": {"exact_f1": 0.68249, "exact_recall": 0.6894, "strict_f1": None},
                    "seen": {"exact_f1": 0.877}}}
    published = {"bt5": {"all": {"exact_f1": "0.682", "exact_recall": "0.69", "strict_f1": "0.675"},
                         "unseen_entities": {"exact_f1": "0.649"}},  # a split not measured: not compared
                 "CycleGT": {"all": {"exact_f1": "0.342"}}}  # a submission not measured: not compared
    assert script.compare(ours, published) == [
        ("bt5", "all", "exact_f1", "0.682", "0.682", True),
        ("bt5", "all", "exact_recall", "0.69", "0.69", True),  # two decimals published: 0.6894 is 0.69
        ("bt5", "all", "strict_f1", "n/a", "0.675", False),  # nothing to stand on: never a match
    ]
    # the same value against three published decimals: 0.689, not 0.690
    assert script.compare(ours, {"bt5": {"all": {"exact_recall": "0.690"}}})[0][3:] == ("0.689", "0.690", False)


def test_the_comparison_says_which_figures_match_and_counts_them(script, capsys) -> None:
    script.show_comparison([("bt5", "all", "exact_f1", "0.682", "0.682", True),
                            ("bt5", "all", "exact_recall", "0.689", "0.690", False)])
    out = capsys.readouterr().out
    assert "exact_f1                0.682      0.682  match" in out
    assert "exact_recall            0.689      0.690  DIFFERS" in out
    assert out.rstrip().endswith("1 of 2 published figures match at their published precision")


def test_the_shipped_published_figures_name_their_source_and_keep_their_precision(script) -> None:
    data = json.loads(script.PUBLISHED.read_text(encoding="utf-8"))
    assert "2020.webnlg-1.7" in data["published_in"] and data["read_from"]
    values = [v for splits in data["figures"].values() for metrics in splits.values() for v in metrics.values()]
    assert values and all(isinstance(v, str) and v.startswith("0.") for v in values)  # as written: "0.690"
