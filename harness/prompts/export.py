"""`harness prompts export`: a harness template written back as the files GraphRAG or LightRAG read.

GraphRAG reads one text file per prompt, named in its settings, and fills it with `str.format`
and its own variables only. Which file, which settings key and which variables depends on the
GraphRAG version, read from the target folder's settings file as `prompts lint` reads it
(`kinds.folder_engine`), and taken from the prompt kinds registry (`kinds.PROMPT_KINDS`: files,
settings keys and filled variables per version), so what is written lints clean for that version:

| prompt | 0.x, 1.x: file / settings key | 2.x, 3.x: file / settings key |
| --- | --- | --- |
| extraction | `prompts/entity_extraction.txt` / `entity_extraction.prompt` | `prompts/extract_graph.txt` / `extract_graph.prompt` |
| description summary | `prompts/summarize_descriptions.txt` / `summarize_descriptions.prompt` | the same |
| community report | `prompts/community_report.txt` / `community_reports.prompt` | `prompts/community_report_graph.txt` / `community_reports.graph_prompt` |

0.x and 1.x fill summaries with `entity_name` and `description_list` only and reports with
`input_text` only (2.x and 3.x add `max_length` and `max_report_length`); 3.x fills extraction with
`input_text` and `entity_types` only and parses the fixed delimiters `<|>`, `##`, `<|COMPLETE|>`,
so those are written into the text. A folder without GraphRAG settings gets 2.x's names.

Everything else is written into the text now, as prompt-tune does: the language, the few-shot
examples, and the entity types of a template that carries its own (a template that leaves them
to the engine keeps `{entity_types}`, so GraphRAG's settings fill it). System and user messages
become one text, joined by a blank line, since GraphRAG sends the prompt as one message.

LightRAG (>= 1.4.8) reads `PROMPTS[...]` from `lightrag/prompt.py`; the export is a Python file
that overrides the extraction entries (`entity_extraction_system_prompt`,
`entity_extraction_user_prompt`, `entity_extraction_examples`), filled by LightRAG with
`entity_types`, `tuple_delimiter`, `completion_delimiter`, `language`, `examples`, `input_text`.

Every export is checked before it is written: the exported text, filled the way the engine fills
it, must equal the harness template rendered with the same values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..atomicfile import atomic_write
from ..errors import InputError
from .entity_types import DEFAULT_ENTITY_TYPES
from .template import PromptTemplate

TARGETS = ("graphrag", "lightrag")

# exported kind -> its registered prompt kind (files, settings keys and variables per GraphRAG version)
GRAPHRAG_FILES: dict[str, str] = {
    "extract_graph": "graphrag.extract_graph",
    "summarize_descriptions": "graphrag.summarize_descriptions",
    "community_report": "graphrag.community_report",
}
DEFAULT_GRAPHRAG_ENGINE = "graphrag-2"  # a folder without GraphRAG settings (what the export wrote before versions)
# LightRAG >= 1.4.8 fills its extraction prompts with these (operate.py, context_base and input_text)
LIGHTRAG_VARIABLES = ("input_text", "entity_types", "tuple_delimiter", "completion_delimiter", "language", "examples")
LIGHTRAG_FILE = "lightrag_prompts.py"
SIDE_KINDS = ("summarize_descriptions", "community_report")
GRAPHRAG_DELIMITERS = {"tuple_delimiter": "<|>", "record_delimiter": "##", "completion_delimiter": "<|COMPLETE|>"}
SAMPLES = {
    "input_text": "Ana Ruiz, mayor of Lowbridge, opened the library.",
    "entity_name": "ANA RUIZ",
    "description_list": '["Mayor of Lowbridge", "Opened the library"]',
    "max_length": "500",
    "max_report_length": "1500",
}


def _sentinel(name: str) -> str:
    return f"\x00{name}\x00"


@dataclass
class ExportedFile:
    kind: str  # extract_graph, summarize_descriptions, community_report, lightrag
    path: Path
    text: str
    settings_key: str | None = None
    engine_variables: tuple[str, ...] = ()


def baked_values(template: PromptTemplate, engine_variables: tuple[str, ...] = ()) -> dict[str, str]:
    """What is written into the exported text: the language (unless the engine fills it), and the
    template's own entity types."""
    values = {} if "language" in engine_variables else {"language": template.meta.language or "English"}
    if template.meta.entity_types:
        values["entity_types"] = ",".join(template.meta.entity_types)
    return values


