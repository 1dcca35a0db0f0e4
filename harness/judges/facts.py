"""(c) Summary facts kept and added, and report findings supported by the context, judged only
where the stems are unsure (`judge.facts`, docs/judges.md).

The stems decide on a share: the share of a fact's content words found on the other side (a
description fact's in the summary, a summary fact's in the descriptions, a finding's in the
community's context), kept or supported at `KEEP_SHARE` (one half). A share is **unsure** when it
lies within a quarter of that line, `UNSURE_LOW <= share < UNSURE_HIGH` (0.25 to 0.75): a
paraphrase that keeps the nouns and changes the verbs lands there, and so does a fact that shares
only its topic. Those facts alone go to the judge; outside the band the stem call stands. A
readable verdict replaces the stem call (SUPPORTED: kept, not added, supported); an unreadable one
leaves the stem call and is counted as unreadable.
"""

from __future__ import annotations

from ..content_words import KEEP_SHARE, content_words, share
from ..model import CommunityReport, FactQuestion, GoldCase, JudgedFacts, JudgeVerdict
from ..scoring.summary_score import fact_shares

UNSURE_LOW, UNSURE_HIGH = KEEP_SHARE - 0.25, KEEP_SHARE + 0.25


def unsure(value: float) -> bool:
    return UNSURE_LOW <= value < UNSURE_HIGH


def summary_questions(case: GoldCase, summary: str, language: str) -> list[tuple[str, str, str, float]]:
    """(id, statement, the text it is checked against, share) of each unsure fact of a summary."""
    described, stated = fact_shares(case, summary, language=language)
    descriptions = "\n".join(case.descriptions)
    asked = [(f"summary kept: {fact}", fact, summary, value) for fact, value in described if unsure(value)]
    asked += [(f"summary added: {fact}", fact, descriptions, value) for fact, value in stated if unsure(value)]
    return asked


def finding_text(summary: str, explanation: str) -> str:
    return f"{summary.strip()}: {explanation.strip()}" if explanation.strip() else summary.strip()


def finding_shares(report: CommunityReport, context: str, language: str) -> list[tuple[str, str, float]]:
    """(id, statement, share of its content words in the context) of every finding of a report."""
    have = content_words(context, language=language)
    found = []
    for finding in report.findings:
        text = finding_text(finding.summary, finding.explanation)
        if text:
            found.append((f"report finding: {finding.summary.strip() or text}", text,
                          share(content_words(text, language=language), have)))
    return found


def report_questions(report: CommunityReport, context: str, language: str) -> list[tuple[str, str, str, float]]:
    return [(qid, text, context, value) for qid, text, value in finding_shares(report, context, language) if unsure(value)]


def _calls(asked: list[tuple[str, str, str, float]], verdicts: list[JudgeVerdict | None]) -> tuple[list[FactQuestion], dict[str, bool]]:
    questions = [FactQuestion(id=qid, statement=statement, share=value, verdict=verdict)
                 for (qid, statement, _, value), verdict in zip(asked, verdicts)]
    return questions, {q.id: q.verdict == "supported" for q in questions if q.verdict is not None}


def judged_summary(case: GoldCase, summary: str, language: str, asked: list[tuple[str, str, str, float]],
                   verdicts: list[JudgeVerdict | None]) -> JudgedFacts:
    """The summary's facts kept and added, the judge's readable verdicts in place of unsure stem calls."""
    questions, judged = _calls(asked, verdicts)
    described, stated = fact_shares(case, summary, language=language)
    kept = sum(judged.get(f"summary kept: {fact}", value >= KEEP_SHARE) for fact, value in described)
    added = sum(not judged.get(f"summary added: {fact}", value >= KEEP_SHARE) for fact, value in stated)
    return JudgedFacts(questions=questions, description_facts=len(described), facts_kept=kept,
                       summary_facts=len(stated), facts_added=added)


def judged_report(report: CommunityReport, context: str, language: str, asked: list[tuple[str, str, str, float]],
                  verdicts: list[JudgeVerdict | None]) -> JudgedFacts:
    """The report's findings supported by the context, the judge's readable verdicts in place of unsure stem calls."""
    questions, judged = _calls(asked, verdicts)
    shares = finding_shares(report, context, language)
    supported = sum(judged.get(qid, value >= KEEP_SHARE) for qid, _, value in shares)
    return JudgedFacts(questions=questions, findings=len(shares), findings_supported=supported)
