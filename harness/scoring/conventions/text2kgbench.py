"""Text2KGBench's scoring, as its `src/evaluation/run_eval.py` does it, so that its published
tables can be reproduced (docs/benchmarks.md, "Reproducing published numbers").

Per test sentence:
- precision, recall, F1 over triples compared as one string each: subject, relation and object
  lower-cased with spaces and underscores removed; predicted triples whose relation is not one of
  the sentence's gold relations are set aside first; all three are 0 when nothing is predicted
  (before that filter), and F1 is 0 when P + R is 0;
- ontology conformance: share of ALL predicted triples whose relation is an ontology relation
  (spaces written as underscores, compared case-sensitively), 1 when none; relation hallucination
  = 1 - conformance;
- subject / object hallucination: share of predicted triples whose Porter-stemmed, space- and
  underscore-free subject (object) is not a substring of the stemmed sentence followed (with no
  space) by the ontology's concept labels; 0 when none.
Every figure is the sum over the sentences that have a system output divided by the number of
test sentences: a sentence without output contributes zero to each, conformance included.

Tokenizing: run_eval.py uses NLTK's `word_tokenize`, which splits sentences with the Punkt model
(a data download) before the Treebank tokenizer. Only the final period of each sentence is
tokenized differently by that split, so `split_sentences` stands in for Punkt: it splits after
. ? ! followed by white space, except after an abbreviation (a word holding a period, such as
U.S. or M.A., a single-letter initial, or a common abbreviation such as Mr. or Jan.). On the
published Vicuna-13B and Alpaca-LoRA-13B outputs of the DBpedia-WebNLG part it gives every
sentence's published figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass
from functools import lru_cache
from typing import Any

Triple = tuple[str, str, str]  # subject, relation, object

# the names `harness evaluate --json` prints, in run_eval.py's order
METRICS = ("precision", "recall", "f1", "onto_conf", "rel_halluc", "sub_halluc", "obj_halluc")

_SPACE_OR_UNDERSCORE = re.compile(r"(_|\s+)")  # run_eval.py's normalisation, verbatim
_ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "no", "vs", "inc", "co", "ltd", "corp", "gen", "col", "lt",
    "sgt", "capt", "prof", "rev", "mt", "ft", "etc", "approx", "dept", "est", "fig",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
})
_BOUNDARY = re.compile(r"(?<=[.?!])([\"')\]]*)\s+(?=\S)")
_CLOSERS = "\"')]"


@dataclass(frozen=True)
class SentenceFigures:
    """One test sentence's figures (run_eval.py's per-sentence row)."""

    precision: float
    recall: float
    f1: float
    onto_conf: float
    rel_halluc: float
    sub_halluc: float
    obj_halluc: float

    def as_dict(self) -> dict[str, float]:
        return dict(zip(METRICS, astuple(self)))


NO_OUTPUT = SentenceFigures(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  # a sentence the system gave no output for


def normalize_triple(subject: str, relation: str, obj: str) -> str:
    """The triple as one comparable string: each part lower-cased, spaces and underscores removed."""
    return "".join(_SPACE_OR_UNDERSCORE.sub("", part).lower() for part in (subject, relation, obj))


def precision_recall_f1(gold: set[str], predicted: set[str]) -> tuple[float, float, float]:
    """0, 0, 0 when nothing is predicted (run_eval.py's rule, not n/a)."""
    if not predicted:
        return 0.0, 0.0, 0.0
    hits = len(gold & predicted)
    precision = hits / len(predicted)
    recall = hits / len(gold) if gold else 0.0  # run_eval.py divides by zero here; its gold is never empty
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def ontology_conformance(relations: Iterable[str], triples: Sequence[Triple]) -> tuple[float, float]:
    """(conformance, relation hallucination); (1, 0) without triples."""
    if not triples:
        return 1.0, 0.0
    known = {name.replace(" ", "_") for name in relations}
    conformance = sum(1 for triple in triples if triple[1] in known) / len(triples)
    return conformance, 1 - conformance


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem import PorterStemmer  # lazy: only this convention needs NLTK

    return PorterStemmer()  # NLTK_EXTENSIONS mode, NLTK's default, as run_eval.py constructs it


def split_sentences(text: str) -> list[str]:
    """The sentences Punkt would find, closely enough for these figures (module docstring)."""
    parts: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        words = text[start:match.start()].split()
        word = words[-1].rstrip(_CLOSERS) if words else ""
        if word.endswith(".") and not word.endswith(".."):
            core = word.rstrip(".").lower().lstrip(_CLOSERS + "([")
            if "." in core or (len(core) == 1 and core.isalpha()) or core.split("-")[-1] in _ABBREVIATIONS:
                continue  # an abbreviation or an initial: no sentence ends here
        parts.append(text[start:match.start()] + match.group(1))
        start = match.end()
    parts.append(text[start:])
    return parts


def tokenize(text: str) -> list[str]:
    """NLTK's word_tokenize over `split_sentences` instead of Punkt."""
    from nltk.tokenize import word_tokenize  # lazy

    return [token for sentence in split_sentences(text) for token in word_tokenize(sentence, preserve_line=True)]


def stemmed(text: str) -> str:
    """Every token stemmed, joined with nothing between, spaces and underscores removed, lower-cased."""
    stemmer = _stemmer()
    return _SPACE_OR_UNDERSCORE.sub("", "".join(stemmer.stem(token) for token in tokenize(text))).lower()


def _entity_key(name: str) -> str:
    # run_eval.py's clean_entity_string, with its special case for dates written "01 January"
    return stemmed(name).replace("01januari", "")


def hallucinations(sentence: str, concepts: Sequence[str], triples: Sequence[Triple]) -> tuple[float, float]:
    """(subject, object) hallucination; (0, 0) without triples."""
    if not triples:
        return 0.0, 0.0
    # run_eval.py appends the labels with no space after the sentence
    context = stemmed(sentence + " ".join(concepts))
    subjects = sum(1 for triple in triples if _entity_key(triple[0]) not in context)
    objects = sum(1 for triple in triples if _entity_key(triple[2]) not in context)
    return subjects / len(triples), objects / len(triples)


def sentence_figures(sentence: str, gold: Sequence[Triple], predicted: Sequence[Triple] | None, *,
                     relations: Sequence[str], concepts: Sequence[str]) -> SentenceFigures:
    """One sentence's figures; `predicted` None: the system gave no output for it (all zero)."""
    if predicted is None:
        return NO_OUTPUT
    gold_relations = {triple[1].replace(" ", "_") for triple in gold}
    kept = [triple for triple in predicted if triple[1] in gold_relations]
    precision, recall, f1 = precision_recall_f1({normalize_triple(*t) for t in gold}, {normalize_triple(*t) for t in kept})
    conformance, rel_halluc = ontology_conformance(relations, predicted)
    sub_halluc, obj_halluc = hallucinations(sentence, concepts, predicted)
    return SentenceFigures(precision, recall, f1, conformance, rel_halluc, sub_halluc, obj_halluc)


def average(figures: Sequence[SentenceFigures], sentences: int) -> dict[str, float | None]:
    """Each figure summed over `figures` and divided by the number of test sentences (None: none)."""
    if sentences <= 0:
        return {name: None for name in METRICS}
    return {name: sum(getattr(f, name) for f in figures) / sentences for name in METRICS}


__all__ = ["METRICS", "NO_OUTPUT", "SentenceFigures", "Triple", "average", "hallucinations", "normalize_triple",
           "ontology_conformance", "precision_recall_f1", "sentence_figures", "split_sentences", "stemmed", "tokenize"]