def engine_text(template: PromptTemplate, engine_variables: tuple[str, ...], *, joiner: str = "\n\n",
                fixed: dict[str, str] | None = None) -> str:
    """The template as one `str.format` text in which only `engine_variables` are placeholders;
    `fixed`: values the engine does not fill but expects written in (GraphRAG 3.x's delimiters)."""
    if template.history:
        raise InputError(f"{template.source}: a chat template with few-shot turns cannot be one engine prompt file")
    baked = {**baked_values(template, engine_variables), **(fixed or {})}
    open_names = [n for n in engine_variables if n not in baked]
    values = {**{n: _sentinel(n) for n in open_names}, **baked}
    values.update(_mapped(template, values, open_names))
    for name in template.required_variables():  # declared without a default: nothing could fill them
        if name not in values:
            raise InputError(f"{template.source}: {{{name}}} has no value and the engine does not fill it")
    messages = template.render(values)
    text = joiner.join(m["content"] for m in messages)
    text = text.replace("{", "{{").replace("}", "}}")
    for name in open_names:
        text = text.replace(_sentinel(name), "{" + name + "}")
    return text


def _mapped(template: PromptTemplate, values: dict[str, str], names: Sequence[str]) -> dict[str, str]:
    """A mapped template (`variable_mappings: {input_text: description_list}`) reads the engine's
    variable under its own name: supply the mapped-from name with the engine variable's value."""
    return {supplied: values[target] for supplied, target in template.variable_mappings.items()
            if target in names and target in values}


def sample_values(template: PromptTemplate) -> dict[str, str]:
    """Values an engine could fill a prompt with, for the round-trip check."""
    types = template.meta.entity_types or list(DEFAULT_ENTITY_TYPES)
    return {
        **SAMPLES,
        "entity_types": ",".join(types),
        "tuple_delimiter": template.meta.tuple_delimiter or GRAPHRAG_DELIMITERS["tuple_delimiter"],
        "record_delimiter": template.meta.record_delimiter or GRAPHRAG_DELIMITERS["record_delimiter"],
        "completion_delimiter": template.meta.completion_delimiter or GRAPHRAG_DELIMITERS["completion_delimiter"],
        "language": template.meta.language or "English",
    }


def check_round_trip(template: PromptTemplate, text: str, engine_variables: tuple[str, ...], *,
                     joiner: str = "\n\n", fixed: dict[str, str] | None = None) -> None:
    """The exported text filled as the engine fills it must be the template's own rendering."""
    values = {**sample_values(template), **(fixed or {})}
    supplied = {n: values[n] for n in engine_variables}
    values.update(_mapped(template, values, engine_variables))
    expected = joiner.join(m["content"] for m in template.render({**values, **baked_values(template, engine_variables)}))
    try:
        got = text.format(**supplied)
    except (KeyError, IndexError, ValueError) as exc:
        raise InputError(f"{template.source}: the exported prompt cannot be filled by the engine ({exc})") from None
    if got != expected:
        raise InputError(f"{template.source}: cannot be exported faithfully (a function or mapping transforms "
                         "a variable the engine fills); export a template that uses the placeholders as written")


def graphrag_engine(out_dir: Path) -> tuple[str, Path | None]:
    """The GraphRAG version the target folder's settings say, and that file (None: no settings there,
    GraphRAG 2.x's names are written)."""
    from .kinds import folder_engine

    found = folder_engine(out_dir) if out_dir.is_dir() else None
    return found if found is not None else (DEFAULT_GRAPHRAG_ENGINE, None)


def graphrag_target(kind: str, engine: str) -> tuple[str, str, tuple[str, ...]]:
    """(file under the project, settings key, the variables GraphRAG fills) of `kind` in that version."""
    from .kinds import get_kind

    prompt_kind = get_kind(GRAPHRAG_FILES[kind])
    return (f"prompts/{prompt_kind.files[engine][0]}", prompt_kind.settings_keys[engine][0],
            tuple(prompt_kind.filled[engine]))


def _fixed_delimiters(template: PromptTemplate, variables: tuple[str, ...]) -> dict[str, str]:
    """The delimiters a version parses but does not fill (3.x): written into the text, and refused
    when the template declares others, which that version could not read."""
    fixed = {}
    for name, default in GRAPHRAG_DELIMITERS.items():
        if name in variables:
            continue
        declared = getattr(template.meta, name)
        if declared and declared != default:
            raise InputError(f"{template.source}: {name} {declared!r}; this GraphRAG version fills no delimiter and "
                             f"parses {default!r} only (export a template with GraphRAG's delimiters)")
        fixed[name] = default
    return fixed


