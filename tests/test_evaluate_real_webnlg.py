"""`harness evaluate --conventions webnlg` on the REAL WebNLG+ 2020 submissions: the challenge's
references (github.com/WebNLG/WebNLG-Text-to-triples, Data/) and the English text-to-RDF primary
submissions (github.com/WebNLG/challenge-2020, submissions/text2rdf/en/), read from the git
mirrors the project's tooling fetches to /work/.mirror (bare repositories); skips without them.
The data are other people's (docs/benchmarks.md): nothing of them is shipped.

The figures pinned here are the ones scripts/reproduce_webnlg.py measured (docs/benchmarks.md,
"WebNLG+ 2020's conventions"), not the published ones: this keeps them from drifting.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.cli import main
from harness.importers.webnlg import read_candidates, read_references
from harness.scoring.conventions import webnlg as wn

CHALLENGE = Path("/work/.mirror/WebNLG+challenge-2020/repo")
SCORER = Path("/work/.mirror/WebNLG+WebNLG-Text-to-triples/repo")
REFS = "Data/semantic-parsing-test-data-with-refs-en(2){}.xml"
SPLITS = {"all": ("", "primary.xml"), "seen": (" (Seen)", "primary_seen.xml"),
          "unseen_entities": (" (Unseen Entities)", "primary_unseen_entities.xml"),
          "unseen_categories": (" (Unseen Entities and Categories)", "primary_unseen.xml")}

pytestmark = pytest.mark.skipif(not (CHALLENGE.is_dir() and SCORER.is_dir()) or shutil.which("git") is None,
                                reason="no mirror of WebNLG/challenge-2020 and WebNLG/WebNLG-Text-to-triples")


def _file(repository: Path, path: str, target: Path) -> Path:
    done = subprocess.run(["git", "--git-dir", str(repository), "show", f"HEAD:{path}"], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"{repository} has no {path}")
    target.write_bytes(done.stdout)
    return target


def test_bt5_seen_split_through_the_commands_of_a_real_webnlg_copy(tmp_path, capsys) -> None:
    refs = _file(SCORER, REFS.format(" (Seen)"), tmp_path / "refs.xml")
    cands = _file(CHALLENGE, "submissions/text2rdf/en/bt5/primary_seen.xml", tmp_path / "cands.xml")
    suite, outputs = tmp_path / "suites" / "seen.yaml", tmp_path / "bt5.jsonl"
    assert main(["import", "webnlg", str(refs), "--out", str(suite)]) == 0
    assert main(["import", "webnlg-candidates", str(cands), "--refs", str(refs), "--out", str(outputs)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(suite), "--outputs", str(outputs), "--conventions", "webnlg", "--json",
                 "--reports", str(tmp_path / "reports")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["cases"], result["missing"]) == (606, [])
    measured = {"strict_f1": 0.8766, "exact_f1": 0.877, "partial_f1": 0.883, "ent_type_f1": 0.8875}
    assert {name: round(result["metrics"][name], 4) for name in measured} == measured


def _pairs(split: str, team: str, folder: Path) -> list[wn.PairScore]:
    suffix, candidates = SPLITS[split]
    refs = read_references(_file(SCORER, REFS.format(suffix), folder / f"refs-{split}.xml"))
    cands = read_candidates(_file(CHALLENGE, f"submissions/text2rdf/en/{team}/{candidates}", folder / f"{team}-{split}.xml"))
    assert len(refs) == len(cands)
    return [pair for ref, cand in zip(refs, cands) for pair in wn.entry_pairs(ref.triples, cand.triples)]


@pytest.mark.slow
@pytest.mark.parametrize("team", ["Amazon_AI_(Shanghai)", "Baseline", "CycleGT", "bt5"])
def test_the_all_figures_are_the_three_splits_pooled_in_a_real_webnlg_copy(tmp_path, team) -> None:
    """The split files line up with the split references entry by entry: every figure of `all`
    is the pair-weighted mean of the seen, unseen-entities and unseen-categories figures."""
    whole = wn.pooled(_pairs("all", team, tmp_path))
    parts = [_pairs(split, team, tmp_path) for split in ("seen", "unseen_entities", "unseen_categories")]
    pooled = wn.pooled([pair for part in parts for pair in part])
    assert {k: round(v, 9) for k, v in whole.items()} == {k: round(v, 9) for k, v in pooled.items()}
    assert re.fullmatch(r"\d\.\d+", f"{whole['strict_f1']}")


@pytest.mark.slow
def test_the_published_figures_reproduce_from_a_real_webnlg_copy(tmp_path, capsys) -> None:
    """scripts/reproduce_webnlg.py on the submissions the published figures
    (tests/fixtures/webnlg/published_text2rdf_en.json) are of: every one matches at its precision."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("reproduce_webnlg",
                                                  Path(__file__).resolve().parents[1] / "scripts" / "reproduce_webnlg.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    published = json.loads(script.PUBLISHED.read_text(encoding="utf-8"))["figures"]
    splits = sorted({split for by_split in published.values() for split in by_split})
    ours = script.measure(CHALLENGE, SCORER, tmp_path, tuple(published), splits)
    rows = script.compare(ours, published)
    assert len(rows) == sum(len(m) for by_split in published.values() for m in by_split.values())
    assert [row for row in rows if not row[-1]] == []
