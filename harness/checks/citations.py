"""`[Data: <Dataset> (ids); ...]` references in community reports and query answers.

GraphRAG's prompts ask for references like

    [Data: Entities (5, 7); Relationships (23, 41, 8, 2, 9, +more)]

with at most five ids per dataset, followed by `+more` when there are more (six ids before
`+more` break the rule too). Models write `,` instead of `;` between
datasets, drop the space before the parenthesis, continue a dataset with a bare `(ids)`, or
forget `+more`. Parsing is tolerant; checking is strict and configurable.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from harness.errors import InputError
from harness.model import FormatIssue
from harness.parsing.issues import issue

DEFAULT_DATASETS: tuple[str, ...] = ("Entities", "Relationships", "Claims", "Reports", "Sources")
MAX_IDS = 5

# Ids the model saw, either per dataset ({"Entities": [1, 2]}) or one pool for every dataset.
ContextIds = Union[Mapping[str, Iterable[Union[str, int]]], Iterable[Union[str, int]], None]

# No `\s*` before the body: it and `[^\[\]]*` both take spaces, and "[Data:" followed by a long
# run of spaces and no "]" backtracked quadratically. The body's spaces are stripped later.
_BLOCK = re.compile(r"\[\s*(?:Data|数据|數據)\s*[:：]([^\[\]]*)\]", re.I)
_IDS = re.compile(r"\(([^()]*)\)")  # one "(ids)" group; the dataset name is the text before it
_NAME_SEPARATORS = re.compile(r"[(),;]")
_MORE = re.compile(r"^\+?\s*more$", re.I)
_ID = re.compile(r"^\d+$")
_RANGE = re.compile(r"^(\d+)\s*[-–]\s*(\d+)$")


@dataclass(slots=True)
class Reference:
    """One dataset inside a citation: Entities (5, 7, +more)."""

    dataset: str
    ids: list[str] = field(default_factory=list)
    more: bool = False


@dataclass(slots=True)
class Citation:
    text: str
    start: int
    end: int
    references: list[Reference] = field(default_factory=list)
    malformed: bool = False


def find_citations(text: str) -> list[Citation]:
    """Every [Data: ...] block in the text, parsed as far as it can be."""
    out: list[Citation] = []
    if "ata" not in text and "数" not in text and "數" not in text and "ATA" not in text:
        return out
    for m in _BLOCK.finditer(text):
        body = m.group(1)
        refs: list[Reference] = []
        last_name = ""
        leftover: list[str] = []
        pos = 0
        # One pass over the "(ids)" groups (linear: a name pattern with a lazy quantifier
        # before `\s*\(` backtracked over the whole body from every position).
        for g in _IDS.finditer(body):
            between = body[pos : g.start()]
            pos = g.end()
            cut = max((sep.end() for sep in _NAME_SEPARATORS.finditer(between)), default=0)
            leftover.append(between[:cut])
            name = between[cut:].strip()
            if not name:
                name = last_name  # "Relationships (1), (2)": continues the previous dataset
            last_name = name
            ref = Reference(dataset=name)
            for token in re.split(r"[,;]", g.group(1)):
                t = token.strip()
                if not t:
                    continue
                if _MORE.match(t):
                    ref.more = True
                elif t.endswith("+more") or t.endswith("+ more"):  # "64+more"
                    ref.ids.append(t[: t.rindex("+")].strip())
                    ref.more = True
                else:
                    ref.ids.append(t)
            refs.append(ref)
        leftover.append(body[pos:])
        rest = "".join(leftover).strip(" ,;\t\n")
        out.append(Citation(m.group(0), m.start(), m.end(), refs, malformed=not refs or bool(rest)))
    return out


def _normalise_context(context_ids: ContextIds) -> tuple[dict[str, set[str]] | None, set[str] | None]:
    if context_ids is None:
        return None, None
    if isinstance(context_ids, Mapping):
        return {str(k).casefold(): {str(i) for i in v} for k, v in context_ids.items()}, None
    return None, {str(i) for i in context_ids}


def citation_issues(
    text: str,
    *,
    allowed_datasets: Collection[str] = DEFAULT_DATASETS,
    context_ids: ContextIds = None,
    max_ids: int = MAX_IDS,
    citations: list[Citation] | None = None,
) -> list[FormatIssue]:
    """Problems with the citations in `text` (none found is not an issue here; callers that
    require a citation use `citation_missing`)."""
    if citations is None:
        citations = find_citations(text)
    allowed = {d.casefold() for d in allowed_datasets}
    per_dataset, pool = _normalise_context(context_ids)
    out: list[FormatIssue] = []
    for c in citations:
        if c.malformed:
            out.append(issue("citation-malformed", f"Could not read all of {c.text!r}.", c.text))
        for ref in c.references:
            if ref.dataset.casefold() not in allowed:
                out.append(
                    issue(
                        "citation-unknown-dataset",
                        f"Dataset {ref.dataset!r} is not one of {', '.join(sorted(allowed_datasets))}.",
                        c.text,
                    )
                )
            ids = ref.ids
            if len(ids) > max_ids:  # with or without '+more': at most five ids stand before it
                more = " before '+more'" if ref.more else " without '+more'"
                out.append(
                    issue(
                        "citation-too-many-ids",
                        f"{ref.dataset} lists {len(ids)} ids{more} (at most {max_ids}).",
                        c.text,
                    )
                )
            for i in ids:
                if not _ID.match(i) and not _RANGE.match(i):
                    out.append(issue("citation-bad-id", f"Id {i!r} in {ref.dataset} is not a number.", c.text))
            known: set[str] | None = None
            if per_dataset is not None:
                known = per_dataset.get(ref.dataset.casefold())
            elif pool is not None:
                known = pool
            if known is not None:
                for i in _expand(ids):
                    if i not in known:
                        out.append(
                            issue(
                                "citation-unknown-id",
                                f"{ref.dataset} id {i} was not in the context given to the model.",
                                c.text,
                            )
                        )
    return out


def _expand(ids: list[str]) -> list[str]:
    out: list[str] = []
    for i in ids:
        r = _RANGE.match(i)
        if r and int(r.group(2)) - int(r.group(1)) <= 1000:
            out.extend(str(n) for n in range(int(r.group(1)), int(r.group(2)) + 1))
        elif _ID.match(i):
            out.append(i)
    return out


def citation_missing(text: str, where: str) -> FormatIssue | None:
    """An issue when `text` carries no [Data: ...] block at all."""
    if find_citations(text):
        return None
    return issue("citation-missing", f"{where} has no [Data: ...] reference.", text)


def report_parts(report: Any) -> list[tuple[str, str]]:
    """The texts of a community report that may cite data: summary, rating explanation and each
    finding (the findings must cite; the others are read when they do)."""
    return [("summary", report.summary), ("rating_explanation", report.rating_explanation)] + [
        (f"finding {i + 1}", f"{f.summary}\n{f.explanation}") for i, f in enumerate(report.findings)
    ]


# --------------------------------------------------------------------------- the context's tables
#
# GraphRAG hands a community report prompt the community's records as CSV tables, each under a
# header line (graphrag/index/operations/summarize_communities/*/sort_context.py, v0.x to v3.x):
#
#   graph context:     "----Reports-----" (sub-community reports: community, full_content),
#                      "-----Entities-----" (human_readable_id, title, description, degree),
#                      "-----Claims-----" (human_readable_id, subject_id, type, status, description),
#                      "-----Relationships-----" (human_readable_id, source, target, description,
#                      combined_degree)
#   text-unit context: "----REPORTS-----", "-----SOURCES-----" (id, text, entity_degree), where
#                      id is the text unit's human_readable_id
#
# pandas writes them with `to_csv(index=False, sep=",")`: quoted fields may hold commas, quotes
# and line breaks. A report cites a record by the first of these columns a table has.

_SECTION = re.compile(r"^-{3,}\s*([A-Za-z][A-Za-z _]*?)\s*-{3,}[ \t]*$", re.M)
_ID_COLUMNS: dict[str, tuple[str, ...]] = {
    "reports": ("community", "human_readable_id", "short_id", "id"),
}
_DEFAULT_ID_COLUMNS = ("human_readable_id", "short_id", "id")
_NAME_COLUMNS = ("title", "entity", "name")


@dataclass(frozen=True, slots=True)
class ContextTables:
    """The record ids of each table of a report's context (keyed by the dataset name a citation
    uses: Entities, Relationships, Claims, Sources, Reports) and the names in its Entities table."""

    ids: dict[str, frozenset[str]]
    entity_names: tuple[str, ...]

    def ids_of(self, dataset: str) -> frozenset[str] | None:
        """The ids of a dataset named in a citation (any case); None when the context has no such table."""
        return self.ids.get(dataset.strip().casefold())


def read_context_tables(text: str) -> ContextTables:
    """The tables of a community context in GraphRAG's layout (above). A table without a header
    row adds nothing; a context with no section header has no tables at all."""
    from ..inputfiles import csv_table

    headers = list(_SECTION.finditer(text))
    ids: dict[str, set[str]] = {}
    names: list[str] = []
    for k, header in enumerate(headers):
        dataset = header.group(1).strip().casefold()
        end = headers[k + 1].start() if k + 1 < len(headers) else len(text)
        body = text[header.end() : end].strip("\n")
        first_line = body.split("\n", 1)[0]
        sep = "|" if "|" in first_line and "," not in first_line else ","
        try:  # a cell may be as long as the context (the csv module alone stops at 128 KiB)
            table = csv_table(body, dataset, delimiter=sep)
        except InputError:
            continue  # not a table: it adds no ids
        rows = [row for row in table if any(cell.strip() for cell in row)]
        if not rows:
            continue
        columns = [c.strip().casefold() for c in rows[0]]
        id_at = _column(columns, _ID_COLUMNS.get(dataset, _DEFAULT_ID_COLUMNS))
        name_at = _column(columns, _NAME_COLUMNS, fallback=None) if dataset == "entities" else None
        found = ids.setdefault(dataset, set())
        for row in rows[1:]:
            if id_at is not None and id_at < len(row) and row[id_at].strip():
                found.add(_id_text(row[id_at]))
            if name_at is not None and name_at < len(row) and row[name_at].strip():
                names.append(row[name_at].strip())
    return ContextTables({k: frozenset(v) for k, v in ids.items()}, tuple(dict.fromkeys(names)))


def _column(columns: list[str], wanted: tuple[str, ...], fallback: int | None = 0) -> int | None:
    for name in wanted:
        if name in columns:
            return columns.index(name)
    return fallback if columns else None


def _id_text(value: str) -> str:
    """An id as a citation writes it: "7.0" (a float column pandas wrote) is "7"."""
    v = value.strip()
    if re.fullmatch(r"\d+\.0+", v):
        return v.split(".", 1)[0]
    return v


def expand_ids(ids: list[str]) -> list[str]:
    """The ids a reference lists, with ranges ("3-5") spelled out; a token that is no id stays as written."""
    out: list[str] = []
    for i in ids:
        out.extend(_expand([i]) or [i])
    return out
