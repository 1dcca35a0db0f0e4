"""Import Text2KGBench (github.com/cenguix/Text2KGBench): one suite per ontology of a data folder.

DATA_DIR is the benchmark's `data/dbpedia_webnlg` or `data/wikidata_tekgen` (or the latter's
`unseen_sentences`, see read_text2kgbench). Its files:

- `ontologies/<key>_ontology.json`: `{"title", "id", "concepts": [{"qid", "label"}],
  "relations": [{"pid", "label", "domain", "range"}]}`; domain and range are concept qids
  (Wikidata: `Q5`) or, in DBpedia, the concept labels themselves or a datatype (`string`, `Date`);
- `test/ont_<key>_test.jsonl`: `{"id", "sent"}` per test sentence;
- `ground_truth/ont_<key>_ground_truth.jsonl`: `{"id", "sent", "triples": [{"sub", "rel", "obj"}]}`;
- `train/ont_<key>_train.jsonl` (optional): DBpedia rows hold `triples` like the ground truth,
  Wikidata rows one triple as `sub_label`, `rel_label`, `obj_label`.

A suite `<key>` (`9_astronaut`) has one case per test sentence (its id the sentence's id), the
sentence's gold triples as typed, directed gold relationships (`GoldRelationship(sub, obj,
type=rel)`), the subjects and objects as gold entities, and the ontology under `ontology:`.
Names stay exactly as the benchmark writes them (`Alan_Shepard`, `"NWC, M.A. 1957"`), so that its
own evaluation (`--conventions text2kgbench`) compares the same strings; a readable spelling
(`Alan Shepard`, `NWC, M.A. 1957`) is added as an alias for the harness's matching.

The variant's prompt is Text2KGBench's (src/baselines/gen_prompt.py): the ontology's concepts and
relations, one example sentence with its triples, then the test sentence, laid out byte for byte
as the benchmark's published prompts (`baselines/prompts/`, see `prompt_template`). Text2KGBench
picks the example per test sentence: the first train sentence its
`baselines/test_train_sent_similarity/` file lists for it (the most similar, by a T5-XXL sentence
model). Each case gets that example as its own `example:` (the prompt's `{example}`); the
template's default, used when no similarity file or entry names one, is the first train sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..names import is_safe_name, shown
from .benchmarks import FUNCTION_FORMAT, GoldNames, read_json_file, read_jsonl_file
from .common import DEFAULT_MODEL, SuiteDraft, dump_yaml, relative_path, suite_root

ONTOLOGY_FILE = re.compile(r"\A(?P<key>.+)_ontology\.json\Z")
WIKIDATA_ID = re.compile(r"\AQ\d+\Z")
# The instructions as the published prompts write them: gen_prompt.py's (dbpedia_webnlg, and
# wikidata_tekgen's unseen sentences), and an earlier version's (wikidata_tekgen's test sentences)
INSTRUCTION = ("Given the following ontology and sentences, please extract the triples from the sentence according \n"
               "    to the relations in the ontology. In the output, only include the triples in the given output "
               "format. \n\nCONTEXT:\n\n")
EARLIER_INSTRUCTION = ("\nGiven the following ontology and sentences, please extract the triples from the sentence "
                       "according to the relations in the ontology. In the output, only include the triples in the "
                       "given output format.\nCONTEXT:\n")
SIMILARITY_FOLDER = ("baselines", "test_train_sent_similarity")


@dataclass
class OntologySet:
    """One ontology of a Text2KGBench data folder with its test sentences, gold and train rows."""

    key: str  # `9_astronaut`: the file names' middle part
    suite: str  # the suite's name: the key, with `_unseen` for the unseen sentences
    ontology_path: Path
    ontology: dict[str, Any]
    test_path: Path
    tests: list[dict[str, Any]]
    truth_path: Path
    truth: list[dict[str, Any]]
    train: list[dict[str, Any]] = field(default_factory=list)
    unseen: bool = False  # wikidata_tekgen's unseen_sentences
    # test sentence id -> train sentence ids, most similar first (baselines/test_train_sent_similarity/)
    similar: dict[str, list[str]] = field(default_factory=dict)
    similarity_path: Path | None = None


def _need(path: Path, row: Any, where: str, key: str, kind: type) -> Any:
    value = row.get(key) if isinstance(row, dict) else None
    if not isinstance(value, kind):
        raise InputError(f"{path}: {where}: `{key}` must be a {'string' if kind is str else 'list'}")
    return value


def _check_ontology(path: Path, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(f"{path}: an ontology is a JSON object with `concepts` and `relations`")
    for index, concept in enumerate(_need(path, data, "ontology", "concepts", list)):
        _need(path, concept, f"concepts[{index}]", "label", str)
    for index, relation in enumerate(_need(path, data, "ontology", "relations", list)):
        _need(path, relation, f"relations[{index}]", "label", str)
    return data


def read_text2kgbench(data_dir: Path, warnings: list[str]) -> list[OntologySet]:
    """The ontologies of a data folder that have test sentences and ground truth, by number.

    `wikidata_tekgen/unseen_sentences` works too: its ontologies and train files are its parent's,
    its files `ont_<key>_unseen_test.jsonl` and `ont_<key>_unseen_ground_truth.jsonl`."""
    unseen = not (data_dir / "ontologies").is_dir() and (data_dir.parent / "ontologies").is_dir() \
        and (data_dir / "test").is_dir()
    home = data_dir.parent if unseen else data_dir  # where ontologies/ and train/ are
    folder = home / "ontologies"
    if not folder.is_dir():
        raise InputError(f"{data_dir}: no ontologies/ folder (give the benchmark's data/dbpedia_webnlg "
                         "or data/wikidata_tekgen folder)")
    part = "_unseen" if unseen else ""
    found: list[OntologySet] = []
    for path in sorted(folder.glob("*_ontology.json")):
        match = ONTOLOGY_FILE.match(path.name)
        assert match is not None  # the glob's own pattern
        key = match["key"]
        test_path = data_dir / "test" / f"ont_{key}{part}_test.jsonl"
        truth_path = data_dir / "ground_truth" / f"ont_{key}{part}_ground_truth.jsonl"
        missing = [p for p in (test_path, truth_path) if not p.is_file()]
        if missing:
            warnings.append(f"{path}: skipped, {relative_path(missing[0], data_dir)} is missing")
            continue
        train_path = home / "train" / f"ont_{key}_train.jsonl"
        similarity_path = _similarity_file(home, key, part)
        found.append(OntologySet(
            key=key,
            suite=f"{key}{part}",
            ontology_path=path,
            ontology=_check_ontology(path, read_json_file(path, "ontology")),
            test_path=test_path,
            tests=read_jsonl_file(test_path, "test sentences"),
            truth_path=truth_path,
            truth=read_jsonl_file(truth_path, "ground truth"),
            train=read_jsonl_file(train_path, "train sentences") if train_path.is_file() else [],
            unseen=unseen,
            similar=_read_similarity(similarity_path) if similarity_path is not None else {},
            similarity_path=similarity_path,
        ))
    if not found:
        raise InputError(f"{data_dir}: no ontology of {folder} has its test/ and ground_truth/ files here")
    found.sort(key=lambda s: (int(s.key.split("_")[0]) if s.key.split("_")[0].isdigit() else 10**9, s.key))
    return found


def _similarity_file(home: Path, key: str, part: str) -> Path | None:
    """The benchmark's test-train similarity file of an ontology: `<key>_test_train_similarity.json`
    (dbpedia_webnlg) or `ont_<key>_...` (wikidata_tekgen), under `unseen/` for the unseen sentences."""
    folder = home.joinpath(*SIMILARITY_FOLDER) / ("unseen" if part else "")
    for name in (f"{key}{part}_test_train_similarity.json", f"ont_{key}{part}_test_train_similarity.json"):
        if (folder / name).is_file():
            return folder / name
    return None


def _read_similarity(path: Path) -> dict[str, list[str]]:
    """{test sentence id: [train sentence id, ...]}, or InputError naming the file and the entry."""
    data = read_json_file(path, "test-train similarity")
    if not isinstance(data, dict):
        raise InputError(f"{path}: a similarity file is a JSON object of test sentence id -> train sentence ids")
    for test_id, train_ids in data.items():
        if not isinstance(train_ids, list) or not all(isinstance(i, str) for i in train_ids):
            raise InputError(f"{path}: {shown(test_id)}: not a list of train sentence ids")
    return data


# --------------------------------------------------------------------------- ontology and prompt


def concept_labels(ontology: dict[str, Any]) -> dict[str, str]:
    """qid -> label of the ontology's concepts (DBpedia's qids are the labels themselves); of a qid
    listed twice, the first label, as gen_prompt.py's get_concept_label finds it."""
    labels: dict[str, str] = {}
    for concept in ontology["concepts"]:
        labels.setdefault(str(concept.get("qid", concept["label"])), concept["label"])
    return labels


