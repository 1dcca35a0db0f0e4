"""`harness import text2kgbench`: a suite per ontology, typed gold triples, the ontology, the prompt.

The data folder is written here in Text2KGBench's layout and formats (a Wikidata-style ontology with
qids, a DBpedia-style one whose concepts are their own ids); no file of the benchmark is shipped.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from harness.run.plan import plan_variant
from harness.suites import load_suite

MOVIE_ONTOLOGY = {
    "title": "Movie Ontology", "id": "ont_1_movie",
    "concepts": [{"qid": "Q5", "label": "human"}, {"qid": "Q11424", "label": "film"},
                 {"qid": "Q483394", "label": "genre"}],
    "relations": [
        {"pid": "P57", "label": "director", "domain": "Q11424", "range": "Q5"},
        {"pid": "P136", "label": "genre", "domain": "Q11424", "range": "Q483394"},
        {"pid": "P577", "label": "publication date", "domain": "Q11424", "range": ""},
        {"pid": "P840", "label": "narrative location", "domain": "Q11424", "range": "Q999"},  # no such concept
        {"pid": "P57", "label": "director", "domain": "Q11424", "range": "Q5"},  # listed twice in the file
        {"pid": "P136", "label": "genre", "domain": "Q5", "range": "Q483394"},  # again, with another domain
    ],
}
MOVIE_TESTS = [
    {"id": "ont_1_movie_test_1", "sent": "Spirited Away is a 2001 film written and directed by Hayao Miyazaki."},
    {"id": "ont_1_movie_test_2", "sent": "Keyboard Cat was made in 1984 by Charlie Schmidt."},
    {"id": "ont_1_movie_test_3", "sent": "The series was directed by Mitsuko Kase."},  # no ground truth row
]
MOVIE_TRUTH = [
    {"id": "ont_1_movie_test_1", "sent": MOVIE_TESTS[0]["sent"], "triples": [
        {"sub": "Spirited Away", "rel": "director", "obj": "Hayao Miyazaki"},
        {"sub": "Spirited Away", "rel": "publication date", "obj": "01 January 2001"}]},
    {"id": "ont_1_movie_test_2", "sent": MOVIE_TESTS[1]["sent"], "triples": [
        {"sub": "Keyboard Cat", "rel": "director", "obj": "Charlie Schmidt"},
        {"sub": "Keyboard Cat", "rel": "director", "obj": "Charlie Schmidt"}]},  # the same triple twice
    {"id": "ont_1_movie_test_9", "sent": "Not a test sentence.", "triples": []},
]
MOVIE_TRAIN = [{"id": "ont_1_movie_train_1", "sub_label": "She and Her Cat", "rel_label": "director",
                "obj_label": "Makoto Shinkai", "sent": "She and Her Cat is a 1999 film directed by Makoto Shinkai.",
                "sub": "Q584204", "rel": "P57", "obj": "Q335080"}]

ASTRONAUT_ONTOLOGY = {
    "title": "Astronaut Ontology", "id": "ont_2_astronaut",
    "concepts": [{"qid": "Astronaut", "label": "Astronaut"}, {"qid": "Place", "label": "Place"},
                 {"qid": "Place", "label": "Place"}, {"qid": "Mission", "label": "Mission"}],
    "relations": [
        {"pid": "birthPlace", "label": "birthPlace", "domain": "Astronaut", "range": "Place"},
        {"pid": "mission", "label": "mission", "domain": "Astronaut", "range": "Mission"},
        {"pid": "almaMater", "label": "almaMater", "domain": "Person", "range": "School"},
        {"pid": "dateOfRetirement", "label": "dateOfRetirement", "domain": "Astronaut", "range": "Date"},
    ],
}
ASTRONAUT_TESTS = [{"id": "ont_2_astronaut_test_1",
                    "sent": "Alan Shepard was born in New Hampshire and graduated from NWC with an M.A. in 1957."}]
ASTRONAUT_TRUTH = [{"id": "ont_2_astronaut_test_1", "sent": ASTRONAUT_TESTS[0]["sent"], "triples": [
    {"sub": "Alan_Shepard", "rel": "birthPlace", "obj": "New_Hampshire"},
    {"sub": "Alan_Shepard", "rel": "almaMater", "obj": "\"NWC, M.A. 1957\""}]}]
ASTRONAUT_TRAIN = [{"id": "ont_2_astronaut_train_1", "sent": "William Anders served on Apollo 8 and retired 1969-09-01.",
                    "triples": [{"sub": "William_Anders", "rel": "mission", "obj": "Apollo_8"},
                                {"sub": "William_Anders", "rel": "dateOfRetirement", "obj": "\"1969-09-01\""}]}]


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def write_data(folder: Path) -> Path:
    """A two-ontology data folder in Text2KGBench's layout."""
    (folder / "ontologies").mkdir(parents=True)
    for key, ontology, tests, truth, train in (
        ("1_movie", MOVIE_ONTOLOGY, MOVIE_TESTS, MOVIE_TRUTH, MOVIE_TRAIN),
        ("2_astronaut", ASTRONAUT_ONTOLOGY, ASTRONAUT_TESTS, ASTRONAUT_TRUTH, ASTRONAUT_TRAIN),
    ):
        (folder / "ontologies" / f"{key}_ontology.json").write_text(json.dumps(ontology, indent=1), encoding="utf-8")
        _jsonl(folder / "test" / f"ont_{key}_test.jsonl", tests)
        _jsonl(folder / "ground_truth" / f"ont_{key}_ground_truth.jsonl", truth)
        _jsonl(folder / "train" / f"ont_{key}_train.jsonl", train)
    return folder


