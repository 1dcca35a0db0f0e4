"""`[Data: <Dataset> (ids); ...]` references in community reports and query answers.

GraphRAG's prompts ask for references like

    [Data: Entities (5, 7); Relationships (23, 41, 8, 2, 9, +more)]

with at most five ids per dataset, followed by `+more` when there are more (six ids before
`+more` break the rule too). Models write `,` instead of `;` between
datasets, drop the space before the parenthesis, continue a dataset with a bare `(ids)`, or
forget `+more`. Parsing is tolerant; checking is strict and configurable.

GraphRAG's own text-unit report example adds `Date_Range ((2000, 01, 01), (2000, 07, 12))` to a
reference and cites `Source (5)`: a date range is no record (kept apart, never read as ids), and
a dataset is named in the singular or the plural (`dataset_key`). Ids compare as numbers
written in digits: `007` is record 7 (`id_key`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
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
# `Date_Range ((2001, 05, 12), (2001, 05, 14))`, as GraphRAG's community_report_text asks; bounded
# pieces (no nested quantifiers over the same characters), so a long body cannot make it backtrack
_DATE_RANGE = re.compile(r"Date[_ ]?Range\s*\(\s*\([^()]{0,80}\)\s*,\s*\([^()]{0,80}\)\s*\)", re.I)
MAX_RANGE = 1000  # a range of more ids than this is read as one (invalid) id, never spelled out
_MAX_DIGITS = 9  # a range end longer than this is never a record of a community: not spelled out


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
    date_ranges: list[str] = field(default_factory=list)  # `Date_Range ((...), (...))` parts, as written


def dataset_key(name: str) -> str:
    """The key two spellings of one dataset share: case-folded, plural (`Source`, `SOURCES` and
    `sources` are one dataset; `Entity` is `entities`)."""
    key = " ".join(name.split()).casefold()
    if not key or key.endswith("s"):
        return key
    return key[:-1] + "ies" if key.endswith("y") else key + "s"


def dataset_named(written: str, datasets: Iterable[str]) -> str | None:
    """Which of `datasets` a citation's dataset name means (`dataset_key`), as `datasets` spell it."""
    key = dataset_key(written)
    return next((d for d in datasets if dataset_key(d) == key), None)


def id_key(value: str) -> str:
    """A record id as compared: digits without leading zeros (`007` is `7`), anything else as written."""
    v = value.strip()
    if v.isascii() and v.isdigit():
        return v.lstrip("0") or "0"
    return v


def find_citations(text: str) -> list[Citation]:
    """Every [Data: ...] block in the text, parsed as far as it can be."""
    out: list[Citation] = []
    if "ata" not in text and "数" not in text and "數" not in text and "ATA" not in text:
        return out
    for m in _BLOCK.finditer(text):
        dates = _DATE_RANGE.findall(m.group(1))
        body = _DATE_RANGE.sub("", m.group(1)) if dates else m.group(1)
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
        out.append(Citation(m.group(0), m.start(), m.end(), refs, malformed=not (refs or dates) or bool(rest),
                            date_ranges=dates))
    return out


def _normalise_context(context_ids: ContextIds) -> tuple[dict[str, set[str]] | None, set[str] | None]:
    if context_ids is None:
        return None, None
    if isinstance(context_ids, Mapping):
        return {dataset_key(str(k)): {id_key(str(i)) for i in v} for k, v in context_ids.items()}, None
    return None, {id_key(str(i)) for i in context_ids}


def citation_issues(
    text: str,
    *,
    allowed_datasets: Collection[str] = DEFAULT_DATASETS,
    context_ids: ContextIds = None,
    max_ids: int = MAX_IDS,
    citations: list[Citation] | None = None,
) -> list[FormatIssue]:
    """Problems with the citations in `text` (none found is not an issue here; callers that
    require a citation report `citation-missing` themselves: answer_citations, query)."""
    if citations is None:
        citations = find_citations(text)
    allowed = {dataset_key(d) for d in allowed_datasets}
    per_dataset, pool = _normalise_context(context_ids)
    out: list[FormatIssue] = []
    for c in citations:
        if c.malformed:
            out.append(issue("citation-malformed", f"Could not read all of {c.text!r}.", c.text))
        for ref in c.references:
            if dataset_key(ref.dataset) not in allowed:
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
                known = per_dataset.get(dataset_key(ref.dataset))
            elif pool is not None:
                known = pool
            if known is not None:
                for i in _expand(ids):
                    if id_key(i) not in known:
                        out.append(
                            issue(
                                "citation-unknown-id",
                                f"{ref.dataset} id {i} was not in the context given to the model.",
                                c.text,
                            )
                        )
    return out


def _expand(ids: list[str]) -> list[str]:
    """The ids written as numbers, ranges spelled out: a range that runs backwards, spans more than
    MAX_RANGE ids or has an end of more than _MAX_DIGITS digits is no range of records (nor read
    as an int: a 5,000-digit number is past Python's limit)."""
    out: list[str] = []
    for i in ids:
        r = _RANGE.match(i)
        if r:
            low, high = r.group(1), r.group(2)
            if len(low) <= _MAX_DIGITS and len(high) <= _MAX_DIGITS and 0 <= int(high) - int(low) <= MAX_RANGE:
                out.extend(str(n) for n in range(int(low), int(high) + 1))
        elif _ID.match(i):
            out.append(i)
    return out


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

    ids: dict[str, frozenset[str]]  # by `dataset_key`, ids as `id_key`
    entity_names: tuple[str, ...]

    def ids_of(self, dataset: str) -> frozenset[str] | None:
        """The ids of a dataset named in a citation (any case, singular or plural); None when the
        context has no such table."""
        return self.ids.get(dataset_key(dataset))


