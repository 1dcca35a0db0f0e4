"""`--apply REVIEWED.yaml`: a reviewed gold file (from the review page, or written by hand) merged
into the suite's gold side file, and the run re-scored against it.

The reviewed file has the side file's shape (`gold_file.GoldSideFile`): `reviewer`, `reviewed` and
`cases`, each with `id`, `entities`, `relationships`. It is validated like a suite (one-line
errors naming file, line and key, exit 2); every case id must be a case of the suite. Each case
it lists becomes `review: done` and `annotated: true` (the reviewed lists are complete: an empty
one means "none here"), with the reviewer and date of the case or of the file. The suite is then
loaded again; if it does not load, the side file is put back as it was and the error is raised.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..model import CaseResult, GoldCase, MatchingConfig, Ontology
from .gold_file import GoldSideFile, GoldFileCase, read_gold_file


def reviewed_cases(reviewed: GoldSideFile, suite_ids: list[str], path: Path) -> list[GoldFileCase]:
    """The reviewed file's cases as done gold; a case id the suite lacks is an error naming it."""
    known = set(suite_ids)
    cases = []
    for case in reviewed.cases:
        if case.id not in known:
            raise InputError(f"{path}: case '{case.id}' is not a case of the suite")
        entities = [e.model_copy(update={"found_by": [], "grounded": None, "type_votes": {}}) for e in case.entities]
        relationships = [r.model_copy(update={"found_by": [], "grounded": None}) for r in case.relationships]
        cases.append(GoldFileCase(id=case.id, review="done", annotated=True,
                                  reviewer=case.reviewer or reviewed.reviewer,
                                  reviewed=case.reviewed or reviewed.reviewed,
                                  entities=entities, relationships=relationships))
    return cases


def merged(side: GoldSideFile, done: list[GoldFileCase], order: list[str]) -> GoldSideFile:
    """The side file with `done` in place of (or beside) its cases, in suite order."""
    by_id = {case.id: case for case in side.cases}
    by_id.update({case.id: case for case in done})
    return side.model_copy(update={"cases": [by_id[i] for i in order if i in by_id]})


def read_reviewed(path: Path) -> GoldSideFile:
    """A reviewed gold file; one that is not there is named as such, and anything else that is not
    a regular file (a folder, a FIFO, a device) is refused by the reader, saying what it is."""
    if not path.exists() and not path.is_symlink():
        raise InputError(f"{path}: no such reviewed gold file")
    return read_gold_file(path)


@dataclass
class VariantRecall:
    variant: str
    cases: int  # reviewed cases the variant answered
    entity_recall: float | None
    entity_precision: float | None
    relationship_recall: float | None
    relationship_precision: float | None


def recall_against(gold: list[GoldCase], rows: list[CaseResult], variants: list[str], matching: MatchingConfig,
                   ontology: Ontology | None = None) -> list[VariantRecall]:
    """Each variant's stored answers (sample 0) re-scored with the harness's scoring against `gold`
    (micro: pooled counts, as `harness run` reports them)."""
    from ..scoring import aggregate, measure, score_case

    by_id = {case.id: case for case in gold}
    out = []
    for variant in variants:
        # each re-scored case measured once, as the runner measures a case it scores
        scores = [measure(score_case(by_id[row.case_id], row.graph, matching, ontology))
                  for row in rows if row.variant == variant and row.sample == 0 and row.case_id in by_id
                  and row.error is None]
        metrics = aggregate(scores)
        out.append(VariantRecall(variant, len(scores), metrics.get("entity_recall"), metrics.get("entity_precision"),
                                 metrics.get("relationship_recall"), metrics.get("relationship_precision")))
    return out
