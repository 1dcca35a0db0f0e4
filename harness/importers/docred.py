"""Import DocRED or Re-DocRED (document-level relation extraction): one case per document.

A file (`dev.json`, `train_annotated.json`, Re-DocRED's `dev_revised.json`, ...) is a JSON list of
documents `{"title", "sents": [[token, ...], ...], "vertexSet": [[mention, ...], ...],
"labels": [{"h", "t", "r", "evidence"}]}`; a mention is `{"name", "type", "sent_id", "pos": [start,
end]}` (token span of its sentence). `rel_info.json` maps P-ids to names (`"P17": "country"`).

- The case's text is the sentences' tokens joined back into prose: no space before `,` `.` `)`
  `'s` ..., none after `(` or an opening quote, none around a hyphen (`two - year` -> `two-year`).
- Each vertexSet entry is a gold entity: its first mention as name, the other mentions' names as
  aliases, the first mention's type. Mention names are rebuilt from their tokens the same way, so
  they read as in the text. Suites list a name once per case, so names come before aliases: an
  entity whose first name an earlier entity already has takes its next mention's name (or, with
  none left, `<name> [<vertexSet index>]`, with a warning), and an alias that is some entity's
  name, or an earlier entity's alias, is dropped.
- Each label is a typed, directed gold relationship `h -> t`, its type the name from rel_info
  (else the P-id). The labels are taken as complete (`annotated: true`); that holds for
  Re-DocRED, while DocRED's own labels miss many true relations (docs/benchmarks.md).
- The Hugging Face `docred` export, whose `labels` are columns (`head`, `tail`, `relation_id`,
  `relation_text`), is read too; there `relation_text` names a relation rel_info does not.
- `types` keeps only entities of those types, and the labels between kept entities; `limit` the
  first N documents. DocRED's test file has no labels and is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeGuard

from ..errors import InputError
from ..names import safe_name, shown
from ..prompts.builtin import PREFIX
from .benchmarks import FUNCTION_FORMAT, GoldNames, read_json_file
from .common import DEFAULT_MODEL, SuiteDraft, dump_yaml, relative_path, suite_root

DOCRED_TYPES = ("PER", "ORG", "LOC", "TIME", "NUM", "MISC")
TYPE_MEANINGS = {"PER": "person", "ORG": "organization", "LOC": "location", "TIME": "time or date",
                 "NUM": "number", "MISC": "other named thing (event, work, nationality, ...)"}
NO_SPACE_BEFORE = {",", ".", ";", ":", "!", "?", ")", "]", "}", "%", "'", "'s", "’s", "'re", "'m", "'ll", "'ve",
                   "'d", "n't", "'em", "”", "’", "...", "…"}
NO_SPACE_AFTER = {"(", "[", "{", "$", "£", "“", "‘"}
JOINERS = {"-", "/"}  # `two - year` -> `two-year`, `AC / DC` -> `AC/DC`


def detokenize(tokens: list[str]) -> str:
    """Tokens joined as prose. A `"` opens and closes quotes in turn (no space inside them)."""
    out = ""
    quote_open = False
    glue_next = True  # no space before the first token
    for token in tokens:
        if token == '"':
            if quote_open:
                out += token
                glue_next = False
            else:
                out += ("" if glue_next else " ") + token
                glue_next = True
            quote_open = not quote_open
            continue
        if token in JOINERS:
            out += token
            glue_next = True
            continue
        if not (glue_next or token in NO_SPACE_BEFORE):
            out += " "
        out += token
        glue_next = token in NO_SPACE_AFTER
    return out


# --------------------------------------------------------------------------- reading


def _fail(path: Path, index: int, doc: Any, problem: str) -> InputError:
    title = doc.get("title") if isinstance(doc, dict) else None
    named = f" ({shown(title)})" if isinstance(title, str) else ""
    return InputError(f"{path}: document {index}{named}: {problem}")


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_document(path: Path, index: int, doc: Any) -> None:
    """Raise InputError on the first thing in a document that is not DocRED's shape."""
    if not isinstance(doc, dict):
        raise _fail(path, index, doc, "a document is a JSON object with sents, vertexSet and labels")
    sents = doc.get("sents")
    if not isinstance(sents, list) or not all(isinstance(s, list) and all(isinstance(t, str) for t in s) for s in sents):
        raise _fail(path, index, doc, "`sents` must be a list of token lists")
    vertex_set = doc.get("vertexSet")
    if not isinstance(vertex_set, list):
        raise _fail(path, index, doc, "`vertexSet` must be a list of mention lists")
    for v_index, mentions in enumerate(vertex_set):
        if not isinstance(mentions, list) or not mentions:
            raise _fail(path, index, doc, f"vertexSet[{v_index}] must be a non-empty list of mentions")
        for m_index, mention in enumerate(mentions):
            where = f"vertexSet[{v_index}][{m_index}]"
            if not isinstance(mention, dict) or not isinstance(mention.get("name"), str) or not isinstance(mention.get("type"), str):
                raise _fail(path, index, doc, f"{where} needs a string `name` and `type`")
    if isinstance(doc.get("labels"), dict):
        doc["labels"] = _columns_to_rows(path, index, doc)
    if "labels" not in doc:
        raise _fail(path, index, doc, "no `labels` (DocRED's test file is unlabelled: import dev or train, "
                                      "or Re-DocRED's test_revised.json)")
    labels = doc["labels"]
    if not isinstance(labels, list):
        raise _fail(path, index, doc, "`labels` must be a list")
    for l_index, label in enumerate(labels):
        if not isinstance(label, dict) or not isinstance(label.get("r"), str) or not _is_int(label.get("h")) \
                or not _is_int(label.get("t")):
            raise _fail(path, index, doc, f"labels[{l_index}] needs integer `h`, `t` and a string `r`")
        for end in ("h", "t"):
            if not 0 <= label[end] < len(vertex_set):
                raise _fail(path, index, doc, f"labels[{l_index}].{end} = {label[end]} is not an index of vertexSet "
                                              f"(0..{len(vertex_set) - 1})")


