"""Measure the WebNLG+ 2020 English text-to-RDF table (docs/benchmarks.md) through the harness:
for each submission of github.com/WebNLG/challenge-2020 (submissions/text2rdf/en/<team>/primary*.xml)
and each split (all, seen, unseen entities, unseen categories), import the split's references
(github.com/WebNLG/WebNLG-Text-to-triples, Data/semantic-parsing-test-data-with-refs-en(2)*.xml)
with `harness import webnlg`, convert the candidates with `harness import webnlg-candidates`,
score them with `harness evaluate --conventions webnlg --json`, and print the figures.

    .venv/bin/python scripts/reproduce_webnlg.py [--published FIGURES.json] [--json-out OURS.json]

The two repositories are read from git mirrors (bare repositories; --challenge, --scorer) or
checkouts. Each published figure is printed beside ours, ours rounded to the published precision,
and said to match or not; the last line counts them. The published figures are
tests/fixtures/webnlg/published_text2rdf_en.json (where they were read is named in it), or
`--published FILE` of the same shape: {"figures": {team: {split: {metric: "0.689"}}}}, values
as written (strings keep their precision). Nothing of either repository is shipped.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from harness.cli import main as harness

TEAMS = ("Amazon_AI_(Shanghai)", "Baseline", "CycleGT", "bt5")
REFS = "Data/semantic-parsing-test-data-with-refs-en(2){}.xml"
SPLITS = {  # split: (references file suffix, candidates file)
    "all": ("", "primary.xml"),
    "seen": (" (Seen)", "primary_seen.xml"),
    "unseen_entities": (" (Unseen Entities)", "primary_unseen_entities.xml"),
    "unseen_categories": (" (Unseen Entities and Categories)", "primary_unseen.xml"),
}
SCHEMES = ("exact", "ent_type", "partial", "strict")  # the paper's column order
MIRRORS = Path("/work/.mirror")
PUBLISHED = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "webnlg" / "published_text2rdf_en.json"


def read(repository: Path, path: str) -> bytes:
    """A file of a checkout, or of a bare mirror's HEAD."""
    if (repository / path).is_file():
        return (repository / path).read_bytes()
    done = subprocess.run(["git", "--git-dir", str(repository), "show", f"HEAD:{path}"], capture_output=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{repository}: no {path}")
    return done.stdout


def run(arguments: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = harness(arguments)
    if code != 0:
        sys.exit(f"harness {' '.join(arguments)}: exit {code}: {err.getvalue().strip()}")
    return out.getvalue()


def measure(challenge: Path, scorer: Path, work: Path, teams: tuple[str, ...], splits: list[str]) -> dict:
    ours: dict[str, dict[str, dict[str, float | None]]] = {}
    for split in splits:
        suffix, candidates = SPLITS[split]
        refs = work / f"refs-{split}.xml"
        refs.write_bytes(read(scorer, REFS.format(suffix)))
        suite = work / "suites" / f"webnlg_{split}.yaml"
        run(["import", "webnlg", str(refs), "--out", str(suite), "--force"])
        for team in teams:
            cands = work / f"{team}-{split}.xml"
            cands.write_bytes(read(challenge, f"submissions/text2rdf/en/{team}/{candidates}"))
            outputs = work / f"{team}-{split}.jsonl"
            run(["import", "webnlg-candidates", str(cands), "--refs", str(refs), "--out", str(outputs), "--force"])
            result = json.loads(run(["evaluate", str(suite), "--outputs", str(outputs), "--conventions", "webnlg",
                                     "--json", "--reports", str(work / "reports")]))
            ours.setdefault(team, {})[split] = result["metrics"]
            print(f"measured {team} {split}", file=sys.stderr)
    return ours


def show(ours: dict) -> None:
    """Our figures, F1 then precision then recall, a row per submission and split."""
    for figure in ("f1", "precision", "recall"):
        print(f"\n{figure.upper()}  (ours)")
        print(f"{'team':<22} {'split':<18} " + " ".join(f"{scheme:>9}" for scheme in SCHEMES))
        for team, splits in ours.items():
            for split, metrics in splits.items():
                cells = ["n/a" if metrics[f"{scheme}_{figure}"] is None else f"{metrics[f'{scheme}_{figure}']:.3f}"
                         for scheme in SCHEMES]
                print(f"{team:<22} {split:<18} " + " ".join(f"{cell:>9}" for cell in cells))


def at_precision(value: float | None, given: str) -> str:
    """Our value written with as many decimals as the published figure `given` ("0.690": three)."""
    if value is None:
        return "n/a"
    decimals = len(given.partition(".")[2])
    return f"{value:.{decimals}f}"


def compare(ours: dict, published: dict) -> list[tuple[str, str, str, str, str, bool]]:
    """(team, split, metric, ours at the published precision, published, whether they are equal)
    for every published figure of a submission and split we measured, in the published order."""
    rows = []
    for team, splits in published.items():
        for split, metrics in splits.items():
            measured = ours.get(team, {}).get(split)
            if measured is None:
                continue
            for metric, given in metrics.items():
                mine = at_precision(measured.get(metric), given)
                rows.append((team, split, metric, mine, given, mine == given))
    return rows


def show_comparison(rows: list[tuple[str, str, str, str, str, bool]]) -> None:
    print(f"\n{'team':<22} {'split':<18} {'figure':<20} {'ours':>8} {'published':>10}")
    for team, split, metric, mine, given, same in rows:
        print(f"{team:<22} {split:<18} {metric:<20} {mine:>8} {given:>10}  {'match' if same else 'DIFFERS'}")
    print(f"\n{sum(same for *_, same in rows)} of {len(rows)} published figures match at their published precision")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--challenge", type=Path, default=MIRRORS / "WebNLG+challenge-2020" / "repo")
    parser.add_argument("--scorer", type=Path, default=MIRRORS / "WebNLG+WebNLG-Text-to-triples" / "repo")
    parser.add_argument("--published", type=Path, default=PUBLISHED,
                        help="the published figures, {\"figures\": {team: {split: {metric: \"0.689\"}}}}")
    parser.add_argument("--json-out", type=Path, help="write our figures here")
    parser.add_argument("--team", action="append", choices=TEAMS, help="only these submissions (repeatable)")
    parser.add_argument("--split", action="append", choices=tuple(SPLITS), help="only these splits (repeatable)")
    args = parser.parse_args()
    published = json.loads(args.published.read_text(encoding="utf-8"))["figures"]
    with tempfile.TemporaryDirectory(prefix="webnlg-") as folder:
        ours = measure(args.challenge, args.scorer, Path(folder), tuple(args.team or TEAMS), list(args.split or SPLITS))
    if args.json_out:
        args.json_out.write_text(json.dumps(ours, indent=2) + "\n", encoding="utf-8")
    show(ours)
    show_comparison(compare(ours, published))


if __name__ == "__main__":
    main()
