"""Import the WebNLG+ 2020 text-to-RDF test set (github.com/WebNLG/WebNLG-Text-to-triples, the
challenge's `semantic-parsing-test-data-with-refs-en.xml` and its Seen / Unseen Entities /
Unseen Entities and Categories parts), and turn a system's candidate XML into outputs rows.

A references file is `<benchmark><entries><entry category=".." eid="Id19" size="3">` with
`<modifiedtripleset><mtriple>S | p | O</mtriple>...` (the gold) and `<lex>` (the text). A suite
has one case per entry: its id the eid, its text the entry's first lex, its gold relationships
the mtriples in order (`GoldRelationship(S, O, type=p)`), names as written (`Turn_Me_On_(album)`)
with a readable alias (`Turn Me On (album)`). The suite's notes keep the file's split and each
category's case count. The challenge scores with its own conventions (`harness evaluate
--conventions webnlg`, harness.scoring.conventions.webnlg), which read the gold back in order.

A candidates file has `<entry>` elements (an `eid` optional: the challenge's submissions have
none and are matched to the references by position) with `<generatedtripleset><gtriple>`.
`candidate_rows` makes one outputs row per entry: `{"id", "output"}`, the output a JSON list of
the entry's gtriples, each split on ` | ` (`[["Trane", "location", "Ireland"]]`), which the
harness's own parse reads (`json_triples`) and the convention joins back to the gtriple as written.

The files are read as the scorer's BeautifulSoup does in one respect: a bare `&` (the
submissions hold `College_of_William_&_Mary`) is the character itself. Otherwise they are XML,
read with the standard library's parser after refusing any DTD or entity declaration
(`read_xml`), so no entity is ever expanded.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

from ..errors import InputError
from ..inputfiles import read_bytes
from ..names import is_safe_name, shown
from .benchmarks import MAX_BENCHMARK_BYTES, GoldNames
from .common import DEFAULT_MODEL, SuiteDraft, dump_yaml, relative_path, suite_root

# `&` that does not start a character or entity reference: the character itself
_BARE_AMPERSAND = re.compile(rb"&(?!(?:[A-Za-z_][\w.-]*|#[0-9]+|#x[0-9A-Fa-f]+);)")
_DECLARATION = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
PIPE = " | "
JSON_TRIPLES = "json_triples"  # the format the suite's prompt asks for and the candidates rows are written in
PROMPT = ("Extract the RDF triples (DBpedia entities and properties, written as DBpedia writes them) that the "
          "text states. Answer with a JSON list of [subject, property, object] lists and nothing else.\n\n"
          "Text: {input_text}\n\nTriples:\n")


@dataclass
class WebNLGEntry:
    """One `<entry>` of a references or candidates file."""

    position: int  # 1-based, in file order
    eid: str | None
    category: str | None
    texts: list[str] = field(default_factory=list)  # its <lex> texts
    triples: list[str] = field(default_factory=list)  # mtriples (references) or gtriples (candidates)


def read_xml(path: Path, what: str) -> Element:
    """The root of a WebNLG XML file, or InputError (one line: file, place, problem). A file
    with a DTD (`<!DOCTYPE`, `<!ENTITY`) is refused before parsing: without one, the parser has
    no entity to expand, internal or external."""
    from xml.etree.ElementTree import fromstring

    raw = read_bytes(path, limit=MAX_BENCHMARK_BYTES, what=what)
    declaration = _DECLARATION.search(raw)
    if declaration is not None:
        line = raw.count(b"\n", 0, declaration.start()) + 1
        raise InputError(f"{path}:{line}: a DTD or entity declaration; WebNLG files have none (refused)")
    raw = _BARE_AMPERSAND.sub(b"&amp;", raw)
    try:
        return fromstring(raw)
    except ParseError as exc:
        line, column = getattr(exc, "position", (0, 0))
        raise InputError(f"{path}:{line}:{column}: not well-formed XML") from None


def _entries(path: Path, root: Element, triple_tag: str, set_tag: str) -> list[WebNLGEntry]:
    entries: list[WebNLGEntry] = []
    for position, element in enumerate(root.iter("entry"), start=1):
        entry = WebNLGEntry(position, element.get("eid"), element.get("category"))
        entry.texts = [(lex.text or "").strip() for lex in element.findall("lex")]
        for holder in element.findall(set_tag):
            entry.triples += [(t.text or "").strip() for t in holder.findall(triple_tag)]
        entries.append(entry)
    if not entries:
        raise InputError(f"{path}: no <entry> element (a WebNLG <benchmark><entries> file)")
    return entries


def read_references(path: Path) -> list[WebNLGEntry]:
    """The entries of a references file; each needs an eid, a lex and mtriples of three parts."""
    entries = _entries(path, read_xml(path, "WebNLG references"), "mtriple", "modifiedtripleset")
    seen: set[str] = set()
    for entry in entries:
        where = f"{path}: entry {entry.position}"
        if not entry.eid:
            raise InputError(f"{where}: no eid attribute")
        if not is_safe_name(entry.eid):
            raise InputError(f"{where}: eid {shown(entry.eid)} cannot be a case id (letters, digits, '.', '_' and '-')")
        if entry.eid in seen:
            raise InputError(f"{where}: eid {entry.eid!r} appears twice")
        seen.add(entry.eid)
        if not entry.texts or not entry.texts[0]:
            raise InputError(f"{where} ({entry.eid}): no <lex> text")
        if not entry.triples:
            raise InputError(f"{where} ({entry.eid}): no <mtriple> in <modifiedtripleset>")
        for triple in entry.triples:
            if len(triple.split(PIPE)) != 3:
                raise InputError(f"{where} ({entry.eid}): mtriple {shown(triple)} is not 'subject | property | object'")
    return entries


def read_candidates(path: Path) -> list[WebNLGEntry]:
    """The entries of a candidates file (gtriples as written, an entry with none included)."""
    return _entries(path, read_xml(path, "WebNLG candidates"), "gtriple", "generatedtripleset")


def split_name(path: Path) -> str:
    """The challenge's split a references file holds, from its name (the repository's names)."""
    name = path.name.lower()
    for marker, split in (("unseen entities and categories", "unseen_categories"), ("unseen entities", "unseen_entities"),
                          ("(seen)", "seen")):
        if marker in name:
            return split
    return "all"


# --------------------------------------------------------------------------- suite


def _readable(name: str) -> str:
    text = name.replace("_", " ").strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return text


def _case(entry: WebNLGEntry, warnings: list[str], path: Path) -> dict[str, Any]:
    names = GoldNames()
    relationships: list[dict[str, Any]] = []
    for triple in entry.triples:
        subject, predicate, obj = triple.split(PIPE)
        for name in (subject, obj):
            if not names.taken(name):
                names.add(name, aliases=[_readable(name)])
        relationship = {"source": subject, "target": obj, "type": predicate, "directed": True}
        if relationship in relationships:
            warnings.append(f"{path}: {entry.eid}: mtriple {shown(triple)} given twice; kept once")
            continue
        relationships.append(relationship)
    if len(entry.texts) > 1:
        warnings.append(f"{path}: {entry.eid}: {len(entry.texts)} <lex> texts; the first is the case's text")
    return {"id": entry.eid, "text": entry.texts[0], "annotated": True,
            "entities": names.entities, "relationships": relationships}


def webnlg_draft(path: Path, out: Path, *, name: str, model: str = DEFAULT_MODEL) -> SuiteDraft:
    """A suite of the references file's entries; its prompt goes to `<project>/prompts/webnlg/<name>.yaml`."""
    entries = read_references(path)
    warnings: list[str] = []
    split = split_name(path)
    categories = Counter(entry.category or "(none)" for entry in entries)
    root = suite_root(out)
    prompt_path = root / "prompts" / "webnlg" / f"{name}.yaml"
    draft = SuiteDraft(
        name=name,
        description=f"WebNLG+ 2020 text-to-RDF test set ({split}): {len(entries)} entries",
        notes=(f"Imported by `harness import webnlg` from {path.name} (split: {split}). Case ids are the entries' "
               "eids; gold relationships are the mtriples in order. Categories: "
               + ", ".join(f"{category} {count}" for category, count in sorted(categories.items()))
               + ". WebNLG is CC BY-NC-SA 4.0 (Castro Ferreira et al., WebNLG+ 2020); see docs/benchmarks.md."),
        language="English",
        entity_types=[],
        model={"name": model, "temperature": 0, "max_gleanings": 0},
        variants={"webnlg": {"prompt": relative_path(prompt_path, root), "format": JSON_TRIPLES}},
        baseline="webnlg",
        matching={"directed": True},
        header=("# Written by `harness import webnlg`: the challenge's reference triples (directed, typed by\n"
                "# property). The data are the WebNLG authors' (CC BY-NC-SA 4.0), not the harness's.\n"),
    )
    draft.cases = [_case(entry, warnings, path) for entry in entries]
    draft.files[prompt_path] = (
        "# Written by `harness import webnlg`: a plain text-to-RDF prompt (the challenge ships none).\n"
        + dump_yaml({"name": f"webnlg-{name}", "version": "imported",
                     "description": "Text to RDF triples, as a JSON list of [subject, property, object]",
                     "format": JSON_TRIPLES,
                     "lint": {"ignore": ["variable-unused"]}, "user": PROMPT})
    )
    draft.warnings = warnings
    return draft


