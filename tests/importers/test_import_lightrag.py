"""`harness import lightrag`: PROMPTS read without running prompt.py; env, addon_params and inputs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.errors import InputError
from harness.prompts import lint_prompt
from harness.importers import lightrag_draft, read_lightrag_project, write_draft
from harness.importers.lightrag import read_prompts_py
from harness.run.plan import plan_variant
from harness.suites import load_suite

SECRET = "sk-lightrag-" + "abcdefghij0123456789"

NEW_PROMPT_PY = '''
from __future__ import annotations
from typing import Any

raise SystemExit("prompt.py must never be executed by the importer")

PROMPTS: dict[str, Any] = {}

PROMPTS["DEFAULT_TUPLE_DELIMITER"] = "<|#|>"
PROMPTS["DEFAULT_COMPLETION_DELIMITER"] = "<|COMPLETE|>"

PROMPTS["entity_extraction_system_prompt"] = """---Role---
You extract entities and relations from text.

---Instructions---
1. Entities of the types [{entity_types}], one per line:
entity{tuple_delimiter}<entity_name>{tuple_delimiter}<entity_type>{tuple_delimiter}<entity_description>
2. Relations, one per line:
relation{tuple_delimiter}<source>{tuple_delimiter}<target>{tuple_delimiter}<keywords>{tuple_delimiter}<description>
3. Write in {language}.
4. Finish with {completion_delimiter}

---Examples---
{examples}
"""

PROMPTS["entity_extraction_user_prompt"] = """---Task---
Extract the entities and relations of the text below.

<Input Text>
```
{input_text}
```

<Output>
"""

PROMPTS["entity_continue_extraction_user_prompt"] = (
    "Some entities were missed. Add them with {tuple_delimiter} between fields, "
    "in {language}, and finish with {completion_delimiter}.\\n"
)

PROMPTS["entity_extraction_examples"] = [
    """<Example 1>
Entity_types: [person, organization]
Text:
```
Mara Lind founded Cobalt Works.
```

Output:
entity{tuple_delimiter}Mara Lind{tuple_delimiter}person{tuple_delimiter}Founder of Cobalt Works
entity{tuple_delimiter}Cobalt Works{tuple_delimiter}organization{tuple_delimiter}A company founded by Mara Lind
relation{tuple_delimiter}Mara Lind{tuple_delimiter}Cobalt Works{tuple_delimiter}founding{tuple_delimiter}Mara Lind founded Cobalt Works
{completion_delimiter}

""",
]

PROMPTS["summarize_entity_descriptions"] = build_summary_prompt()
'''

OLD_PROMPT_PY = '''
PROMPTS = {}
PROMPTS["DEFAULT_LANGUAGE"] = "German"
PROMPTS["DEFAULT_TUPLE_DELIMITER"] = "<|>"
PROMPTS["DEFAULT_RECORD_DELIMITER"] = "##"
PROMPTS["DEFAULT_COMPLETION_DELIMITER"] = "<|COMPLETE|>"
PROMPTS["DEFAULT_ENTITY_TYPES"] = ["organization", "person", "geo", "event"]
PROMPTS["entity_extraction"] = """-Goal-
Find entities of the types [{entity_types}] and their relationships. Answer in {language}.
Entity: ("entity"{tuple_delimiter}<name>{tuple_delimiter}<type>{tuple_delimiter}<description>)
Relationship: ("relationship"{tuple_delimiter}<source>{tuple_delimiter}<target>{tuple_delimiter}<description>{tuple_delimiter}<keywords>{tuple_delimiter}<strength>)
Separate records with {record_delimiter}; finish with {completion_delimiter}.

-Examples-
{examples}

