"""A LightRAG `prompt.py` read as one prompt template, for `harness prompts lint prompt.py`.

A LightRAG user's prompts live in a Python module (a PROMPTS dict), not in a prompt file: lint
reads the module as `harness import lightrag` does (`read_prompts_py`: `ast`, never executed),
takes its extraction prompt with its gleaning prompts and examples (`template_data`), fills what
LightRAG fills from the module's own defaults (DEFAULT_LANGUAGE, DEFAULT_ENTITY_TYPES,
delimiters), and points every part at the line of prompt.py it comes from, so a finding names a
line of the module.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ..errors import InputError
from ..prompts.template import PromptTemplate
from .lightrag import LightRAGProject, read_prompts_py, template_data

# template part -> the PROMPTS entry it is read from, per prompt generation
_PARTS = {
    "new": {"system": "entity_extraction_system_prompt", "user": "entity_extraction_user_prompt",
            "continue_prompt": "entity_continue_extraction_user_prompt", "loop_prompt": "entity_if_loop_extraction"},
    "old": {"user": "entity_extraction", "continue_prompt": "entity_continue_extraction",
            "loop_prompt": "entity_if_loop_extraction"},
}
EXAMPLES_KEY = "entity_extraction_examples"


def _item_lines(path: Path, key: str) -> list[int]:
    """The line of each element of a PROMPTS entry written as a list literal (`PROMPTS[key] = [...]`
    or `key: [...]` in the dict's literal); empty when it is written otherwise."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return []
    for node in ast.walk(tree):
        value: ast.expr | None = None
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == key
                for t in node.targets):
            value = node.value
        elif isinstance(node, ast.Dict):
            value = next((v for k, v in zip(node.keys, node.values)
                          if isinstance(k, ast.Constant) and k.value == key), None)
        if isinstance(value, ast.List):
            return [element.lineno for element in value.elts]
    return []


def prompt_module_template(path: Path) -> PromptTemplate:
    """The extraction prompt of a LightRAG prompt module as a template whose parts carry the lines
    of prompt.py. Raises InputError (one line) for a module with no LightRAG extraction prompt."""
    from ..prompts.yaml_template import template_from_data

    try:
        prompts, lines, skipped = read_prompts_py(path)
    except InputError as exc:
        raise InputError(f"{exc.message}; a .py prompt is read as a LightRAG prompt module: give its prompt.py, "
                         "or a prompt file (.txt, .yaml)") from None
    project = LightRAGProject(root=path.parent, prompt_file=path, prompts=prompts, prompt_lines=lines, skipped=skipped)
    style = project.style or next((s for s, parts in _PARTS.items() if parts["user"] in skipped), None)
    if style is None:
        raise InputError(f"{path}: no LightRAG extraction prompt (PROMPTS['entity_extraction'] or "
                         "PROMPTS['entity_extraction_user_prompt']); a .py prompt is read as a LightRAG prompt "
                         "module: give its prompt.py, or a prompt file (.txt, .yaml)")
    main = _PARTS[style]["user"]
    if not isinstance(prompts.get(main), str):
        where = f"{path}:{skipped[main].line}" if main in skipped else str(path)
        why = skipped[main].reason if main in skipped else "not set"
        raise InputError(f"{where}: PROMPTS[{main!r}] cannot be read without running the module ({why})")
    if isinstance(prompts.get("DEFAULT_ENTITY_TYPES"), list):
        project.entity_types = [str(t) for t in prompts["DEFAULT_ENTITY_TYPES"]]
    if isinstance(prompts.get("DEFAULT_LANGUAGE"), str):
        project.language = prompts["DEFAULT_LANGUAGE"]
    data = template_data(project, name=f"{path.stem}-{main}")
    data["entity_types"] = list(project.entity_types)  # what LightRAG fills {entity_types} with by default
    template = template_from_data(data, {}, "", str(path), strict=False)
    template.meta.raw_text = None  # the module is not prompt text: lint checks each part for Python
    for part, key in _PARTS[style].items():
        if key in lines:
            template.origin[part] = lines[key]
    items = _item_lines(path, EXAMPLES_KEY)
    for index, example in enumerate(template.examples):
        line = items[index] if index < len(items) else lines.get(EXAMPLES_KEY, 1)
        example.line = example.output_line = line
        template.origin[f"examples.{index}"] = line
    return template
