"""What both importers share: where the suite goes and how its cases are cut."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from harness.importers.common import (
    DEFAULT_MODEL, Destination, InputDocument, SuiteDraft, chunk_cases, destination, document_cases, dump_yaml,
)


@dataclass
class _Project:
    root: Path
    model: str | None = None
    chunk_size: int = 1200


def test_destination_names_the_suite_by_name_then_out_stem(tmp_path):
    project = _Project(Path("/x/My Project"), model="gpt-4.1")
    out = tmp_path / "proj" / "suites" / "news.yaml"
    assert destination(project, out, name="Fancy Name!", max_cases=3) == Destination(
        root=tmp_path / "proj", suite_name="Fancy-Name", model="gpt-4.1", chunk_tokens=1200, max_cases=3)
    assert destination(project, out, name=None, max_cases=3).suite_name == "news"


def test_destination_falls_back_to_the_default_model():
    where = destination(_Project(Path("p"), chunk_size=50), Path("p/suites/s.yaml"), name=None, max_cases=1)
    assert (where.model, where.chunk_tokens) == (DEFAULT_MODEL, 50)


def test_chunk_cases_takes_at_most_max_cases_and_skips_empty_files(tmp_path):
    inputs = tmp_path / "input"
    inputs.mkdir()
    files = []
    for name, text in (("a", "Ana Ruiz is the mayor of Lowbridge."), ("b", "   "), ("c", "Third."), ("d", "Fourth.")):
        (inputs / f"{name}.txt").write_text(text, encoding="utf-8")
        files.append(inputs / f"{name}.txt")
    draft = SuiteDraft(name="s", description="", notes="", language="English", entity_types=[], model={},
                       variants={}, baseline="default")
    where = Destination(root=tmp_path, suite_name="s", model=DEFAULT_MODEL, chunk_tokens=1200, max_cases=3)
    chunk_cases(files, where, draft)
    assert [case["id"] for case in draft.cases] == ["a", "c"]
    assert [case["chunk"] for case in draft.cases] == ["input/a.txt", "input/c.txt"]
    assert any("b.txt: skipped, it is empty" in w for w in draft.warnings)
    assert any("4 input files found; the suite takes the first 3" in w for w in draft.warnings)


# --------------------------------------------------------------------------- thresholds written on import


def test_reference_free_thresholds_type_conformance_follows_the_typed_variants():
    from harness.importers.common import reference_free_thresholds

    base = {"grounded_rate": 0.85, "example_leaks": 0, "dangling": 0}
    assert reference_free_thresholds({"project": True, "default": True}) == {**base, "type_conformance": 0.9}
    # an untyped prompt's conformance is n/a, which never passes: only the typed variant gets the limit
    assert reference_free_thresholds({"project": False, "default": True}) == {
        **base, "variants": {"default": {"type_conformance": 0.9}}}
    assert reference_free_thresholds({"project": False}) == base


def test_draft_writes_the_thresholds_with_their_comment_before_the_cases(tmp_path):
    import yaml

    from harness.suites import load_suite

    draft = SuiteDraft(name="s", description="d", notes="n", language="English", entity_types=["person"],
                       model={"name": "gpt-4o-mini"}, variants={"default": {"prompt": "builtin:graphrag.extract_graph"}},
                       baseline="default", cases=[{"id": "c", "text": "Ana Ruiz spoke.", "entities": [], "relationships": []}],
                       thresholds={"grounded_rate": 0.85, "example_leaks": 0})
    text = draft.to_yaml()
    comment = text.index("# Reference-free thresholds written by `harness import`")
    assert comment < text.index("thresholds:") < text.index("cases:")
    assert yaml.safe_load(text)["thresholds"] == {"grounded_rate": 0.85, "example_leaks": 0}
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "s.yaml").write_text(text, encoding="utf-8")
    limits = load_suite(tmp_path / "suites" / "s.yaml").spec.thresholds
    assert (limits.grounding_rate, limits.example_leaks) == (0.85, 0)  # the alias lands on grounding_rate
    draft.thresholds = {}
    assert "thresholds" not in yaml.safe_load(draft.to_yaml())


# ---------------------------------------------------------------- the input's language (issue 27, item 10)

@pytest.mark.parametrize(("text", "language", "shared"), [
    ("Ο Γιάννης Παπαδόπουλος εξελέγη δήμαρχος της Θεσσαλονίκης.", "Greek", False),
    ("张伟是北京大学的教授，他在上海出生。", "Chinese", False),
    ("東京都の山田太郎は、大阪で生まれました。", "Japanese", False),
    ("김민수는 서울에서 태어났다.", "Korean", False),
    ("Иван Петров родился в Москве.", "Russian", True),
    ("ولد أحمد في القاهرة عام ١٩٨٠.", "Arabic", True),
    ("דוד כהן נולד בירושלים.", "Hebrew", False),
    ("राहुल शर्मा का जन्म दिल्ली में हुआ।", "Hindi", True),
])
def test_non_latin_input_is_never_written_down_as_english(tmp_path: Path, text: str, language: str, shared: bool) -> None:
    """Import wrote `language: English` for Greek and Chinese projects."""
    draft = SuiteDraft(name="s", description="", notes="", language="English", entity_types=[], model={},
                       variants={}, baseline="default")
    where = Destination(root=tmp_path, suite_name="s", model="gpt-4o-mini", chunk_tokens=1200, max_cases=10)
    document_cases([InputDocument("doc", text, None)], where, draft)
    assert draft.language == language
    warning = next(w for w in draft.warnings if w.startswith("language: "))
    assert ("set `language:`" in warning) is shared


def test_latin_input_and_a_stated_language_are_left_alone() -> None:
    from harness.importers.language import guess_language, settle_language

    assert guess_language(["Mayor Ana Ruiz opened the library."]) is not None
    assert guess_language(["Mayor Ana Ruiz opened the library."]).language is None  # type: ignore[union-attr]
    assert guess_language(["12 345 -- !!"]) is None

    class Draft:
        language, language_stated, warnings = "French", True, []  # LightRAG's addon_params said French

    draft = Draft()
    settle_language(draft, ["Ο Γιάννης εξελέγη δήμαρχος."])
    assert draft.language == "French" and draft.warnings == []


def test_a_key_variable_is_substituted_by_its_name_never_its_value(monkeypatch):
    """Issue 28, item 2: `${VAR}` of a key becomes `$VAR` (a reference, still a YAML plain scalar
    in a flow list); other variables are substituted as the engines do."""
    from harness import known_keys
    from harness.importers.common import substitute_env

    key = "sk-subst-" + "Rt6Yu1Io4Pa8Sd2Fg5Hj"
    env = {"OPENAI_API_KEY": key, "HF_TOKEN": key, "LLM_CREDENTIAL": key, "MODEL": "qwen2.5:14b"}
    text = "types: [a, ${OPENAI_API_KEY}, $HF_TOKEN]\nmodel: ${MODEL}\nother: ${LLM_CREDENTIAL}-x\ncost: $$5\n"
    assert substitute_env(text, env) == (f"types: [a, $OPENAI_API_KEY, $HF_TOKEN]\nmodel: qwen2.5:14b\n"
                                         f"other: {key}-x\ncost: $5\n")
    known_keys.learn_key_envs(["LLM_CREDENTIAL"])  # named by the settings' `api_key: ${LLM_CREDENTIAL}`
    assert substitute_env("other: ${LLM_CREDENTIAL}-x", env) == "other: $LLM_CREDENTIAL-x"


def test_dotenv_quoted_values_are_unescaped_as_python_dotenv_does(tmp_path):
    """The key a `.env` holds must be read as the engines read it, or its echo would not be known."""
    from harness.importers.common import read_dotenv

    (tmp_path / ".env").write_text('A="pw\\"q\\\\r"\nB=\'it\\\'s\'\nC="a\\nb"\nD=plain # comment\nE=\'raw\\n\'\n',
                                   encoding="utf-8")
    assert read_dotenv(tmp_path / ".env") == {"A": 'pw"q\\r', "B": "it's", "C": "a\nb", "D": "plain", "E": "raw\\n"}


def test_a_dotenv_is_read_once_for_its_values_and_their_lines(tmp_path):
    """The values a `.env` gives and the lines warnings name come from one reading: a key set
    twice is named at the line whose value is used, and what is no variable has no line."""
    from harness.importers.common import read_dotenv_lines

    (tmp_path / ".env").write_text("# c\nA=1\nnot a variable\nbad-key=2\nexport A=3\n\nB='x'\n", encoding="utf-8")
    assert read_dotenv_lines(tmp_path / ".env") == ({"A": "3", "B": "x"}, {"A": 5, "B": 7})
    assert read_dotenv_lines(tmp_path / "missing.env") == ({}, {})


@pytest.mark.parametrize("text", ["Example Sentence: Gunnar played for \u00c3\x85lg\u00c3\u00a5rd FK.\nExample Output:",
                                  "a\nb\x85c", "a\nb\u2028c", "played for \x85lgård FK"])
def test_dump_yaml_keeps_the_characters_yaml_reads_as_line_breaks(text: str) -> None:
    """PyYAML writes U+0085, U+2028 and U+2029 raw in a `|` block, where reading takes them as line
    ends (a Text2KGBench example sentence lost its U+0085 so); they go double-quoted, escaped."""
    assert yaml.safe_load(dump_yaml({"text": text})) == {"text": text}