-Real Data-
Entity_types: {entity_types}
Text: {input_text}
Output:
"""
PROMPTS["entity_extraction_examples"] = ["""Example 1:
Entity_types: [person, geo]
Text:
Mara Lind moved to Oslo.
Output:
("entity"{tuple_delimiter}"Mara Lind"{tuple_delimiter}"person"{tuple_delimiter}"A woman who moved to Oslo"){record_delimiter}
("entity"{tuple_delimiter}"Oslo"{tuple_delimiter}"geo"{tuple_delimiter}"A city"){record_delimiter}
("relationship"{tuple_delimiter}"Mara Lind"{tuple_delimiter}"Oslo"{tuple_delimiter}"She moved there"{tuple_delimiter}"moving"{tuple_delimiter}6){completion_delimiter}
"""]
PROMPTS["entity_continue_extraction"] = """MANY entities were missed. Add them below using the same format:
"""
PROMPTS["entity_if_loop_extraction"] = """Answer YES | NO if there are still entities to add.
"""
'''


def new_setup(root: Path) -> Path:
    (root / "inputs").mkdir(parents=True)
    (root / "prompt.py").write_text(NEW_PROMPT_PY)
    (root / "inputs" / "trust.txt").write_text("Ana Ruiz leads the Kestrel Trust in Lowbridge.\n")
    (root / "inputs" / "river.md").write_text("The Arn river flooded Millbrook.\n")
    (root / ".env").write_text(
        "SUMMARY_LANGUAGE=Spanish\n"
        "ENTITY_TYPES='[\"Person\", \"Organization\", \"Location\"]'\n"
        "LLM_BINDING=openai\n"
        "LLM_MODEL=qwen2.5:14b\n"
        "LLM_BINDING_HOST=http://localhost:8000/v1\n"
        f"LLM_BINDING_API_KEY={SECRET}\n"
    )
    return root


def old_setup(root: Path) -> Path:
    (root / "lightrag").mkdir(parents=True)
    (root / "lightrag" / "prompt.py").write_text(OLD_PROMPT_PY)
    (root / "app.py").write_text(
        "from lightrag import LightRAG\n"
        "rag = LightRAG(working_dir='./rag', addon_params={'language': 'French', 'entity_types': ['person', 'place']})\n"
    )
    (root / "inputs").mkdir()
    (root / "inputs" / "one.txt").write_text("Mara Lind moved to Oslo.")
    return root


def import_setup(root: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    out = tmp_path / "work" / "suites" / "lr.yaml"
    draft = lightrag_draft(read_lightrag_project(root, environ={}), out)
    write_draft(draft, out)
    return out, draft.warnings


def test_new_style_setup(tmp_path: Path) -> None:
    out, warnings = import_setup(new_setup(tmp_path / "setup"), tmp_path)
    suite = load_suite(out)
    assert suite.spec.language == "Spanish" and suite.spec.entity_types == ["Person", "Organization", "Location"]
    assert suite.spec.model.name == "qwen2.5:14b"
    assert suite.spec.variants["project"].tuple_delimiter == "<|#|>"
    assert suite.spec.variants["project"].format == "lightrag"
    assert [c.id for c in suite.cases] == ["river-1", "trust-1"]  # chunks of each input, cut as LightRAG cuts them
    plan = plan_variant(suite, "project")
    messages = plan.render(suite.cases[1])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "[Person,Organization,Location]" in messages[0]["content"] and "Write in Spanish." in messages[0]["content"]
    assert "entity<|#|>Mara Lind<|#|>person<|#|>Founder of Cobalt Works" in messages[0]["content"]
    assert "Ana Ruiz leads the Kestrel Trust" in messages[1]["content"]
    # gleaning sends the continue prompt as stored, so it was filled at import
    assert plan.template.continue_prompt == (
        "Some entities were missed. Add them with <|#|> between fields, in Spanish, and finish with <|COMPLETE|>.\n"
    )
    assert plan_variant(suite, "default").template.source.endswith("lightrag-1.4.9.11-stock.yaml")
    assert any(w.endswith("prompt.py:60: PROMPTS['summarize_entity_descriptions'] cannot be read "
                          "(a call of build_summary_prompt()) and was not imported") for w in warnings)
    template_path = tmp_path / "work" / "prompts" / "lr" / "extract_graph.yaml"
    assert lint_prompt(template_path) == []
    written = "\n".join(p.read_text() for p in (tmp_path / "work").rglob("*") if p.is_file())
    assert SECRET not in written


def test_old_style_setup_with_addon_params(tmp_path: Path) -> None:
    out, _ = import_setup(old_setup(tmp_path / "setup"), tmp_path)
    suite = load_suite(out)
    assert suite.spec.language == "French" and suite.spec.entity_types == ["person", "place"]
    spec = suite.spec.variants["project"]
    assert (spec.tuple_delimiter, spec.record_delimiter) == ("<|>", "##")
    plan = plan_variant(suite, "project")
    content = plan.render(suite.cases[0])[0]["content"]
    assert '("entity"<|>"Mara Lind"<|>"person"' in content and content.rstrip().endswith("Output:")
    assert plan.template.loop_prompt.startswith("Answer YES | NO")
    # LightRAG fills {entity_types} from addon_params (its settings): the suite carries them, not the template
    assert plan.types is not None and (plan.types.source, plan.entity_types) == ("suite", ["person", "place"])
    assert [f.code for f in lint_prompt(tmp_path / "work" / "prompts" / "lr" / "extract_graph.yaml",
                                         format="lightrag", tuple_delimiter="<|>", record_delimiter="##")
            if f.severity == "error"] == []


def test_environment_beats_dotenv(tmp_path: Path) -> None:
    root = new_setup(tmp_path / "setup")
    project = read_lightrag_project(root, environ={"ENTITY_TYPES": "person, vessel", "SUMMARY_LANGUAGE": "Danish"})
    assert project.entity_types == ["person", "vessel"] and project.language == "Danish"


def test_setup_without_prompt_file(tmp_path: Path) -> None:
    root = tmp_path / "setup"
    (root / "inputs").mkdir(parents=True)
    (root / "inputs" / "a.txt").write_text("Ana met Bo.")
    out, warnings = import_setup(root, tmp_path)
    suite = load_suite(out)
    assert suite.variant_names() == ["default"]
    assert suite.spec.variants["default"].tuple_delimiter == "<|#|>"
    assert plan_variant(suite, "default").render(suite.cases[0])
    assert any("no LightRAG prompt.py" in w for w in warnings)


def test_prompt_file_errors(tmp_path: Path) -> None:
    (tmp_path / "prompt.py").write_text("PROMPTS = {}\nPROMPTS['x'] = (\n")
    with pytest.raises(InputError, match=r"prompt\.py:\d+: not valid Python"):
        read_prompts_py(tmp_path / "prompt.py")
    (tmp_path / "prompt.py").write_text("PROMPTS = {'other': 'x'}\n")
    with pytest.raises(InputError, match="no PROMPTS dict with LightRAG extraction prompts"):
        read_prompts_py(tmp_path / "prompt.py")


def test_cli_import_lightrag(harness_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root = new_setup(tmp_path / "setup")
    monkeypatch.chdir(tmp_path)
    for name in ("ENTITY_TYPES", "SUMMARY_LANGUAGE", "LLM_MODEL", "INPUT_DIR", "CHUNK_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert harness_cli(["import", "lightrag", str(root), "--out", "suites/lr.yaml"]) == 0
    captured = capsys.readouterr()
    assert "wrote suites/lr.yaml: 2 variant(s) (project, default), 2 case(s) with empty gold" in captured.out
    assert "cannot be read" in captured.err
    data = yaml.safe_load((tmp_path / "suites" / "lr.yaml").read_text())
    assert data["variants"]["project"]["prompt"] == "prompts/lr/extract_graph.yaml"


def test_import_writes_reference_free_thresholds(tmp_path: Path) -> None:
    out, _ = import_setup(new_setup(tmp_path / "setup"), tmp_path)
    limits = load_suite(out).spec.thresholds
    # both variants are filled with the setup's ENTITY_TYPES, so type conformance is suite-wide
    assert (limits.grounding_rate, limits.example_leaks, limits.dangling, limits.type_conformance) == (0.85, 0, 0, 0.9)
    assert limits.variants == {}


def test_an_untyped_lightrag_prompt_gets_no_type_conformance_threshold(tmp_path: Path) -> None:
    root = new_setup(tmp_path / "setup")
    # the setup's prompt no longer names any types: its answers' type conformance would be n/a
    (root / "prompt.py").write_text(NEW_PROMPT_PY.replace("1. Entities of the types [{entity_types}], one per line:",
                                                          "1. Entities, one per line:"))
    out, _ = import_setup(root, tmp_path)
    limits = load_suite(out).spec.thresholds
    assert limits.type_conformance is None
    assert {name: v.type_conformance for name, v in limits.variants.items()} == {"default": 0.9}


# --------------------------------------------------------------------------- working folders made by real LightRAG

import json  # noqa: E402
import shutil  # noqa: E402

from harness.importers.lightrag_workdir import stock_prompts  # noqa: E402

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"
WORKDIRS = {"1.4.6": CAPTURES / "lightrag-1.4.6-workdir", "1.4.9.11": CAPTURES / "lightrag-1.4.9.11-workdir"}


def _chunk_store(version: str) -> dict[str, dict[str, object]]:
    return json.loads((WORKDIRS[version] / "rag_storage" / "kv_store_text_chunks.json").read_text())


def _import_workdir(root: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    out = tmp_path / "work" / "suites" / "lr.yaml"
    draft = lightrag_draft(read_lightrag_project(root, environ={}), out)
    write_draft(draft, out)
    return out, draft.warnings


@pytest.mark.parametrize("version", sorted(WORKDIRS))
def test_working_folder_chunks_become_cases_with_their_ids(version: str, tmp_path: Path) -> None:
    out, _ = _import_workdir(WORKDIRS[version] / "rag_storage", tmp_path)
    suite = load_suite(out)
    store = _chunk_store(version)
    assert [c.source_id for c in suite.cases] == list(store)
    texts = [(out.parents[1] / yaml.safe_load(out.read_text())["cases"][i]["chunk"]).read_text() for i in range(len(store))]
    assert texts == [v["content"] for v in store.values()]
    assert [c.id for c in suite.cases] == ["harbour-1", "harbour-2", "river-1"]


@pytest.mark.parametrize("version", sorted(WORKDIRS))
def test_inputs_without_a_chunk_store_are_cut_as_lightrag_cuts_them(version: str, tmp_path: Path) -> None:
    root = tmp_path / "setup"
    shutil.copytree(WORKDIRS[version], root)
    (root / "rag_storage" / "kv_store_text_chunks.json").unlink()
    project = read_lightrag_project(root, environ={"CHUNK_SIZE": "80", "CHUNK_OVERLAP_SIZE": "10"})
    out = tmp_path / "work" / "suites" / "lr.yaml"
    write_draft(lightrag_draft(project, out), out)
    store = _chunk_store(version)
    assert [c.source_id for c in load_suite(out).cases] == list(store)


@pytest.mark.parametrize("version", sorted(WORKDIRS))
def test_types_language_and_stock_prompt_from_the_cached_prompt(version: str, tmp_path: Path) -> None:
    out, warnings = _import_workdir(WORKDIRS[version], tmp_path)
    suite = load_suite(out)
    # the capture ran with addon_params {"entity_types": [person, vessel, harbour], "language": "Spanish"}
    assert suite.spec.entity_types == ["person", "vessel", "harbour"] and suite.spec.language == "Spanish"
    assert any(f"LightRAG {version}'s stock prompt (its cached extraction prompts" in w for w in warnings)
    # the default variant sends exactly what that LightRAG version sent for the first chunk
    stock = next(s for s in stock_prompts() if s.version == version)
    cache = json.loads((WORKDIRS[version] / "rag_storage" / "kv_store_llm_response_cache.json").read_text())
    plan = plan_variant(suite, "default")
    messages = plan.render(suite.cases[0])
    # LightRAG caches the user prompt, "\n", then the system prompt (1.4.8+, each stripped), or the one prompt
    sent = "\n".join(m["content"].strip() for m in [messages[1], messages[0]]) if stock.style == "new" else messages[0]["content"]
    first = cache[_chunk_store(version)[suite.cases[0].source_id]["llm_cache_list"][0]]["original_prompt"]
    if version == "1.4.6":
        assert sent == first
        assert suite.variant_names() == ["default"]  # stock examples: nothing else to compare
    else:
        # 1.4.9.11's capture replaced the examples in code: they become the project variant
        assert suite.variant_names() == ["project", "default"]
        project = plan_variant(suite, "project").render(suite.cases[0])
        assert "\n".join(m["content"].strip() for m in [project[1], project[0]]) == first


PROMPT_FORMS = '''
import textwrap
PROMPTS = {}
TD = "<|>"
PROMPTS["DEFAULT_TUPLE_DELIMITER"] = TD
PROMPTS["DEFAULT_RECORD_DELIMITER"] = "##"
PROMPTS["entity_extraction"] = """
Find [{entity_types}] in {language}, records split by {record_delimiter}.
Text: {input_text}
""".strip()
PROMPTS["entity_continue_extraction"] = ("MANY entities were missed. " +
    "Add them with {tuple_delimiter}.")
PROMPTS["entity_if_loop_extraction"] = """Answer {yes} or NO.""".format(yes="YES")
PROMPTS["fstring"] = f"""plain {{braces}} only"""
PROMPTS["dedented"] = textwrap.dedent("""
    a
    """)
PROMPTS["joined"] = "\\n".join(["x", "y"])
PROMPTS["from_entry"] = PROMPTS["DEFAULT_TUPLE_DELIMITER"] + "!"
PROMPTS["bad_fstring"] = f"types {TD}"
PROMPTS["bad_format"] = "{a} {b}".format(a="1")
PROMPTS["bad_call"] = build()
'''


def test_prompt_py_forms_are_read_and_the_rest_named_with_their_line(tmp_path: Path) -> None:
    (tmp_path / "prompt.py").write_text(PROMPT_FORMS)
    prompts, lines, skipped = read_prompts_py(tmp_path / "prompt.py")
    assert prompts["entity_extraction"].startswith("Find [{entity_types}]") and prompts["entity_extraction"].endswith("{input_text}")
    assert prompts["entity_continue_extraction"] == "MANY entities were missed. Add them with {tuple_delimiter}."
    assert prompts["entity_if_loop_extraction"] == "Answer YES or NO."
    assert prompts["fstring"] == "plain {braces} only"
    assert prompts["dedented"] == "\na\n"
    assert prompts["joined"] == "x\ny"
    assert prompts["from_entry"] == "<|>!"
    assert {k: (s.line, s.reason) for k, s in skipped.items()} == {
        "bad_fstring": (20, "an f-string with expressions in it"),
        "bad_format": (21, "a .format() that leaves {b} unfilled"),
        "bad_call": (22, "a call of build()"),
    }


STRIP_CONTINUE = OLD_PROMPT_PY.replace(
    'PROMPTS["entity_continue_extraction"] = """MANY entities were missed. Add them below using the same format:\n"""',
    'PROMPTS["entity_continue_extraction"] = """\nMANY entities were missed. Add them below using the same format:\n""".strip()')


def test_strip_continue_prompt_is_read_not_replaced_by_graphrags(tmp_path: Path) -> None:
    root = old_setup(tmp_path / "setup")
    (root / "lightrag" / "prompt.py").write_text(STRIP_CONTINUE)
    out, _ = import_setup(root, tmp_path)
    plan = plan_variant(load_suite(out), "project")
    assert plan.template.continue_prompt == "MANY entities were missed. Add them below using the same format:"


def test_unreadable_continue_prompt_is_named_with_its_line(tmp_path: Path) -> None:
    root = old_setup(tmp_path / "setup")
    text = OLD_PROMPT_PY.replace('PROMPTS["entity_continue_extraction"] = """MANY', 'PROMPTS["entity_continue_extraction"] = make("""MANY')
    text = text.replace('same format:\n"""', 'same format:\n""")')
    (root / "lightrag" / "prompt.py").write_text(text)
    line = text[: text.index("make(")].count("\n") + 1
    out, warnings = import_setup(root, tmp_path)
    assert any(w.startswith(f"{root / 'lightrag' / 'prompt.py'}:{line}: PROMPTS['entity_continue_extraction'] cannot be read "
                            "(a call of make()); the project variant gleans with LightRAG 1.4.6's stock continue prompt")
               for w in warnings)
    stock = next(s for s in stock_prompts() if s.version == "1.4.6")
    assert plan_variant(load_suite(out), "project").template.continue_prompt.startswith(
        stock.prompts["entity_continue_extraction"][:40])


@pytest.mark.parametrize("version", sorted(WORKDIRS))
def test_the_stock_prompt_of_each_version_has_examples_lint_can_read(version: str, tmp_path: Path) -> None:
    """LightRAG >= 1.4.8 writes its examples with `<Entity_types>`/`<Output>` lines, not `Output:`:
    lint read them as 'not an extraction' (three errors on the stock prompt of 1.4.9.11)."""
    from harness.prompts import lint_prompt

    out, _ = _import_workdir(WORKDIRS[version], tmp_path)
    suite = load_suite(out)
    spec = suite.spec.variants["default"]
    findings = lint_prompt(suite.resolve(spec.prompt))
    assert [f for f in findings if f.code == "example-not-extraction"] == []


def test_angle_bracket_examples_are_found_with_their_types() -> None:
    from harness.prompts.examples import find_inline_examples

    text = ("---Examples---\n<Entity_types>\n[\"Person\",\"Location\"]\n\n<Input Text>\n```\nAda went to Rome.\n```\n\n"
            "<Output>\nentity<|>Ada<|>person<|>A traveller.\n<|COMPLETE|>\n\n")
    (example,) = find_inline_examples(text)
    assert example.output == "entity<|>Ada<|>person<|>A traveller.\n<|COMPLETE|>"
    assert example.entity_types == ["Person", "Location"] and example.line == 11


def test_a_key_pasted_as_the_model_or_the_types_is_not_written(tmp_path: Path) -> None:
    """Issue 28, item 2 (LightRAG): the setup's `.env` keys are known, so a value that repeats one
    (a model name pasted from the wrong line, an entity type, text in the prompt or input) is not
    copied into the suite or its files."""
    root = new_setup(tmp_path / "setup")
    (root / ".env").write_text(f"LLM_BINDING=openai\nLLM_BINDING_API_KEY='{SECRET}'\nLLM_MODEL={SECRET}\n"
                               f"ENTITY_TYPES='[\"person\", \"{SECRET}\"]'\n", encoding="utf-8")
    (root / "inputs" / "trust.txt").write_text(f"Ana Ruiz leads the Kestrel Trust; token {SECRET}.\n")
    out, _ = import_setup(root, tmp_path)
    written = "\n".join(p.read_text(encoding="utf-8") for p in (tmp_path / "work").rglob("*") if p.is_file())
    assert SECRET not in written and "[REDACTED]" in written
    assert load_suite(out).spec.model.name == "[REDACTED]"
