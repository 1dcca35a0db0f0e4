"""The suite judge's figures (harness/judges/, docs/judges.md), one family per decision.

(a) Judged matching (`CaseScore.judged`): entity and relationship precision, recall and F1 with
the suite judge's matches added to exact/alias/fuzzy ones (docs/scoring.md, "Judged matching").
(b) Faithfulness (`CaseScore.faithful`): the share of extracted entity and relationship
descriptions the judge found supported by the chunk, over its readable verdicts.
(c) Facts (`CaseScore.judged_facts`): a summary's description facts kept and summary facts added,
a report's findings supported by the context, with the judge's verdicts where the stems were unsure. Beside the string figures, never in their place; n/a (and left out of report tables)
in a suite without `judge:`. Every judged figure is shown with the judge's calibration
(RunSummary.judges)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..model import CaseScore, JudgedMatch, SupportQuestion
from .ratios import f1, precision, recall
from .registry import Count, Metric, Pooled, register, register_count, register_prf

DECISION = "match"  # the judge decision (a)'s figures stand on (JudgesSummary.figures)
FAITHFUL = "faithful"  # (b)'s


@dataclass(frozen=True)
class _Rates:
    precision: float | None
    recall: float | None
    f1: float | None


def _rates(prefix: str) -> Callable[[CaseScore], _Rates | None]:
    def read(score: CaseScore) -> _Rates | None:
        judged = score.judged
        tp = None if judged is None else getattr(judged, f"{prefix}_tp")
        if judged is None or tp is None:
            return None
        pred, gold = getattr(judged, f"{prefix}_pred"), getattr(judged, f"{prefix}_gold")
        return _Rates(precision(tp, pred, gold), recall(tp, gold), f1(tp, pred, gold))
    return read


def _count(attr: str) -> Callable[[CaseScore], int | None]:
    def read(score: CaseScore) -> int | None:
        judged: JudgedMatch | None = score.judged
        return None if judged is None else getattr(judged, attr)
    return read


for _prefix, _gold in (("entity", "entities"), ("relationship", "relationships")):
    for _part in ("tp", "pred", "gold"):
        register_count(Count(f"judged_{_prefix}_{_part}", _count(f"{_prefix}_{_part}"), _gold))  # type: ignore[arg-type]
    _flags = dict(only_where_defined=True, threshold=">=")
    register_prf(f"judged_{_prefix}", f"Judged {_prefix} {{}}", f"judged {_prefix} {{}}", scores=_rates(_prefix),
                 tp=f"judged_{_prefix}_tp", pred=f"judged_{_prefix}_pred", gold_count=f"judged_{_prefix}_gold",
                 gold=_gold, precision=_flags, recall=_flags, f1=_flags)  # type: ignore[arg-type]

FIGURES: tuple[str, ...] = tuple(f"judged_{p}_{a}" for p in ("entity", "relationship") for a in ("precision", "recall", "f1"))


def _questions(part: str) -> Callable[[CaseScore], list[SupportQuestion] | None]:
    def read(score: CaseScore) -> list[SupportQuestion] | None:
        return None if score.faithful is None else getattr(score.faithful, part)
    return read


def _judged(part: str) -> Callable[[CaseScore], int | None]:
    """Descriptions with a readable verdict (None: no faithfulness judged, or none to judge)."""
    def read(score: CaseScore) -> int | None:
        found = _questions(part)(score)
        readable = None if found is None else sum(q.verdict is not None for q in found)
        return readable or None
    return read


def _supported(part: str) -> Callable[[CaseScore], int | None]:
    def read(score: CaseScore) -> int | None:
        found = _questions(part)(score)
        if found is None or not any(q.verdict is not None for q in found):
            return None
        return sum(q.verdict == "supported" for q in found)
    return read


def _share(part: str) -> Callable[[CaseScore], float | None]:
    def read(score: CaseScore) -> float | None:
        judged, supported = _judged(part)(score), _supported(part)(score)
        return None if judged is None or supported is None else supported / judged
    return read


def _pooled_share(supported: str, judged: str) -> Callable[[Pooled], float | None]:
    return lambda c: None if not c.total(judged) else c[supported] / c[judged]


FAITHFUL_FIGURES: tuple[str, ...] = ()
for _part, _word in (("entities", "entity"), ("relationships", "relationship")):
    _judged_name, _supported_name = f"judged_{_word}_descriptions", f"judged_{_word}_descriptions_supported"
    register_count(Count(_judged_name, _judged(_part), None))
    register_count(Count(_supported_name, _supported(_part), None))
    register(Metric(
        f"judged_{_word}_faithfulness", f"Judged {_word} faithfulness", f"judged {_word} description faithfulness",
        value=_share(_part), pools=(_supported_name, _judged_name), gold=None, threshold=">=", only_where_defined=True,
        micro=_pooled_share(_supported_name, _judged_name),
    ))
    FAITHFUL_FIGURES += (f"judged_{_word}_faithfulness",)

FACTS = "facts"  # (c)'s decision: summary facts and report findings where the stems are unsure


def _fact_count(attr: str) -> Callable[[CaseScore], int | None]:
    def read(score: CaseScore) -> int | None:
        return None if score.judged_facts is None else getattr(score.judged_facts, attr)
    return read


def _fact_share(num: str, den: str) -> Callable[[CaseScore], float | None]:
    def read(score: CaseScore) -> float | None:
        top, bottom = _fact_count(num)(score), _fact_count(den)(score)
        return None if top is None or not bottom else top / bottom
    return read


FACT_FIGURES: tuple[str, ...] = ()
# (name, label, phrase, numerator, denominator, higher is better, suite kind)
for _name, _label, _phrase, _num, _den, _higher, _kind in (
        ("judged_facts_kept", "Judged facts kept", "judged description facts kept", "facts_kept", "description_facts",
         True, "summarize_descriptions"),
        ("judged_facts_added", "Judged facts added", "judged summary facts added", "facts_added", "summary_facts",
         False, "summarize_descriptions"),
        ("judged_findings_supported", "Judged findings supported", "judged report findings supported by the context",
         "findings_supported", "findings", True, "community_report")):
    _top, _bottom = f"judged_{_num}", f"judged_{_den}"
    for _counted in (_top, _bottom):
        register_count(Count(_counted, _fact_count(_counted.removeprefix("judged_")), None))
    register(Metric(_name, _label, _phrase, value=_fact_share(_num, _den), micro=_pooled_share(_top, _bottom),
                    pools=(_top, _bottom), gold=None, higher_is_better=_higher, threshold=">=" if _higher else "<=",
                    only_where_defined=True, suite_kind=_kind))
    FACT_FIGURES += (_name,)

DECISION_FIGURES: dict[str, tuple[str, ...]] = {DECISION: FIGURES, FAITHFUL: FAITHFUL_FIGURES, FACTS: FACT_FIGURES}