def _import(harness_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    data = write_data(tmp_path / "data" / "wikidata_tekgen")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return harness_cli(["import", "text2kgbench", str(data), *extra])


def test_one_suite_per_ontology_with_the_sentences_ids_and_gold(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    assert _import(harness_cli, tmp_path, monkeypatch) == 0
    out, err = capsys.readouterr()
    # movie: test_1 has 2 triples, test_2 one (its repeated triple counted once), test_3 has no ground truth
    assert "wrote suites/1_movie.yaml: 2 case(s), 3 gold relationship(s), ontology of 4 relation(s)" in out
    assert "wrote suites/2_astronaut.yaml: 1 case(s), 2 gold relationship(s), ontology of 4 relation(s)" in out
    assert "ont_1_movie_test_3: no ground truth row; the sentence is left out" in err
    assert "ont_1_movie_test_9: not a test sentence" in err

    movie = load_suite(Path("suites/1_movie.yaml"))
    assert [c.id for c in movie.cases] == ["ont_1_movie_test_1", "ont_1_movie_test_2"]
    first = movie.cases[0]
    assert first.text == MOVIE_TESTS[0]["sent"]
    assert first.annotated is True
    assert [e.name for e in first.entities] == ["Spirited Away", "Hayao Miyazaki", "01 January 2001"]
    assert [(r.source, r.type, r.target, r.directed) for r in first.relationships] == [
        ("Spirited Away", "director", "Hayao Miyazaki", True),
        ("Spirited Away", "publication date", "01 January 2001", True)]
    assert [(r.source, r.type, r.target) for r in movie.cases[1].relationships] == [
        ("Keyboard Cat", "director", "Charlie Schmidt")]
    assert movie.spec.matching.directed is True


def test_the_ontology_maps_qids_to_labels_and_keeps_each_relation_once(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    assert _import(harness_cli, tmp_path, monkeypatch) == 0
    err = capsys.readouterr().err
    movie = load_suite(Path("suites/1_movie.yaml")).spec
    assert movie.ontology is not None
    assert movie.ontology.name == "Movie Ontology"
    assert movie.ontology.entity_types == ["human", "film", "genre"] == movie.entity_types
    assert [(r.name, r.domain, r.range) for r in movie.ontology.relations] == [
        ("director", "film", "human"), ("genre", None, "genre"),  # two domains: either will do
        ("publication date", "film", None),  # an empty range: any type
        ("narrative location", "film", None)]  # Q999 is no concept of the ontology
    astronaut = load_suite(Path("suites/2_astronaut.yaml")).spec
    assert astronaut.ontology is not None
    assert astronaut.ontology.entity_types == ["Astronaut", "Place", "Mission"]  # Place listed twice in the file
    assert [(r.name, r.domain, r.range) for r in astronaut.ontology.relations] == [
        ("birthPlace", "Astronaut", "Place"), ("mission", "Astronaut", "Mission"),
        ("almaMater", None, None), ("dateOfRetirement", "Astronaut", None)]
    assert "domain/range Date, Person, School name no concept of the ontology" in err
    assert "domain/range Q999 name no concept" in err


def test_a_qid_listed_twice_keeps_both_labels_as_entity_types(harness_cli, tmp_path, monkeypatch) -> None:
    """3_sport lists Q27020041 as `sports team season` and `sports season`: run_eval.py reads every
    concept label (the hallucination context), so both are entity types."""
    data = write_data(tmp_path / "data" / "wikidata_tekgen")
    ontology = {**MOVIE_ONTOLOGY, "concepts": [*MOVIE_ONTOLOGY["concepts"], {"qid": "Q483394", "label": "film genre"}]}
    (data / "ontologies" / "1_movie_ontology.json").write_text(json.dumps(ontology), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "text2kgbench", str(data)]) == 0
    movie = load_suite(Path("suites/1_movie.yaml")).spec
    assert movie.ontology is not None and movie.ontology.entity_types == ["human", "film", "genre", "film genre"]
    # a domain or range names the first concept of its qid, as gen_prompt.py's get_concept_label does
    assert [(r.name, r.range) for r in movie.ontology.relations][:2] == [("director", "human"), ("genre", "genre")]


def test_dbpedia_names_stay_verbatim_with_a_readable_alias(harness_cli, tmp_path, monkeypatch) -> None:
    assert _import(harness_cli, tmp_path, monkeypatch) == 0
    case = load_suite(Path("suites/2_astronaut.yaml")).cases[0]
    assert [(e.name, e.aliases) for e in case.entities] == [
        ("Alan_Shepard", ["Alan Shepard"]), ("New_Hampshire", ["New Hampshire"]),
        ('"NWC, M.A. 1957"', ["NWC, M.A. 1957"])]
    assert [(r.source, r.type, r.target) for r in case.relationships] == [
        ("Alan_Shepard", "birthPlace", "New_Hampshire"), ("Alan_Shepard", "almaMater", '"NWC, M.A. 1957"')]


def test_the_prompt_is_text2kgbenchs_with_the_ontology_and_a_train_example(harness_cli, tmp_path, monkeypatch) -> None:
    assert _import(harness_cli, tmp_path, monkeypatch) == 0
    suite = load_suite(Path("suites/2_astronaut.yaml"))
    assert suite.spec.variants["text2kgbench"].prompt == "prompts/text2kgbench/2_astronaut.yaml"
    plan = plan_variant(suite, "text2kgbench")
    assert plan.format == "function"
    text = plan.render(suite.cases[0])[-1]["content"]
    # gen_prompt.py's layout (a DBpedia-style ontology): its instructions as the script writes them
    assert text.startswith("Given the following ontology and sentences, please extract the triples from the sentence "
                           "according \n    to the relations in the ontology. In the output, only include the triples "
                           "in the given output format. \n\nCONTEXT:\n\n")
    assert "Ontology Concepts: Astronaut, Place, Place, Mission,\n" in text  # as gen_prompt.py lists them
    # a domain naming no concept is left out; a range is kept as written (the published prompts)
    assert ("Ontology Relations: birthPlace(Astronaut,Place), mission(Astronaut,Mission), almaMater(,School), "
            "dateOfRetirement(Astronaut,Date)\n\n") in text
    assert ("Example Sentence: William Anders served on Apollo 8 and retired 1969-09-01.\nExample Output:\n"
            "mission(William Anders, Apollo 8)\ndateOfRetirement(William Anders, \"1969-09-01\")\n\n") in text
    assert text.endswith(f"\n\nTest Sentence: {ASTRONAUT_TESTS[0]['sent']}\nTest Output: ")
    movie = load_suite(Path("suites/1_movie.yaml"))
    movie_text = plan_variant(movie, "text2kgbench").render(movie.cases[0])[-1]["content"]
    # Wikidata test sentences: the earlier script's layout; domains and ranges are qids shown as
    # labels, one naming no concept left out; relation names with spaces take underscores
    assert movie_text.startswith("\nGiven the following ontology and sentences, please extract the triples from the "
                                 "sentence according to the relations in the ontology. In the output, only include "
                                 "the triples in the given output format.\nCONTEXT:\nOntology Concepts: human, film, "
                                 "genre,\n")
    assert "publication_date(film,), narrative_location(film,)" in movie_text
    assert "Example Output: director(She and Her Cat,Makoto Shinkai)\n\n" in movie_text


def test_without_a_similarity_file_every_case_shows_the_first_train_sentence(harness_cli, tmp_path, monkeypatch,
                                                                              capsys) -> None:
    assert _import(harness_cli, tmp_path, monkeypatch) == 0
    assert "2_astronaut_ontology.json: no test-train similarity file" in capsys.readouterr().err
    suite = load_suite(Path("suites/2_astronaut.yaml"))
    assert suite.cases[0].example is None  # the template's own `{example}`: the first train sentence
    assert "Example Sentence: William Anders" in plan_variant(suite, "text2kgbench").render(suite.cases[0])[-1]["content"]


def test_a_similarity_file_gives_each_case_its_example(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    data = write_data(tmp_path / "data" / "dbpedia_webnlg")
    _jsonl(data / "train" / "ont_2_astronaut_train.jsonl", [*ASTRONAUT_TRAIN, {
        "id": "ont_2_astronaut_train_2", "sent": "Buzz Aldrin was born in Glen Ridge.",
        "triples": [{"sub": "Buzz_Aldrin", "rel": "birthPlace", "obj": "Glen_Ridge"}]}])
    folder = data / "baselines" / "test_train_sent_similarity"
    folder.mkdir(parents=True)
    (folder / "2_astronaut_test_train_similarity.json").write_text(json.dumps(
        {"ont_2_astronaut_test_1": ["ont_2_astronaut_train_2", "ont_2_astronaut_train_1"]}), encoding="utf-8")
    (folder / "1_movie_test_train_similarity.json").write_text(json.dumps(
        {"ont_1_movie_test_1": ["ont_1_movie_train_1"], "ont_1_movie_test_2": ["ont_1_movie_train_7"]}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "text2kgbench", str(data)]) == 0
    err = capsys.readouterr().err
    # the first one the file lists, not the first of the train file
    case = load_suite(Path("suites/2_astronaut.yaml")).cases[0]
    assert case.example == "Example Sentence: Buzz Aldrin was born in Glen Ridge.\nExample Output:\nbirthPlace(Buzz Aldrin, Glen Ridge)"
    rendered = plan_variant(load_suite(Path("suites/2_astronaut.yaml")), "text2kgbench").render(case)[-1]["content"]
    assert "Buzz Aldrin" in rendered and "William Anders" not in rendered
    # a train id the train file does not hold: reported, and the case shows the default example
    assert "1_movie_test_train_similarity.json: no usable train sentence for 1 test sentence(s) (ont_1_movie_test_2)" in err
    movie = load_suite(Path("suites/1_movie.yaml"))
    assert movie.cases[0].example is not None and movie.cases[1].example is None


def test_a_case_example_feeds_the_prompt_and_the_examples_text_per_case(harness_cli, tmp_path, monkeypatch) -> None:
    """The few-shot leak check reads each case's own prompt without its chunk, not the first case's."""
    data = write_data(tmp_path / "data" / "dbpedia_webnlg")
    folder = data / "baselines" / "test_train_sent_similarity"
    folder.mkdir(parents=True)
    tests = [*ASTRONAUT_TESTS, {"id": "ont_2_astronaut_test_2", "sent": ASTRONAUT_TRAIN[0]["sent"]}]
    _jsonl(data / "test" / "ont_2_astronaut_test.jsonl", tests)
    _jsonl(data / "ground_truth" / "ont_2_astronaut_ground_truth.jsonl", [*ASTRONAUT_TRUTH, {
        "id": "ont_2_astronaut_test_2", "sent": tests[1]["sent"],
        "triples": [{"sub": "William_Anders", "rel": "mission", "obj": "Apollo_8"}]}])
    _jsonl(data / "train" / "ont_2_astronaut_train.jsonl", [*ASTRONAUT_TRAIN, {
        "id": "ont_2_astronaut_train_2", "sent": "Buzz Aldrin was born in Glen Ridge.",
        "triples": [{"sub": "Buzz_Aldrin", "rel": "birthPlace", "obj": "Glen_Ridge"}]}])
    (folder / "2_astronaut_test_train_similarity.json").write_text(json.dumps(
        {"ont_2_astronaut_test_1": ["ont_2_astronaut_train_2"], "ont_2_astronaut_test_2": ["ont_2_astronaut_train_1"]}),
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "text2kgbench", str(data)]) == 0
    suite = load_suite(Path("suites/2_astronaut.yaml"))
    plan = plan_variant(suite, "text2kgbench")
    first, second = suite.cases
    assert "Buzz Aldrin" in (plan.examples_text(first) or "")
    assert "William Anders" in (plan.examples_text(second) or "")
    # the second test sentence is its own example (train_1's sentence): a leak; the first shows another
    assert plan.prompt_contains_chunk(second) and not plan.prompt_contains_chunk(first)
    assert "Buzz Aldrin" in (plan.examples_text(first) or "")  # asked again after the other case


def test_an_existing_suite_is_kept_unless_forced(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    assert _import(harness_cli, tmp_path, monkeypatch) == 0
    data = tmp_path / "data" / "wikidata_tekgen"
    Path("suites/1_movie.yaml").unlink()  # one suite missing, the other there: nothing is written
    assert harness_cli(["import", "text2kgbench", str(data)]) == 2
    assert "suites/2_astronaut.yaml" in capsys.readouterr().err
    assert not Path("suites/1_movie.yaml").exists()
    assert harness_cli(["import", "text2kgbench", str(data), "--force", "--out", "suites"]) == 0


@pytest.mark.parametrize(("damage", "message"), [
    (lambda d: shutil.rmtree(d / "ontologies"), "no ontologies/ folder"),
    (lambda d: (d / "ground_truth" / "ont_1_movie_ground_truth.jsonl").write_text('{"id": "x", "triples": []}\n{oops\n'),
     "ont_1_movie_ground_truth.jsonl:2: not valid JSON"),
    (lambda d: (d / "ontologies" / "2_astronaut_ontology.json").write_text('{"concepts": [], "relations": [{"pid": "x"}]}'),
     "2_astronaut_ontology.json: relations[0]: `label` must be a string"),
    (lambda d: _jsonl(d / "ground_truth" / "ont_2_astronaut_ground_truth.jsonl",
                      [{"id": "ont_2_astronaut_test_1", "triples": [{"sub": "A", "obj": "B"}]}]),
     "row 1 (ont_2_astronaut_test_1): triples[0]: `rel` must be a string"),
    (lambda d: _jsonl(d / "test" / "ont_2_astronaut_test.jsonl", [{"id": "bad id/1", "sent": "x"}]),
     "id 'bad id/1' cannot be a case id"),
])
def test_malformed_data_is_one_line_and_exit_2(harness_cli, tmp_path, monkeypatch, capsys, damage, message) -> None:
    data = write_data(tmp_path / "data")
    damage(data)
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "text2kgbench", str(data)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "suites").exists()


REAL_COPY = Path("/work/.mirror/cenguix+Text2KGBench/repo")


@pytest.mark.skipif(not REAL_COPY.is_dir() or shutil.which("git") is None, reason="no real copy of Text2KGBench")
def test_real_text2kgbench_copy_dbpedia_webnlg_imports_every_ontology(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    """Reads a real copy of the benchmark (a git mirror fetched by hand), when there is one."""
    archive = subprocess.run(["git", "--git-dir", str(REAL_COPY), "archive", "HEAD", "data/dbpedia_webnlg"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive, check=True)
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "text2kgbench", "data/dbpedia_webnlg"]) == 0
    assert len(list((tmp_path / "suites").glob("*.yaml"))) == 19
    astronaut = load_suite(tmp_path / "suites" / "9_astronaut.yaml")
    # the ground truth file has 68 rows, one per test sentence
    assert len(astronaut.cases) == 68
    assert astronaut.cases[0].id == "ont_9_astronaut_test_1"
    assert [(r.source, r.type, r.target) for r in astronaut.cases[0].relationships] == [
        ("Alan_Shepard", "almaMater", '"NWC, M.A. 1957"'), ("Alan_Shepard", "birthPlace", "New_Hampshire"),
        ("Alan_Shepard", "dateOfRetirement", '"1974-08-01"')]
    assert yaml.safe_load((tmp_path / "suites" / "9_astronaut.yaml").read_text())["ontology"]["name"] == "Astronaut Ontology"


def test_the_unseen_sentences_folder_uses_its_parents_ontologies(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    data = write_data(tmp_path / "data" / "wikidata_tekgen")
    unseen = data / "unseen_sentences"
    _jsonl(unseen / "test" / "ont_1_movie_unseen_test.jsonl",
           [{"id": "ont_1_movie_unseen_test_1", "sent": "Yutaka Abe is the director of the film Your name."}])
    _jsonl(unseen / "ground_truth" / "ont_1_movie_unseen_ground_truth.jsonl",
           [{"id": "ont_1_movie_unseen_test_1", "sent": "Yutaka Abe is the director of the film Your name.",
             "triples": [{"sub": "Your name", "rel": "director", "obj": "Yutaka Abe"}]}])
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "text2kgbench", str(unseen)]) == 0
    captured = capsys.readouterr()
    # only 1_movie has unseen sentences here; 2_astronaut is skipped with a warning
    assert "wrote suites/1_movie_unseen.yaml: 1 case(s), 1 gold relationship(s)" in captured.out
    assert "2_astronaut_ontology.json: skipped, test/ont_2_astronaut_unseen_test.jsonl is missing" in captured.err
    suite = load_suite(Path("suites/1_movie_unseen.yaml"))
    assert [(r.source, r.type, r.target) for r in suite.cases[0].relationships] == [("Your name", "director", "Yutaka Abe")]
    assert suite.spec.ontology is not None and suite.spec.ontology.name == "Movie Ontology"
    # the prompt's example still comes from the parent's train file, in gen_prompt.py's layout
    assert "Example Output: director(She and Her Cat,Makoto Shinkai)\n" in plan_variant(suite, "text2kgbench").render(suite.cases[0])[-1]["content"]


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "text2kgbench" / "data"
DATASETS = ("dbpedia_webnlg", "wikidata_tekgen", "wikidata_tekgen/unseen_sentences")


def _published_prompts(data: Path) -> dict[str, str]:
    """Every prompt the benchmark published under DATA (baselines/prompts, `unseen/` included), by id."""
    return {row["id"]: row["prompt"] for path in sorted((data / "baselines" / "prompts").rglob("*.jsonl"))
            for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def _rendered_against_published(harness_cli, data: Path, project: Path) -> tuple[int, list[str]]:
    """Import every dataset of DATA into PROJECT and render each case's prompt: (cases, the ids
    whose prompt is not the published one byte for byte)."""
    published = {**_published_prompts(data / "dbpedia_webnlg"), **_published_prompts(data / "wikidata_tekgen")}
    project.mkdir()
    cases, differ = 0, []
    for dataset in DATASETS:
        assert harness_cli(["import", "text2kgbench", str(data / dataset), "--out", str(project / "suites" / dataset)]) == 0
        for path in sorted((project / "suites" / dataset).glob("*.yaml")):
            suite = load_suite(path)
            plan = plan_variant(suite, "text2kgbench")
            for case in suite.cases:
                messages = plan.render(case)
                cases += 1
                if [m["role"] for m in messages] != ["user"] or messages[0]["content"] != published[case.id]:
                    differ.append(case.id)
    return cases, differ


def test_each_case_shows_its_most_similar_train_sentence_as_the_published_prompts_do(
        harness_cli, tmp_path, monkeypatch) -> None:
    """Published prompts captured with the inputs they were made from (tests/fixtures/text2kgbench):
    dbpedia_webnlg's layout, wikidata_tekgen's earlier one, its unseen sentences', an example
    sentence holding U+0085, a relation label with an underscore (`LCCN_number`)."""
    data = tmp_path / "data"
    shutil.copytree(FIXTURE, data)
    monkeypatch.chdir(tmp_path)
    cases, differ = _rendered_against_published(harness_cli, data, tmp_path / "project")
    assert (cases, differ) == (6, [])
    suite = load_suite(tmp_path / "project" / "suites" / "dbpedia_webnlg" / "9_astronaut.yaml")
    # the two test sentences take different train sentences (ont_9_astronaut_train_32, _2): one per case
    assert [c.example.splitlines()[0][:40] for c in suite.cases if c.example] == [
        "Example Sentence: William Anders, who gr", "Example Sentence: Alan Bean, who receive"]


@pytest.mark.slow
@pytest.mark.skipif(not REAL_COPY.is_dir() or shutil.which("git") is None, reason="no real copy of Text2KGBench")
def test_real_text2kgbench_copy_every_published_prompt_is_rendered_byte_for_byte(harness_cli, tmp_path, monkeypatch) -> None:
    """Reads a real copy of the benchmark: all 6,250 published prompts (19 dbpedia_webnlg ontologies,
    10 wikidata_tekgen ones and their unseen sentences) are the imported suites' prompts."""
    archive = subprocess.run(["git", "--git-dir", str(REAL_COPY), "archive", "HEAD", "data"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive, check=True)
    monkeypatch.chdir(tmp_path)
    cases, differ = _rendered_against_published(harness_cli, tmp_path / "data", tmp_path / "project")
    assert (cases, differ) == (6250, [])
