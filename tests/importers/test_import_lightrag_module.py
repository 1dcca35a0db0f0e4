"""`harness prompts lint prompt.py`: a LightRAG prompt module is linted as its extraction prompt
(read without running it), with findings on the module's own lines; any other .py is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.prompts import lint_prompt
from harness.importers.lightrag_module import prompt_module_template
from tests.importers.test_import_lightrag import NEW_PROMPT_PY, OLD_PROMPT_PY

# OLD_PROMPT_PY with its example translated the way a public Vietnamese project did (`Đầu ra:`
# for `Output:`), and one type off the example's own list in the answer starting on the module's line 27
VIETNAMESE = (OLD_PROMPT_PY.replace('Example 1:\n', 'Ví dụ 1:\n').replace("Text:\nMara", "Văn bản:\nMara")
              .replace('Output:\n("entity"', 'Đầu ra:\n("entity"')
              .replace('"Oslo"{tuple_delimiter}"geo"', '"Oslo"{tuple_delimiter}"city"'))


def _module(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "lightrag" / "prompt.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text", [OLD_PROMPT_PY, NEW_PROMPT_PY], ids=["lightrag<=1.4.7", "lightrag>=1.4.8"])
def test_a_clean_prompt_module_lints_clean(text: str, tmp_path: Path) -> None:
    # linted as one prompt text, the module gave python-wrapper, token-budget and unknown placeholders
    assert lint_prompt(_module(tmp_path, text)) == []


def test_findings_point_at_the_lines_of_the_module(tmp_path: Path) -> None:
    path = _module(tmp_path, VIETNAMESE)
    assert "Đầu ra:" in VIETNAMESE and "\nOutput:\n(" not in VIETNAMESE
    findings = lint_prompt(path)
    assert [(f.code, f.line, f.source) for f in findings] == [("example-type-undeclared", 27, str(path))]
    assert path.read_text(encoding="utf-8").split("\n")[26].startswith('("entity"')


def test_the_template_holds_what_lightrag_fills(tmp_path: Path) -> None:
    template = prompt_module_template(_module(tmp_path, OLD_PROMPT_PY))
    assert template.meta.kind == "lightrag.entity_extraction" and template.format == "lightrag"
    assert template.defaults["language"] == "German" and template.meta.entity_types == ["organization", "person", "geo", "event"]
    assert template.origin["user"] == 8 and template.origin["examples.0"] == 22
    assert template.continue_prompt.startswith("MANY entities were missed")


GIVE = "a .py prompt is read as a LightRAG prompt module: give its prompt.py, or a prompt file (.txt, .yaml)"


@pytest.mark.parametrize(("text", "says"), [
    ("import os\nprint(os.getcwd())\n", "no PROMPTS dict with LightRAG extraction prompts found; " + GIVE),
    ("PROMPTS = {}\nPROMPTS['DEFAULT_TUPLE_DELIMITER'] = '<|>'\n", "no LightRAG extraction prompt (PROMPTS["),
    ("PROMPTS = {}\nPROMPTS['entity_extraction'] = build()\n",
     "prompt.py:2: PROMPTS['entity_extraction'] cannot be read without running the module (a call of build())"),
    ("PROMPTS = {\n", "not valid Python"),
])
def test_another_python_file_is_refused_in_one_line(text: str, says: str, tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        lint_prompt(_module(tmp_path, text))
    message = caught.value.message
    assert says in message and "\n" not in message


def test_cli_lints_a_prompt_module(harness_cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness_cli(["prompts", "lint", str(_module(tmp_path, OLD_PROMPT_PY))]) == 0
    assert "1 prompt(s) checked: 0 error(s), 0 warning(s)" in capsys.readouterr().out
    (tmp_path / "script.py").write_text("print('hi')\n", encoding="utf-8")
    assert harness_cli(["prompts", "lint", str(tmp_path / "script.py")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "script.py" in err