# --------------------------------------------------------------------------- candidates


def candidate_rows(path: Path, references: Path | None) -> tuple[list[dict[str, str]], list[str]]:
    """Outputs rows for a candidates file, and warnings. Entries without an eid take, by
    position, the eid of the references file's entry (needed then)."""
    entries = read_candidates(path)
    warnings: list[str] = []
    refs = read_references(references) if references is not None else None
    if refs is not None and len(refs) != len(entries):
        warnings.append(f"{path}: {len(entries)} entries, {references}: {len(refs)}; matched by position as far as both go")
    rows: list[dict[str, str]] = []
    for entry in entries:
        eid = entry.eid
        if not eid:
            if refs is None:
                raise InputError(f"{path}: entry {entry.position} has no eid; give --refs REFS.xml to match entries "
                                 "to the references by position")
            if entry.position > len(refs):
                warnings.append(f"{path}: entry {entry.position} has no reference entry; left out")
                continue
            eid = refs[entry.position - 1].eid
        rows.append({"id": str(eid), "output": json.dumps([triple.split(PIPE) for triple in entry.triples],
                                                          ensure_ascii=False)})
    return rows, warnings


__all__ = ["JSON_TRIPLES", "PROMPT", "WebNLGEntry", "candidate_rows", "read_candidates", "read_references", "read_xml", "split_name",
           "webnlg_draft"]
