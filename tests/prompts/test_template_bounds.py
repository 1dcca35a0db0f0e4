"""Hostile prompt files: YAML/JSON bombs, huge renderings, odd files; one line, exit 2, never a crash."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.errors import InputError
from harness.prompts import load_prompt
from harness.prompts.syntax import fill, rendered_length
from harness.prompts.template import MAX_RENDERED_CHARS, PromptTemplate
from harness.prompts.yaml_template import load_yaml_text

VARIABLES = {"input_text": "Ana met Bo.", "entity_types": "person", "tuple_delimiter": "<|>",
             "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>", "language": "English"}


@pytest.mark.slow
def test_yaml_template_alias_bomb_is_refused() -> None:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    text = "\n".join(lines) + "\nuser: '{input_text}'\n"
    with pytest.raises(InputError, match=r"^bomb\.yaml:\d+: more than .* aliases are expanded"):
        load_yaml_text(text, "bomb.yaml")


@pytest.mark.parametrize("depth", [1_000, 50_000])
def test_deep_json_template_is_refused(depth: int) -> None:
    text = '{"user": "{input_text}", "variables": {"x": ' + "[" * depth + "]" * depth + "}}"
    with pytest.raises(InputError, match=r"^deep\.json:1: nested deeper than"):
        load_yaml_text(text, "deep.json")


def test_placeholder_names_must_not_end_in_a_newline() -> None:
    text = 'user: "{input_text}"\nvariables: {"x\\n": "1"}\n'
    with pytest.raises(InputError, match="not a placeholder name"):
        load_yaml_text(text, "t.yaml")


@pytest.mark.parametrize(
    ("text", "values"),
    [("a {x} {{b}} {y} }} {z}", {"x": "12345", "y": ""}), ("{{{x}}}", {"x": "{}"}), ("plain", {}), ("{x}" * 7, {"x": "ab"})],
)
def test_rendered_length_matches_fill(text: str, values: dict[str, str]) -> None:
    assert rendered_length(text, values, missing="keep") == len(fill(text, values, missing="keep"))
    assert rendered_length(text, values, missing="empty") == len(fill(text, values, missing="empty"))


def test_thousand_placeholders_with_a_big_chunk_are_refused_before_building(monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.prompts.template as template_module

    built: list[int] = []
    real_fill = template_module.fill
    monkeypatch.setattr(template_module, "fill", lambda text, values, **kw: built.append(1) or real_fill(text, values, **kw))
    template = PromptTemplate(user="{input_text}\n" * 1000, source="prompts/huge.txt")
    chunk = "x" * (10 * 1024 * 1024)
    with pytest.raises(InputError) as caught:
        template.render({**VARIABLES, "input_text": chunk}, case="big-case")
    message = caught.value.message
    assert message.startswith("prompts/huge.txt: rendering for case 'big-case' would make")
    assert f"{MAX_RENDERED_CHARS:,} limit" in message and "used 1000 time(s)" in message
    assert not built  # nothing was filled


def test_a_rendering_just_under_the_cap_is_built() -> None:
    template = PromptTemplate(user="{input_text}", source="p.txt")
    messages = template.render({**VARIABLES, "input_text": "y" * (MAX_RENDERED_CHARS - 10)})
    assert len(messages[-1]["content"]) == MAX_RENDERED_CHARS - 10


def test_gleaning_prompts_are_bounded_too() -> None:
    template = PromptTemplate(user="{input_text}", source="p.txt", continue_prompt="{input_text}" * 1000)
    with pytest.raises(InputError, match="over the"):
        template.render_continue({**VARIABLES, "input_text": "z" * 100_000})


def test_prompt_render_command_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "p"
    (root / "suites").mkdir(parents=True)
    (root / "prompts").mkdir()
    (root / "prompts" / "huge.txt").write_text("{input_text}\n" * 1000, encoding="utf-8")
    (root / "big.txt").write_text("w" * (9 * 1024 * 1024), encoding="utf-8")
    (root / "suites" / "s.yaml").write_text(
        "name: s\nvariants: {v: {prompt: prompts/huge.txt}}\ncases:\n  - {id: big, chunk: big.txt}\n", encoding="utf-8")
    code = main(["prompts", "render", str(root / "prompts" / "huge.txt"), "--suite", str(root / "suites" / "s.yaml"),
                 "--case", "big"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "huge.txt" in err and "'big'" in err


def test_prompt_files_that_are_not_regular_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "prompt.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        load_prompt(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        load_prompt(Path("/dev/zero"))


@pytest.mark.parametrize(
    "text",
    ['{"user": "{input_text}", "line one\\nline two": 1}',
     '{"user": "{input_text}", "functions": {"f": "bul\\nlets(x)"}}',
     '{"user": "{input_text}", "variables": {"a\\nb": "1"}}',
     '{"user": "{input_text}", "' + "k" * 5000 + '": 1}'],
)
def test_errors_quoting_keys_or_values_stay_one_short_line(text: str) -> None:
    with pytest.raises(InputError) as caught:
        load_yaml_text(text, "t.json")
    assert "\n" not in caught.value.message and len(caught.value.message) < 400, caught.value.message


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="{}xyz_ ab", max_size=40), st.dictionaries(st.sampled_from(["x", "y", "z", "x_y"]), st.text(max_size=5)))
def test_rendered_length_is_the_filled_length(text: str, values: dict[str, str]) -> None:
    # the placeholder scan is cached per template text: the same text with other values must still agree
    for missing in ("keep", "empty"):
        assert rendered_length(text, values, missing=missing) == len(fill(text, values, missing=missing))
        assert rendered_length(text, {}, missing=missing) == len(fill(text, {}, missing=missing))


def _fill_by_substitution(text: str, values: dict[str, str], missing: str) -> str:
    """fill as one regex substitution over the text (how it is defined), for comparison."""
    from harness.prompts.syntax import TOKEN

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in ("{{", "}}"):
            return token[0]
        if match.group(1) in values:
            return values[match.group(1)]
        if missing == "keep":
            return token
        if missing == "empty":
            return ""
        line = 3 + text.count("\n", 0, match.start())
        raise InputError(f"t.txt:{line}: placeholder {{{match.group(1)}}} has no value")

    return TOKEN.sub(replace, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="{}xyz_ a\n", max_size=40), st.dictionaries(st.sampled_from(["x", "y", "z", "x_y"]), st.text(alphabet="{}ab", max_size=5)),
       st.sampled_from(["error", "keep", "empty"]))
def test_fill_from_the_cached_scan_is_the_substitution(text: str, values: dict[str, str], missing: str) -> None:
    try:
        expected: str | Exception = _fill_by_substitution(text, values, missing)
    except InputError as exc:
        expected = exc
    if isinstance(expected, str):
        assert fill(text, values, missing=missing, source="t.txt", first_line=3) == expected  # type: ignore[arg-type]
    else:
        with pytest.raises(InputError) as caught:
            fill(text, values, missing=missing, source="t.txt", first_line=3)  # type: ignore[arg-type]
        assert caught.value.message.startswith(str(expected).removesuffix(" has no value") + " has no value (known: ")