def _columns_to_rows(path: Path, index: int, doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The Hugging Face `docred` export's labels, `{"head": [...], "tail": [...], "relation_id": [...],
    "relation_text": [...]}`, as DocRED's rows `{"h", "t", "r", "name"}`."""
    columns = doc["labels"]
    heads, tails, ids = columns.get("head"), columns.get("tail"), columns.get("relation_id")
    texts = columns.get("relation_text") or [None] * len(ids or [])
    if not all(isinstance(c, list) for c in (heads, tails, ids, texts)) or not len(heads) == len(tails) == len(ids) == len(texts):
        raise _fail(path, index, doc, "`labels` as columns needs lists `head`, `tail`, `relation_id` of one length")
    rows = []
    for h, t, r, name in zip(heads, tails, ids, texts):
        row: dict[str, Any] = {"h": h, "t": t, "r": r}
        if isinstance(name, str) and name.strip():
            row["name"] = name
        rows.append(row)
    return rows


def read_docred(path: Path) -> list[dict[str, Any]]:
    """The documents of a DocRED / Re-DocRED file, each checked (one-line InputError otherwise)."""
    data = read_json_file(path, "DocRED file")
    if not isinstance(data, list):
        raise InputError(f"{path}: a DocRED file is a JSON list of documents, found {type(data).__name__}")
    for index, doc in enumerate(data):
        _check_document(path, index, doc)
    return data


def read_rel_info(path: Path) -> dict[str, str]:
    """rel_info.json: `{"P17": "country", ...}`."""
    data = read_json_file(path, "rel_info")
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in data.items()):
        raise InputError(f"{path}: rel_info is a JSON object of P-id -> relation name strings")
    return data


# --------------------------------------------------------------------------- one document


def _mention_name(doc: dict[str, Any], mention: dict[str, Any]) -> str:
    """The mention's tokens joined like the text; its `name` when its span does not point into `sents`."""
    sent_id, pos = mention.get("sent_id"), mention.get("pos")
    if _is_int(sent_id) and 0 <= sent_id < len(doc["sents"]) and isinstance(pos, list) and len(pos) == 2 \
            and all(_is_int(p) for p in pos) and 0 <= pos[0] < pos[1] <= len(doc["sents"][sent_id]):
        return detokenize(doc["sents"][sent_id][pos[0]:pos[1]])
    return " ".join(mention["name"].split())


def document_case(doc: dict[str, Any], index: int, relations: dict[str, str], types: set[str] | None,
                  clashes: list[str]) -> dict[str, Any]:
    """One case: the rebuilt text, gold entities (vertexSet) and typed relationships (labels). An
    entity whose every name another entity of the document already uses is named `<name> [<index>]`
    (and listed in `clashes`): a suite lists a name once per case."""
    text = " ".join(detokenize(sentence) for sentence in doc["sents"] if sentence)
    given_title = doc.get("title")
    title = given_title if isinstance(given_title, str) else ""
    case_id = f"{index:04d}-{safe_name(title, fallback='doc')[:80]}"
    mention_names = [list(dict.fromkeys(_mention_name(doc, m) for m in mentions)) for mentions in doc["vertexSet"]]
    kept = [i for i, mentions in enumerate(doc["vertexSet"]) if types is None or mentions[0]["type"] in types]
    primary: dict[int, str] = {}
    for i in kept:
        free = [n for n in mention_names[i] if n not in primary.values()]
        if free:
            primary[i] = free[0]
        else:
            primary[i] = f"{mention_names[i][0]} [{i}]"
            clashes.append(f"{case_id}: vertexSet[{i}] as {primary[i]!r}")
    names = GoldNames()
    taken_by_primary = set(primary.values())
    for i in kept:
        aliases = [n for n in mention_names[i] if n not in taken_by_primary]
        names.add(primary[i], type=doc["vertexSet"][i][0]["type"], aliases=aliases)
    relationships: list[dict[str, Any]] = []
    for label in doc["labels"]:
        if label["h"] in primary and label["t"] in primary:
            relationship = {"source": primary[label["h"]], "target": primary[label["t"]],
                            "type": relation_name(label, relations), "directed": True}
            if relationship not in relationships:
                relationships.append(relationship)
    return {"id": case_id, "text": text, "annotated": True, "entities": names.entities, "relationships": relationships}


# --------------------------------------------------------------------------- the suite


def prompt_template(relations: list[str], entity_types: list[str]) -> dict[str, Any]:
    """A document-level prompt in Text2KGBench's style: the relation list, then `rel(head, tail)` lines."""
    listed = "\n".join(f"- {r.replace(' ', '_')}" for r in relations)
    kinds = ", ".join(f"{t} ({TYPE_MEANINGS[t]})" if t in TYPE_MEANINGS else t for t in entity_types)
    user = (
        "Read the document below and extract every relation it states between named entities "
        f"({kinds}).\n\n"
        f"Use only these relations:\n{listed}\n\n"
        "Write one triple per line as relation(head entity, tail entity), with the relation name exactly as listed "
        "and the entity names as the document writes them. Write nothing else.\n"
        "Example: country(Berlin, Germany)\n\n"
        "Document:\n{input_text}\n\nTriples:\n"
    )
    return {
        "name": "docred-extract-triples",
        "version": "imported",
        "description": "Document-level relation extraction into the DocRED relations, one rel(head, tail) per line",
        "format": FUNCTION_FORMAT,
        "lint": {"ignore": ["variable-unused"]},
        "user": user.replace("{", "{{").replace("}", "}}").replace("{{input_text}}", "{input_text}"),
    }


def docred_draft(file: Path, out: Path, *, name: str, rel_info: Path | None = None, types: list[str] | None = None,
                 limit: int | None = None, model: str = DEFAULT_MODEL) -> SuiteDraft:
    """The suite of a DocRED / Re-DocRED file (see the module docstring)."""
    documents = read_docred(file)
    relations = read_rel_info(rel_info) if rel_info is not None else {}
    if not documents:
        raise InputError(f"{file}: no documents")
    chosen = documents[:limit] if limit is not None else documents
    wanted = set(types) if types else None
    warnings: list[str] = []
    clashes: list[str] = []
    cases = [document_case(doc, i, relations, wanted, clashes) for i, doc in enumerate(chosen)]
    if clashes:
        warnings.append(f"{file}: {len(clashes)} entit{'y' if len(clashes) == 1 else 'ies'} share every name with "
                        f"another entity of their document and are named '<name> [<vertexSet index>]' "
                        f"({'; '.join(clashes[:3])}{'; ...' if len(clashes) > 3 else ''})")
    present = list(dict.fromkeys(e.get("type", "") for case in cases for e in case["entities"] if e.get("type")))
    if wanted is not None:
        for missing in sorted(wanted - set(present)):
            warnings.append(f"--types: no entity of type {missing!r} in the imported documents")
    entity_types = [t for t in DOCRED_TYPES if t in present] + [t for t in present if t not in DOCRED_TYPES]
    # every relation of rel_info, then those the labels name otherwise (HF's relation_text, or the P-id)
    labels = sorted({l["r"]: l for doc in chosen for l in doc["labels"]}.values(), key=lambda l: _pid_order(l["r"]))
    relation_names = list(dict.fromkeys([*relations.values(), *(relation_name(l, relations) for l in labels)]))
    unknown = [l["r"] for l in labels if relations and l["r"] not in relations and not l.get("name")]
    if unknown:
        warnings.append(f"{rel_info}: no name for {', '.join(unknown[:5])}{', ...' if len(unknown) > 5 else ''}; "
                        "kept as P-ids")
    root = suite_root(out)
    prompt_path = root / "prompts" / name / "extract_triples.yaml"
    draft = SuiteDraft(
        name=name,
        description=f"DocRED-format documents from {file.name}: gold entities (vertexSet) and typed relations (labels)",
        notes=(f"Imported by `harness import docred` from {file}"
               + (f" with relation names from {rel_info}" if rel_info else " (relations as P-ids: pass --rel-info)")
               + (f", entity types {', '.join(types)}" if types else "")
               + ". DocRED's labels are incomplete (Re-DocRED's are not): with DocRED, precision is a lower bound. "
                 "The data are their authors' (see docs/benchmarks.md)."),
        language="English",
        entity_types=list(entity_types or DOCRED_TYPES),
        model={"name": model, "temperature": 0, "max_gleanings": 0},
        variants={
            "triples": {"prompt": relative_path(prompt_path, root), "format": FUNCTION_FORMAT},
            "graphrag": {"prompt": f"{PREFIX}graphrag.extract_graph", "format": "graphrag"},
        },
        baseline="triples",
        matching={"directed": True},
        ontology={"name": "DocRED relations", "entity_types": list(entity_types or DOCRED_TYPES),
                  "relations": [{"name": r} for r in relation_names]},
        header=("# Written by `harness import docred`: the documents' gold entities and typed relations.\n"
                "# The data are the benchmark authors', not the harness's (docs/benchmarks.md).\n"),
        cases=cases,
        warnings=warnings,
    )
    draft.files[prompt_path] = ("# Written by `harness import docred`: extraction into the DocRED relations.\n"
                                + dump_yaml(prompt_template(relation_names, draft.entity_types)))
    return draft


def relation_name(label: dict[str, Any], relations: dict[str, str]) -> str:
    """A label's predicate: its rel_info name, else the name the file gives it, else its P-id."""
    return relations.get(label["r"]) or label.get("name") or label["r"]


def _pid_order(pid: str) -> tuple[int, str]:
    return (int(pid[1:]) if pid[1:].isdigit() else 10**9, pid)