def read_context_tables(text: str) -> ContextTables:
    """The tables of a community context in GraphRAG's layout (above). A table without a header
    row adds nothing; a context with no section header has no tables at all."""
    from ..inputfiles import csv_table

    headers = list(_SECTION.finditer(text))
    ids: dict[str, set[str]] = {}
    names: list[str] = []
    for k, header in enumerate(headers):
        dataset = dataset_key(header.group(1))
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


# A worked example's table in a report prompt: a line naming the dataset alone ("Entities", with
# or without GraphRAG's dashes), then its CSV header, then rows up to a blank line
_EXAMPLE_HEADER = re.compile(r"^[ \t]*-*[ \t]*(Entities|Relationships)[ \t]*-*[ \t]*$", re.I | re.M)
_ENDPOINT_COLUMNS = ("source", "target")


def example_table_names(text: str) -> tuple[str, ...]:
    """The names in the Entities and Relationships tables of a report prompt's worked examples
    (`text`: the prompt without the community's context): each entity's name, each relationship's
    endpoints, in order. GraphRAG's example writes `Entities` with no dashes and a blank line
    before the header row; the built-in template none."""
    import csv
    import io

    names: list[str] = []
    for header in _EXAMPLE_HEADER.finditer(text):
        lines = text[header.end() :].lstrip("\n").split("\n")
        table: list[str] = []
        for line in lines:
            if not line.strip():
                break
            table.append(line)
        rows = [row for row in csv.reader(io.StringIO("\n".join(table))) if row]
        if len(rows) < 2:
            continue
        columns = [c.strip().casefold() for c in rows[0]]
        wanted = (_column(columns, _NAME_COLUMNS, fallback=None),) if header.group(1).casefold() == "entities" \
            else tuple(_column(columns, (name,), fallback=None) for name in _ENDPOINT_COLUMNS)
        for row in rows[1:]:
            names += [row[at].strip() for at in wanted if at is not None and at < len(row) and row[at].strip()]
    return tuple(dict.fromkeys(names))


def _column(columns: list[str], wanted: tuple[str, ...], fallback: int | None = 0) -> int | None:
    for name in wanted:
        if name in columns:
            return columns.index(name)
    return fallback if columns else None


def _id_text(value: str) -> str:
    """An id as compared (`id_key`): "7.0" (a float column pandas wrote) is "7"."""
    v = value.strip()
    if re.fullmatch(r"\d+\.0+", v):
        v = v.split(".", 1)[0]
    return id_key(v)


@dataclass(slots=True)
class CitationCount:
    """What the [Data: ...] citations of some text add up to against a context's tables (one
    answer's, or one part's: `add` pools them)."""

    references: int = 0  # dataset references ("Entities (1, 2)" is one)
    overlong: int = 0  # references listing more than MAX_IDS ids
    unknown_datasets: int = 0  # references to a dataset the prompt does not ask to cite
    malformed: int = 0  # blocks that could not be read entirely
    ids: int = 0  # record ids cited, ranges spelled out
    valid: int = 0
    # the other ids, by the dataset cited (as the prompt spells it; an unknown one as written)
    invalid_by_dataset: dict[str, int] = field(default_factory=dict)

    @property
    def invalid(self) -> int:
        return self.ids - self.valid

    def add(self, other: CitationCount) -> None:
        for name in ("references", "overlong", "unknown_datasets", "malformed", "ids", "valid"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for dataset, count in other.invalid_by_dataset.items():
            self.invalid_by_dataset[dataset] = self.invalid_by_dataset.get(dataset, 0) + count


def count_citations(text: str, tables: ContextTables, datasets: Sequence[str], *, checkable: bool) -> CitationCount:
    """The citations of `text` against the context: an id is valid when its dataset is one of
    `datasets` (the ones the prompt asks to cite) and, when the context can be `checkable`, that
    dataset's table lists it (no table: invalid); when it cannot, every id of a known dataset
    counts as valid. One id the table does not hold is one invalid citation, whatever its form:
    out of range, negative, past any int, not a number."""
    out = CitationCount()
    for citation in find_citations(text):
        out.malformed += citation.malformed
        for ref in citation.references:
            out.references += 1
            out.overlong += len(ref.ids) > MAX_IDS
            name = dataset_named(ref.dataset, datasets)
            out.unknown_datasets += name is None
            context = tables.ids_of(name) if name is not None else None
            for i in expand_ids(ref.ids):
                out.ids += 1
                ok = (context is not None and id_key(i) in context) if checkable else name is not None
                if ok:
                    out.valid += 1
                else:
                    where = name or " ".join(ref.dataset.split()) or "(no dataset)"
                    out.invalid_by_dataset[where] = out.invalid_by_dataset.get(where, 0) + 1
    return out


def expand_ids(ids: list[str]) -> list[str]:
    """The ids a reference lists, with ranges ("3-5") spelled out; a token that is no id stays as written."""
    out: list[str] = []
    for i in ids:
        out.extend(_expand([i]) or [i])
    return out