def _type_key(label: str) -> str:
    """How the harness compares entity type labels (lower case, punctuation as spaces)."""
    return " ".join(re.sub(r"[\W_]+", " ", label.casefold()).split())


def _predicate_key(label: str) -> str:
    """How the harness compares predicates: as a type label, camelCase split (`birthPlace` == `birth place`)."""
    return _type_key(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", label))


def ontology_block(data: OntologySet, warnings: list[str]) -> dict[str, Any]:
    """The suite's `ontology:` (harness.model.Ontology): concept labels as entity types (each once);
    relations by label (each once; a relation listed twice with different domains or ranges keeps
    neither), with domain and range as concept labels. A domain or range
    that names no concept (DBpedia's datatypes `string`, `Date`, classes left out of the concept
    list, Wikidata qids without a concept) is left out, which the harness reads as "any type"."""
    by_key: dict[str, str] = {}
    for concept in data.ontology["concepts"]:  # every label, also of a qid listed twice (3_sport's Q27020041)
        by_key.setdefault(_type_key(concept["label"]), concept["label"])
    labels = concept_labels(data.ontology)
    relations: dict[str, dict[str, Any]] = {}  # predicate key -> entry, in file order
    dropped: set[str] = set()
    for relation in data.ontology["relations"]:
        key = _predicate_key(relation["label"])
        if not key:
            continue
        entry: dict[str, Any] = {"name": relation["label"]}
        for end in ("domain", "range"):
            value = relation.get(end)
            if isinstance(value, str) and value.strip():
                concept = by_key.get(_type_key(labels.get(value, value)))
                if concept is not None:
                    entry[end] = concept
                else:
                    dropped.add(value)
        first = relations.setdefault(key, entry)
        for end in ("domain", "range"):
            if first is not entry and first.get(end) != entry.get(end):
                first.pop(end, None)  # listed twice with two domains (or ranges): either will do
    if dropped:
        warnings.append(f"{data.ontology_path}: domain/range {', '.join(sorted(dropped))} name no concept of the "
                        "ontology; left out (any type will do)")
    return {
        "name": str(data.ontology.get("title") or data.key),
        "entity_types": list(by_key.values()),
        "relations": list(relations.values()),
    }


def _escape(text: str) -> str:
    """Literal text inside a template: braces doubled (harness.prompts.syntax)."""
    return text.replace("{", "{{").replace("}", "}}")


def _readable(name: str) -> str:
    """`Alan_Shepard` -> `Alan Shepard`; `"NWC, M.A. 1957"` -> `NWC, M.A. 1957` (gen_prompt.py's examples)."""
    text = name.replace("_", " ").strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return text


def example_text(row: dict[str, Any]) -> str | None:
    """A train sentence as the published prompts show it (`Example Sentence: ...` and its triples),
    None for a row without a sentence or a complete triple. dbpedia_webnlg's rows hold `triples`,
    written one a line as `rel(sub, obj)` with every underscore a space (`LCCN number(...)`, `Alan
    Bean`); wikidata_tekgen's rows are one triple, written on the line as `rel(sub,obj)` with the
    relation's spaces as underscores (src/baselines/gen_prompt.py's get_example_prompt)."""
    sentence = row.get("sent")
    if not isinstance(sentence, str) or not sentence.strip():
        return None
    if isinstance(row.get("triples"), list):
        parts = [(t.get("rel"), t.get("sub"), t.get("obj")) for t in row["triples"] if isinstance(t, dict)]
        lines = [f"{r}({s}, {o})".replace("_", " ") for r, s, o in parts if _complete(r, s, o)]
        return f"Example Sentence: {sentence}\nExample Output:\n" + "\n".join(lines) if lines else None
    relation, subject, obj = row.get("rel_label"), row.get("sub_label"), row.get("obj_label")
    if not (isinstance(relation, str) and _complete(relation, subject, obj)):
        return None
    return f"Example Sentence: {sentence}\nExample Output: {relation.replace(' ', '_')}({subject},{obj})"


def _complete(*parts: Any) -> bool:
    return all(isinstance(part, str) and part for part in parts)


def default_example(data: OntologySet) -> str | None:
    """The example of the first train sentence that makes one: the prompt's `{example}` when the
    similarity file names none for a case."""
    return next((text for text in map(example_text, data.train) if text is not None), None)


def case_examples(data: OntologySet, cases: set[str], warnings: list[str]) -> dict[str, str]:
    """Test sentence id -> its example, as gen_prompt.py chooses it: the first train sentence the
    similarity file lists for it. A test sentence the file leaves out, or whose first train
    sentence is not in the train file, is reported and takes the default example."""
    if data.similarity_path is None:
        if data.train:
            warnings.append(f"{data.ontology_path}: no test-train similarity file "
                            f"({'/'.join(SIMILARITY_FOLDER)}/); every case shows the first train sentence")
        return {}
    train = {row.get("id"): row for row in data.train if isinstance(row, dict)}
    chosen: dict[str, str] = {}
    unknown: list[str] = []
    for test_id in (row.get("id") for row in data.tests):
        if test_id not in cases:
            continue  # no case (no ground truth): already reported
        similar = data.similar.get(test_id) if isinstance(test_id, str) else None
        text = example_text(train[similar[0]]) if similar and similar[0] in train else None
        if text is None:
            unknown.append(str(test_id))
        else:
            chosen[str(test_id)] = text
    if unknown:
        warnings.append(f"{data.similarity_path}: no usable train sentence for {len(unknown)} test sentence(s) "
                        f"({', '.join(unknown[:3])}{', ...' if len(unknown) > 3 else ''}); they show the first one")
    return chosen


def relation_ends(data: OntologySet) -> list[tuple[str, str, str]]:
    """(relation, domain, range) as the published prompts write the ontology's relations: the
    relation's spaces as underscores; the domain the label of the first concept with that id,
    else nothing; the range likewise, else as written unless it is a Wikidata id (`Q500834`),
    which is left out (gen_prompt.py's get_concept_label; dbpedia_webnlg's published prompts keep
    datatypes and classes outside the concept list as ranges: `title(Astronaut,string)`)."""
    labels = concept_labels(data.ontology)
    ends: list[tuple[str, str, str]] = []
    for relation in data.ontology["relations"]:
        domain, range_ = relation.get("domain"), relation.get("range")
        domain_label = labels.get(domain, "") if isinstance(domain, str) else ""
        range_label = "" if not isinstance(range_, str) else labels.get(
            range_, "" if WIKIDATA_ID.match(range_) else range_)
        ends.append((relation["label"].replace(" ", "_"), domain_label, range_label))
    return ends


def earlier_layout(data: OntologySet) -> bool:
    """Whether the published prompts of this ontology use the earlier script's layout:
    wikidata_tekgen's test sentences (one-triple train rows), not its unseen sentences."""
    return not data.unseen and any(isinstance(row, dict) and "sub_label" in row for row in data.train)


def prompt_template(data: OntologySet) -> dict[str, Any]:
    """Text2KGBench's prompt as a YAML template (see yaml_template): instructions, the ontology,
    `{example}`, then the test sentence `{input_text}`, so that a case rendered with its own example
    is the benchmark's published prompt for that sentence, byte for byte."""
    concepts = "".join(f"{c['label']}, " for c in data.ontology["concepts"])[:-1]  # ends with ","
    relations = ", ".join(f"{name}({domain},{range_})" for name, domain, range_ in relation_ends(data))
    earlier = earlier_layout(data)
    text = (EARLIER_INSTRUCTION if earlier else INSTRUCTION) \
        + f"Ontology Concepts: {concepts}\nOntology Relations: {relations}"
    example = default_example(data)
    user = _escape(text) + ("\n\n{example}" if example is not None else "") + "\n\nTest Sentence: {input_text}\nTest Output: "
    template: dict[str, Any] = {
        "name": f"text2kgbench-{data.key}",
        "version": "imported",
        "description": f"Text2KGBench's prompt for the {data.ontology.get('title') or data.key} "
                       "(src/baselines/gen_prompt.py); each case gives its own example",
        "format": FUNCTION_FORMAT,
        # the entity types, language and delimiters the runner supplies are not part of this prompt
        "lint": {"ignore": ["variable-unused"]},
    }
    if example is not None:
        template["variables"] = {"example": example}
    template["user"] = user
    return template


# --------------------------------------------------------------------------- cases


def _cases(data: OntologySet, warnings: list[str]) -> list[dict[str, Any]]:
    truth: dict[str, dict[str, Any]] = {}
    for index, row in enumerate(data.truth, start=1):
        row_id = _need(data.truth_path, row, f"row {index}", "id", str)
        for t_index, triple in enumerate(_need(data.truth_path, row, f"row {index} ({row_id})", "triples", list)):
            for key in ("sub", "rel", "obj"):
                _need(data.truth_path, triple, f"row {index} ({row_id}): triples[{t_index}]", key, str)
        truth[row_id] = row
    examples = case_examples(data, set(truth), warnings)
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, row in enumerate(data.tests, start=1):
        case_id = _need(data.test_path, row, f"row {index}", "id", str)
        sentence = _need(data.test_path, row, f"row {index} ({case_id})", "sent", str)
        if not is_safe_name(case_id):
            raise InputError(f"{data.test_path}: row {index}: id {shown(case_id)} cannot be a case id "
                             "(letters, digits, '.', '_' and '-')")
        if case_id in seen:
            raise InputError(f"{data.test_path}: row {index}: id {case_id!r} appears twice")
        seen.add(case_id)
        gold = truth.get(case_id)
        if gold is None:
            warnings.append(f"{data.test_path}: {case_id}: no ground truth row; the sentence is left out")
            continue
        names = GoldNames()
        relationships: list[dict[str, Any]] = []
        for triple in gold["triples"]:
            for name in (triple["sub"], triple["obj"]):
                if not names.taken(name):
                    names.add(name, aliases=[_readable(name)])
            relationship = {"source": triple["sub"], "target": triple["obj"], "type": triple["rel"], "directed": True}
            if relationship not in relationships:
                relationships.append(relationship)
        case: dict[str, Any] = {"id": case_id, "text": sentence}
        if case_id in examples:
            case["example"] = examples[case_id]
        cases.append({**case, "annotated": True, "entities": names.entities, "relationships": relationships})
    for case_id in truth.keys() - seen:
        warnings.append(f"{data.truth_path}: {case_id}: not a test sentence; its ground truth is left out")
    return cases


def text2kgbench_drafts(data_dir: Path, out_dir: Path, *, model: str = DEFAULT_MODEL) -> list[tuple[Path, SuiteDraft]]:
    """One (suite path, draft) per ontology of the data folder; the prompts go under
    `<project>/prompts/text2kgbench/<key>.yaml`. Warnings are on the first draft."""
    warnings: list[str] = []
    sets = read_text2kgbench(data_dir, warnings)
    drafts: list[tuple[Path, SuiteDraft]] = []
    for data in sets:
        if not is_safe_name(data.suite):
            raise InputError(f"{data.ontology_path}: {shown(data.suite)} cannot be a suite name")
        out = out_dir / f"{data.suite}.yaml"
        root = suite_root(out)
        prompt_path = root / "prompts" / "text2kgbench" / f"{data.suite}.yaml"
        ontology = ontology_block(data, warnings)
        draft = SuiteDraft(
            name=data.suite,
            description=f"Text2KGBench {data_dir.resolve().name}: {ontology['name']} ({data.suite}), test sentences",
            notes=(f"Imported by `harness import text2kgbench` from {data_dir}: gold triples from "
                   f"{relative_path(data.truth_path, data_dir)}, ontology from {relative_path(data.ontology_path, data_dir)}. "
                   "Text2KGBench is CC BY-SA 4.0 (Mihindukulasooriya et al., ISWC 2023); see docs/benchmarks.md."),
            language="English",
            entity_types=list(ontology["entity_types"]),  # a copy: no YAML anchor
            model={"name": model, "temperature": 0, "max_gleanings": 0},
            variants={"text2kgbench": {"prompt": relative_path(prompt_path, root), "format": FUNCTION_FORMAT}},
            baseline="text2kgbench",
            matching={"directed": True},
            ontology=ontology,
            header=("# Written by `harness import text2kgbench`: the benchmark's gold triples (typed, directed)\n"
                    "# and ontology. The data are the benchmark authors' (CC BY-SA 4.0), not the harness's.\n"),
        )
        draft.cases = _cases(data, warnings)
        if not draft.cases:
            warnings.append(f"{data.test_path}: no test sentence with ground truth; suite {data.suite} not written")
            continue
        draft.files[prompt_path] = (
            f"# Written by `harness import text2kgbench` from {data.ontology_path.name}: the benchmark's prompt\n"
            "# (src/baselines/gen_prompt.py) for this ontology.\n" + dump_yaml(prompt_template(data))
        )
        drafts.append((out, draft))
    if drafts:
        drafts[0][1].warnings.extend(warnings)
    elif warnings:
        raise InputError(warnings[0])
    return drafts