def export_graphrag(template: PromptTemplate, out_dir: Path, kind: str = "extract_graph",
                    engine: str = DEFAULT_GRAPHRAG_ENGINE) -> ExportedFile:
    """One prompt as the file GraphRAG `engine` (graphrag-0 ... graphrag-3) reads for `kind`."""
    name, key, variables = graphrag_target(kind, engine)
    fixed: dict[str, str] = {}
    if kind == "extract_graph":
        if template.format != "graphrag":
            raise InputError(f"{template.source}: format {template.format}; GraphRAG's extractor reads GraphRAG tuples "
                             "only (export it --to lightrag, or tune with --format graphrag)")
        fixed = _fixed_delimiters(template, variables)
    text = engine_text(template, variables, fixed=fixed)
    check_round_trip(template, text, variables, fixed=fixed)
    return ExportedFile(kind, out_dir / name, text, key, tuple(v for v in variables if "{" + v + "}" in text))


def side_templates(prompt_path: Path | None) -> dict[str, Path]:
    """`<name>.summarize_descriptions.yaml` and `<name>.community_report.yaml` written by tune beside the prompt."""
    if prompt_path is None:
        return {}
    found = {}
    for kind in SIDE_KINDS:
        path = prompt_path.with_name(f"{prompt_path.stem}.{kind}.yaml")
        if path.is_file():
            found[kind] = path
    return found


def export_lightrag(template: PromptTemplate, out_dir: Path) -> ExportedFile:
    """A Python file that sets LightRAG's extraction PROMPTS entries."""
    import json

    if template.format != "lightrag":
        raise InputError(f"{template.source}: format {template.format}; LightRAG parses its own lines only "
                         "(export it --to graphrag, or tune with --format lightrag)")
    if template.history:
        raise InputError(f"{template.source}: a chat template with few-shot turns cannot be LightRAG's prompts")
    variables = tuple(v for v in LIGHTRAG_VARIABLES if v != "examples")
    system = template.system or ""
    user_template = PromptTemplate(user=template.user, source=template.source, defaults=template.defaults,
                                   variable_mappings=template.variable_mappings,
                                   function_mappings=template.function_mappings, examples=template.examples,
                                   example_layout=template.example_layout, meta=template.meta, format=template.format)
    parts = {"user": engine_text(user_template, variables)}
    if system:
        system_template = PromptTemplate(user=system, source=template.source, defaults=template.defaults,
                                         variable_mappings=template.variable_mappings,
                                         function_mappings=template.function_mappings, examples=template.examples,
                                         example_layout=template.example_layout, meta=template.meta,
                                         format=template.format)
        parts["system"] = engine_text(system_template, variables)
        check_round_trip(system_template, parts["system"], variables)
    check_round_trip(user_template, parts["user"], variables)
    lines = [
        '"""LightRAG extraction prompts exported by `harness prompts export`.',
        "",
        "Import this module after lightrag.prompt (before building LightRAG) to use them.",
        '"""',
        "",
        "from lightrag.prompt import PROMPTS",
        "",
    ]
    if "system" in parts:
        lines.append(f'PROMPTS["entity_extraction_system_prompt"] = {json.dumps(parts["system"], ensure_ascii=False)}')
    lines.append(f'PROMPTS["entity_extraction_user_prompt"] = {json.dumps(parts["user"], ensure_ascii=False)}')
    lines.append('PROMPTS["entity_extraction_examples"] = []  # the examples are written into the prompts above')
    if template.meta.tuple_delimiter:
        lines.append(f'PROMPTS["DEFAULT_TUPLE_DELIMITER"] = {json.dumps(template.meta.tuple_delimiter)}')
    if template.meta.completion_delimiter:
        lines.append(f'PROMPTS["DEFAULT_COMPLETION_DELIMITER"] = {json.dumps(template.meta.completion_delimiter)}')
    used = tuple(v for v in variables if any("{" + v + "}" in text for text in parts.values()))
    return ExportedFile("lightrag", out_dir / LIGHTRAG_FILE, "\n".join(lines) + "\n", None, used)


def write_exports(files: list[ExportedFile], *, force: bool) -> None:
    existing = [f.path for f in files if f.path.exists()]
    if existing and not force:
        raise InputError(f"{existing[0]}: already exists (use --force to overwrite)")
    for exported in files:  # atomically, never through a link out of the project (harness/confined.py)
        atomic_write(exported.path, exported.text)

