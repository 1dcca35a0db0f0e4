"""Measure the WebNLG+ 2020 English text-to-RDF table (docs/benchmarks.md) through the harness:
for each submission of github.com/WebNLG/challenge-2020 (submissions/text2rdf/en/<team>/primary*.xml)
and each split (all, seen, unseen entities, unseen categories), import the split's references
(github.com/WebNLG/WebNLG-Text-to-triples, Data/semantic-parsing-test-data-with-refs-en(2)*.xml)
with `harness import webnlg`, convert the candidates with `harness import webnlg-candidates`,
score them with `harness evaluate --conventions webnlg --json`, and print the figures.

    .venv/bin/python scripts/reproduce_webnlg.py [--published FIGURES.json] [--json-out OURS.json]

The two repositories are read from git mirrors (bare repositories; --challenge, --scorer) or
checkouts. `--published` names a JSON file {team: {split: {metric: value}}} of the challenge's
published figures (Castro Ferreira et al. 2020, Table "text-to-RDF, English"); each figure is then
printed beside ours with the difference. Nothing of either repository is shipped.
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


def show(ours: dict, published: dict | None) -> None:
    for figure in ("f1", "precision", "recall"):
        print(f"\n{figure.upper()}  (ours" + (" / published / difference)" if published else ")"))
        print(f"{'team':<22} {'split':<18} " + " ".join(f"{scheme:>22}" for scheme in SCHEMES))
        for team, splits in ours.items():
            for split, metrics in splits.items():
                cells = []
                for scheme in SCHEMES:
                    key = f"{scheme}_{figure}"
                    value = metrics[key]
                    cell = "n/a" if value is None else f"{value:.3f}"
                    given = (published or {}).get(team, {}).get(split, {}).get(key)
                    if given is not None and value is not None:
                        cell += f" / {given:.3f} / {value - given:+.3f}"
                    cells.append(f"{cell:>22}")
                print(f"{team:<22} {split:<18} " + " ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--challenge", type=Path, default=MIRRORS / "WebNLG+challenge-2020" / "repo")
    parser.add_argument("--scorer", type=Path, default=MIRRORS / "WebNLG+WebNLG-Text-to-triples" / "repo")
    parser.add_argument("--published", type=Path, help="the published figures, {team: {split: {metric: value}}}")
    parser.add_argument("--json-out", type=Path, help="write our figures here")
    parser.add_argument("--team", action="append", choices=TEAMS, help="only these submissions (repeatable)")
    parser.add_argument("--split", action="append", choices=tuple(SPLITS), help="only these splits (repeatable)")
    args = parser.parse_args()
    published = json.loads(args.published.read_text(encoding="utf-8")) if args.published else None
    with tempfile.TemporaryDirectory(prefix="webnlg-") as folder:
        ours = measure(args.challenge, args.scorer, Path(folder), tuple(args.team or TEAMS), list(args.split or SPLITS))
    if args.json_out:
        args.json_out.write_text(json.dumps(ours, indent=2) + "\n", encoding="utf-8")
    show(ours, published)


if __name__ == "__main__":
    main()
