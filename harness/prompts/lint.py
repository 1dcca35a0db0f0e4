"""Prompt lint: the mistakes that ruin an extraction run, found before a single call is made.

`lint_prompt` is pure apart from reading the prompt file: it takes a path (or a built-in
reference, or a loaded template) and returns findings, each with a stable code (documented in
docs/prompts.md and in LINT_CODES below), a file line and a one-line hint.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

from ..errors import InputError
from ..formats import get_format
from ..formats.base import DELIMITER_KEYS, resolve_delimiters
from ..llm.tokens import count_message_tokens
from ..formats.answer import parse
from .builtin import get_builtin, load_builtin
from .entity_types import DEFAULT_ENTITY_TYPES
from .examples import Example, InlineExample, find_inline_examples, render_output
from .syntax import TOKEN, fill, placeholder_lines, placeholders
from .template import (
    EXAMPLES_VARIABLE,
    INPUT_VARIABLE,
    RUNNER_VARIABLES,
    PromptMeta,
    PromptTemplate,
    read_prompt_text,
)
from .kinds import (
    DELIMITERS,
    ENGINE_DELIMITERS,
    EXAMPLES,
    FORMAT_KINDS,
    HARNESS_ENGINE,
    PromptKind,
    check_engine,
    detect_kind,
    find_project_engine,
    get_kind,
    kinds_of_file,
)
from .loading import load_prompt

Severity = Literal["error", "warning"]

DEFAULT_TOKEN_BUDGET = 4000  # tokens of the rendered prompt without the chunk

# code -> (severity, what it means, one-line hint). Codes are stable: tools and CI match on them.
LINT_CODES: dict[str, tuple[Severity, str, str]] = {
    "template-invalid": ("error", "The template file cannot be read as a template (YAML syntax or schema).",
                         "Fix the line named; see docs/prompts.md for the template keys."),
    "python-wrapper": ("error", "The prompt file still holds its Python wrapper (`NAME = \"\"\"`, `PROMPTS[...] =`, `\"\"\"`).",
                       "Keep only the text between the triple quotes; the wrapper would be sent to the model."),
    "input-missing": ("error", "No message has the placeholder of the prompt's data ({input_text}; {description_list}, {context_data}... for other kinds), so it is never sent.",
                      "Add the placeholder where the data belongs (for extraction, {input_text} after 'Text:')."),
    "placeholder-unknown": ("error", "A placeholder is used but the engine (or nothing) supplies a value for it.",
                            "Rename it to a variable the engine fills (harness prompts kinds), or declare it under `variables:` in a YAML template."),
    "placeholder-malformed": ("error", "A placeholder is broken (`{tuple_delimiter>`, `{ input_text }`, `record_delimiter}`).",
                              "Write it as {name}: one opening brace, the name, one closing brace, no spaces."),
    "placeholder-escaped": ("error", "A variable is written `{{name}}`, which renders as the literal text {name}.",
                            "Use single braces {name}; double braces are for literal braces only."),
    "variable-unused": ("warning", "A variable is supplied or declared but the prompt never uses it.",
                        "Use the placeholder, or drop the variable (lint: {ignore: [variable-unused]} if deliberate)."),
    "brace-unescaped": ("warning", "A lone `{` or `}`: GraphRAG's and LightRAG's str.format fail on it.",
                        "Write literal braces as {{ and }} (JSON skeletons too)."),
    "delimiter-mismatch": ("error", "The instructions show a delimiter or output format other than the declared one.",
                           "Use the {tuple_delimiter}/{record_delimiter}/{completion_delimiter} placeholders, or change the declared format."),
    "examples-unused": ("error", "The template declares examples but no message has the {examples} placeholder.",
                        "Put {examples} where the few-shot examples belong."),
    "example-unparsable": ("error", "A few-shot example's answer loses records when parsed with the declared format.",
                           "Rewrite the example in the declared format; the parser's reason codes are in the message."),
    "example-delimiter": ("error", "A few-shot example uses a different delimiter than the declared one.",
                          "Write the example with the {tuple_delimiter} and {record_delimiter} placeholders."),
    "example-no-completion": ("error", "A few-shot example does not end with the completion delimiter.",
                              "End every example answer with {completion_delimiter} on its own line."),
    "example-type-undeclared": ("error", "A few-shot example uses entity types outside its declared list.",
                                "Use only the declared types in the example, or add the type to its Entity_types line."),
    "example-not-extraction": ("error", "A few-shot example's answer is not an extraction (a refusal, a summary or prose).",
                               "Replace it with records in the declared format; the model copies what examples show."),
    "example-prose": ("warning", "A few-shot example mixes prose with its records.",
                      "Keep example answers to records only; models copy the prose into every answer."),
    "example-format": ("warning", "A few-shot example is readable but not in the clean form of the format.",
                       "Rewrite the records exactly as the instructions describe them."),
    "example-dangling-relationship": ("warning", "A few-shot relationship names an entity the example never lists.",
                                      "List every relationship endpoint as an entity in the same example."),
    "language-sentence": ("error", "A language slot holds a whole sentence instead of a language name.",
                          "Set the language to a name such as English or Chinese."),
    "gleaning-placeholder": ("error", "A continue or loop prompt has placeholders or brace escapes; gleaning sends it as written.",
                             "Write the gleaning prompts as plain text without {placeholders}."),
    "token-budget": ("error", "The prompt without the chunk is over the token budget.",
                     "Shorten the instructions or drop an example; or raise the budget (--max-tokens, token_budget:)."),
}


@dataclass(frozen=True)
class LintFinding:
    """One lint finding. `line` is 1-based in the prompt file (1 when it concerns the whole file)."""

    code: str
    line: int
    message: str
    source: str = "<prompt>"
    severity: Severity = "error"
    hint: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "code": self.code, "severity": self.severity,
                "message": self.message, "hint": self.hint}

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.severity} {self.code}: {self.message}"


def has_errors(findings: Iterable[LintFinding]) -> bool:
    return any(f.severity == "error" for f in findings)


@dataclass
class LintContext:
    """What the prompt will be rendered and parsed with."""

    format: str
    tuple_delimiter: str
    record_delimiter: str
    completion_delimiter: str
    language: str
    entity_types: list[str] | None  # the declared list examples are checked against (None: unknown)
    variables: dict[str, str]  # every variable supplied at render time, with a value
    expected: set[str]  # supplied variables that the prompt should use
    model: str
    budget: int
    engine: str = HARNESS_ENGINE  # who fills the variables (kinds.ENGINE_NAMES)
    input_variable: str | None = INPUT_VARIABLE  # the variable that carries the data (None: none)


class _Collector:
    def __init__(self, source: str, ignore: Iterable[str]) -> None:
        self.source = source
        self.ignore = set(ignore)
        self.findings: list[LintFinding] = []

    def add(self, code: str, line: int, message: str) -> None:
        if code in self.ignore:
            return
        severity, _, hint = LINT_CODES[code]
        self.findings.append(LintFinding(code, max(1, line), message, self.source, severity, hint))


# --------------------------------------------------------------------------- entry points


class LintOptions(TypedDict, total=False):
    """The keyword settings of `lint_prompt` and `lint_report` (see lint_report)."""

    variables: Mapping[str, str] | None
    format: str | None
    entity_types: Sequence[str] | None
    language: str | None
    tuple_delimiter: str | None
    record_delimiter: str | None
    completion_delimiter: str | None
    model: str
    max_tokens: int | None
    ignore: Iterable[str]
    kind: str | None
    engine: str | None


def lint_prompt(prompt: str | Path | PromptTemplate, **options: Unpack[LintOptions]) -> list[LintFinding]:
    """Lint one prompt: a path, a `builtin:` reference, or a loaded PromptTemplate.

    `variables` are the variables the caller will supply (default: what the prompt's engine fills
    for its kind, with sample values). The keyword settings say what the prompt will be rendered
    and parsed with; anything left out comes from the template's own declarations, then the kind's
    format and the format's defaults. `kind` and `engine` force what is otherwise declared, read
    from the file name and the project's settings, or detected (see lint_report). Raises
    InputError only when the file cannot be found or read, or a kind or engine is unknown.
    """
    return lint_report(prompt, **options).findings


@dataclass(frozen=True)
class LintReport:
    """The findings of one prompt, with the kind and engine it was checked as and how each was known."""

    source: str
    findings: list[LintFinding]
    kind: str | None  # None: the file could not be read as a template
    kind_from: str = ""  # given | declared | file name | text | format
    engine: str | None = None
    engine_from: str = ""  # given | <settings file> | default

    def describe(self) -> str:
        if self.kind is None:
            return f"{self.source}: not a template"
        return f"{self.source}: kind {self.kind} ({self.kind_from}), engine {self.engine} ({self.engine_from})"


def lint_report(
    prompt: str | Path | PromptTemplate,
    *,
    variables: Mapping[str, str] | None = None,
    format: str | None = None,
    entity_types: Sequence[str] | None = None,
    language: str | None = None,
    tuple_delimiter: str | None = None,
    record_delimiter: str | None = None,
    completion_delimiter: str | None = None,
    model: str = "gpt-4o-mini",
    max_tokens: int | None = None,
    ignore: Iterable[str] = (),
    kind: str | None = None,
    engine: str | None = None,
) -> LintReport:
    """`lint_prompt`, also saying which kind and engine the prompt was checked as.

    The kind is the one given, else the template's `kind:`, else the one GraphRAG's or LightRAG's
    file name says, else the one its text shows, else the one its format implies. The engine is
    the one given, else (GraphRAG kinds of a prompt file) the version of the GraphRAG project the
    file sits in (its settings.yaml, walking up), else the kind's default (kinds.PromptKind.default_engine).
    """
    if engine is not None:
        check_engine(engine)
    forced = get_kind(kind) if kind is not None else None
    if isinstance(prompt, PromptTemplate):
        template = prompt
    else:
        template_or_finding = _load(prompt)
        if isinstance(template_or_finding, LintFinding):
            return LintReport(str(prompt), [template_or_finding], None)
        template = template_or_finding
    chosen, kind_from, engine, engine_from = _resolve_kind(template, forced, engine)
    ctx = _context(template, variables, format, entity_types, language, tuple_delimiter, record_delimiter,
                   completion_delimiter, model, max_tokens, chosen, engine)
    out = _Collector(template.source, [*template.meta.lint_ignore, *ignore])
    _check_wrapper(template, out)
    _check_placeholders(template, ctx, out)
    _check_gleaning(template, out)
    _check_language(template, ctx, out)
    if DELIMITERS in chosen.checks:
        _check_delimiters(template, ctx, out)
    if EXAMPLES in chosen.checks:
        _check_examples(template, ctx, out)
    _check_tokens(template, ctx, out)
    findings = sorted(out.findings, key=lambda f: (f.line, f.code))
    return LintReport(template.source, findings, chosen.name, kind_from, engine, engine_from)


def _shown(path: Path) -> str:
    """A path relative to the working folder when it is under it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _same_setting(one: PromptKind, other: PromptKind) -> bool:
    """Both kinds are read from the same settings key (variants of one prompt)."""
    keys = {k for keys in one.settings_keys.values() for k in keys}
    return bool(keys & {k for keys in other.settings_keys.values() for k in keys})


def _resolve_kind(template: PromptTemplate, forced: PromptKind | None,
                  engine: str | None) -> tuple[PromptKind, str, str, str]:
    """(kind, how it was known, engine, how it was known)."""
    text = "\n".join(part for _, part in template.parts())
    path = Path(template.source)
    is_file = not template.source.startswith(("builtin:", "<")) and path.is_file()
    project = find_project_engine(path) if is_file and engine is None else None
    hint = engine or (project[0] if project else None)
    if forced is not None:
        chosen, how = forced, "given"
    elif template.meta.kind is not None:
        chosen, how = get_kind(template.meta.kind), "declared"
    else:
        by_name = kinds_of_file(path, hint) if is_file else []
        detected = detect_kind(text)
        if by_name:
            shown = sorted((k for k in by_name if k.detect(text)), key=lambda k: -k.priority)
            chosen, how = (shown[0] if shown else by_name[0]), "file name"
            if not shown and detected is not None and _same_setting(detected, chosen):
                chosen, how = detected, "file name and text"  # prompt-tune's untyped or JSON extract_graph.txt
        elif detected is not None:
            chosen, how = detected, "text"
        else:
            chosen, how = get_kind(FORMAT_KINDS.get(template.format, "graphrag.extract_graph")), "format"
    if engine is not None:
        return chosen, how, engine, "given"
    if project is not None and chosen.family == "graphrag":
        return chosen, how, project[0], _shown(project[1])
    return chosen, how, chosen.default_engine(template.placeholders()), "default"


def lint_text(text: str, *, source: str = "<prompt>", **settings: Any) -> list[LintFinding]:
    """Lint prompt text held in memory (what the auto-tuner writes) as a GraphRAG-style text prompt."""
    template = PromptTemplate(user=text, source=source, meta=PromptMeta(raw_text=text), origin={"user": 1})
    return lint_prompt(template, **settings)


def _load(prompt: str | Path) -> PromptTemplate | LintFinding:
    """Load leniently; a file that is missing or unreadable is bad input (InputError), a file that
    is not a valid template is a `template-invalid` finding."""
    source = str(prompt)
    load: Callable[[], PromptTemplate]
    if source.startswith("builtin:"):
        get_builtin(source)
        load = partial(load_builtin, source, strict=False)
    else:
        path = Path(prompt)
        if not path.is_file():
            raise InputError(f"{path}: prompt file not found")
        read_prompt_text(path)
        if path.suffix.lower() == ".py":  # a LightRAG prompt.py: its extraction prompt, not the module's text
            from ..importers.lightrag_module import prompt_module_template

            return prompt_module_template(path)
        load = partial(load_prompt, path, strict=False)
    try:
        return load()
    except InputError as exc:
        return _invalid(exc.message, source)


def _invalid(message: str, source: str) -> LintFinding:
    match = re.match(r"^(.*?):(\d+): (.*)$", message)
    line, text = (int(match.group(2)), match.group(3)) if match else (1, message.removeprefix(f"{source}: "))
    severity, _, hint = LINT_CODES["template-invalid"]
    return LintFinding("template-invalid", line, text, source, severity, hint)


# --------------------------------------------------------------------------- context


def _types(value: str) -> list[str]:
    return [t.strip().strip("'\"") for t in value.strip().strip("[]").split(",") if t.strip()]


# values lint fills a kind's variables with (the data variables empty, so the token budget counts
# the prompt without its data)
SAMPLE_VALUES: dict[str, str] = {
    "entity_name": '"ENTITY"', "description_list": "[]", "max_length": "500", "max_report_length": "1500",
    "entity_specs": "organization,person", "claim_description": "Any claims or facts that could be relevant",
    "response_type": "multiple paragraphs", "global_query": "question", "followups": "3", "question_count": "5",
    "description_type": "Entity", "description_name": "ENTITY", "summary_length": "500", "user_prompt": "n/a",
}


def _context(
    template: PromptTemplate,
    variables: Mapping[str, str] | None,
    fmt: str | None,
    entity_types: Sequence[str] | None,
    language: str | None,
    td: str | None,
    rd: str | None,
    cd: str | None,
    model: str,
    max_tokens: int | None,
    kind: PromptKind,
    engine: str,
) -> LintContext:
    meta = template.meta
    given = dict(variables or {})
    if fmt is None:  # a template's own `format:` wins; a text prompt is read as its kind's format
        fmt = template.format if meta.format_declared or kind.format is None else kind.format
    output_format = get_format(fmt)
    explicit = {"tuple_delimiter": td, "record_delimiter": rd, "completion_delimiter": cd}
    declared = {key: getattr(meta, key) for key in DELIMITER_KEYS}
    delimiters = resolve_delimiters(output_format, explicit, given, declared, ENGINE_DELIMITERS.get(engine, {}))
    tuple_delimiter, record_delimiter, completion_delimiter = delimiters.tuple, delimiters.record, delimiters.completion
    declared_types: list[str] | None = list(entity_types) if entity_types is not None else meta.entity_types
    lang = language or given.get("language") or meta.language or "English"
    sample_types = declared_types or (_types(given["entity_types"]) if "entity_types" in given else list(DEFAULT_ENTITY_TYPES))
    resolved = {
        "input_text": "",
        "entity_types": ",".join(sample_types),
        "tuple_delimiter": tuple_delimiter,
        "record_delimiter": record_delimiter,
        "completion_delimiter": completion_delimiter,
        "language": lang,
    }
    harness_runs = engine == HARNESS_ENGINE and kind.harness is not None
    input_variable = kind.input_variable
    if variables is None and harness_runs and kind.extraction:
        # the harness's runner: the six variables of every extraction call, plus the kind's own
        given = {**resolved, **{n: SAMPLE_VALUES.get(n, "") for n in kind.harness or () if n not in resolved}}
        expected = set(output_format.variables)
    elif variables is None:
        names = kind.harness if harness_runs and kind.harness is not None else kind.supplied(engine)
        given = {name: resolved.get(name, SAMPLE_VALUES.get(name, "")) for name in names}
        expected = kind.expected(None if engine == HARNESS_ENGINE else engine)
        if harness_runs and input_variable != INPUT_VARIABLE and INPUT_VARIABLE in template.placeholders():
            # the runner fills {input_text} with the same data (the description list, the context)
            expected.discard(input_variable or "")
            input_variable = INPUT_VARIABLE
    else:
        # explicit settings win over the supplied values; missing delimiters get the declared ones
        for name, set_explicitly, setting in (
                ("tuple_delimiter", td, tuple_delimiter), ("record_delimiter", rd, record_delimiter),
                ("completion_delimiter", cd, completion_delimiter), ("language", language, lang)):
            if set_explicitly is not None or (name != "language" and name not in given):
                given[name] = setting
        if entity_types is not None and "entity_types" in given:
            given["entity_types"] = ",".join(entity_types)
        expected = set(variables) & set(output_format.variables) | (set(variables) - set(RUNNER_VARIABLES))
        if input_variable is not None and input_variable not in variables and INPUT_VARIABLE in variables:
            input_variable = INPUT_VARIABLE
    expected |= set(meta.declared_variables)
    budget = max_tokens or meta.token_budget or DEFAULT_TOKEN_BUDGET
    return LintContext(fmt, tuple_delimiter, record_delimiter, completion_delimiter, lang, declared_types,
                       given, expected, model, budget, engine, input_variable)


def _render_values(template: PromptTemplate, ctx: LintContext) -> dict[str, str]:
    """Every value the messages would be filled with; an example that cannot render leaves {examples} empty.

    A delimiter placeholder the engine does not fill (already `placeholder-unknown`) is rendered
    with the delimiter answers are parsed with, so the checks of examples and delimiters that
    follow do not repeat that finding.
    """
    variables = {"tuple_delimiter": ctx.tuple_delimiter, "record_delimiter": ctx.record_delimiter,
                 "completion_delimiter": ctx.completion_delimiter, **ctx.variables}
    try:
        return template.values(variables)
    except InputError:
        return {**template.defaults, **variables, EXAMPLES_VARIABLE: ""}


# --------------------------------------------------------------------------- checks


_WRAPPER = [
    re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*(?:\s*:\s*[A-Za-z_][\w\[\], .]*)?\s*=\s*[rRbBuUfF]{0,2}(?:\"\"\"|''')"),
    re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*\[\s*[\"'][^\"']+[\"']\s*\]\s*=\s*[rRbBuUfF]{0,2}(?:\"\"\"|'''|\"|'|\(|$)"),
    re.compile(r"^\s*[rRbBuUfF]{0,2}(?:\"\"\"|''')\s*[,)]?\s*$"),
]
# imports only count near the top of the file, where a copied module starts
_IMPORT = re.compile(r"^\s*(?:from\s+[\w.]+\s+import\s+[\w*, ()]+|import\s+[\w.]+(?:\s+as\s+\w+)?)\s*$")


def _check_wrapper(template: PromptTemplate, out: _Collector) -> None:
    """Python left around a prompt pasted from a .py file."""
    if template.meta.raw_text is not None and not template.source.endswith((".yaml", ".yml", ".json")) \
            and not template.source.startswith("builtin:"):
        segments = [(template.meta.raw_text, 1)]
    else:
        segments = [(text, template.line_of(part)) for part, text in template.parts()]
    for text, first in segments:
        for number, line in enumerate(text.split("\n")):
            if any(p.match(line) for p in _WRAPPER) or (number < 5 and _IMPORT.match(line)):
                out.add("python-wrapper", first + number, f"Python code in the prompt: {line.strip()[:60]!r}")
                return


def _known_names(template: PromptTemplate, ctx: LintContext) -> set[str]:
    return (set(RUNNER_VARIABLES) | set(ctx.variables) | set(template.defaults) | template.computed_variables()
            | set(template.meta.declared_variables) | set(template.variable_mappings) | set(template.placeholders()))


def _check_placeholders(template: PromptTemplate, ctx: LintContext, out: _Collector) -> None:
    supplied = set(ctx.variables) | set(template.defaults)
    # a variable the template declares without a value is an input its caller supplies
    available = supplied | template.computed_variables() | set(template.meta.declared_variables)
    wanted = ctx.input_variable
    input_name = template.variable_mappings.get(wanted, wanted) if wanted is not None else None
    who = "the harness" if ctx.engine == HARNESS_ENGINE else ctx.engine
    used: set[str] = set()
    for part, text in template.parts():
        first = template.line_of(part)
        for name, line in placeholder_lines(text, first).items():
            used.add(name)
            if name not in available:
                out.add("placeholder-unknown", line,
                        f"{{{name}}} is never supplied: {who} fills {', '.join(sorted(supplied)) or 'nothing'}")
    if input_name is not None and input_name not in used:
        what = "the chunk" if input_name == INPUT_VARIABLE else "its data"
        out.add("input-missing", template.line_of("user"), f"no message has {{{input_name}}}; {what} would never be sent")
    if template.examples and EXAMPLES_VARIABLE not in used:
        out.add("examples-unused", template.line_of("examples.0"),
                f"{len(template.examples)} example(s) declared but no message has {{{EXAMPLES_VARIABLE}}}")

    known = _known_names(template, ctx)
    for part, text in template.parts():
        _check_malformed(text, template.line_of(part), known, out)

    # supplied (or declared) but never used
    if any(not hasattr(f, "inputs") for f in template.function_mappings.values()):
        return  # a Python function may read any variable: nothing can be called unused
    consumed = set(used)
    for supplied_name, target in template.variable_mappings.items():
        if target in used:
            consumed.add(supplied_name)
    for function_name, function in template.function_mappings.items():
        if function_name in used:
            consumed.update(getattr(function, "inputs"))
    if EXAMPLES_VARIABLE in used and template.examples:
        consumed.update(_example_inputs(template, ctx.format))
    bound = set(template.partials)  # filled on purpose by partial_format
    skipped = {INPUT_VARIABLE} | ({input_name} if input_name is not None else set())
    for name in sorted(ctx.expected - consumed - bound - skipped):
        line = template.origin.get(f"variables.{name}", template.line_of("user"))
        out.add("variable-unused", line, f"{{{name}}} is supplied but the prompt never uses it")


def _example_inputs(template: PromptTemplate, fmt: str) -> set[str]:
    names: set[str] = set()
    for example in template.examples:
        if example.kind == "structured":  # written in the format's own delimiters
            names |= set(get_format(fmt).variables) & set(DELIMITER_KEYS)
        else:
            names |= set(placeholders(example.block or example.output or ""))
        if template.example_layout.template:
            names |= set(placeholders(template.example_layout.template)) - {"n", "entity_types", "text", "output"}
    return names


def _check_malformed(text: str, first: int, known: set[str], out: _Collector) -> None:
    flagged: list[tuple[int, int]] = []
    names = "|".join(sorted((re.escape(n) for n in known), key=len, reverse=True))
    if names:
        patterns: list[tuple[str, re.Pattern[str], str]] = [
            ("placeholder-escaped", re.compile(r"\{\{\s*(" + names + r")\s*\}\}"), "{{{{{0}}}}} renders as the literal text {{{0}}}"),
            ("placeholder-malformed", re.compile(r"(?<!\{)\{[ \t]+(" + names + r")[ \t]*\}|(?<!\{)\{(" + names + r")[ \t]+\}"),
             "spaces inside the braces of {{{0}}}"),
            ("placeholder-malformed", re.compile(r"(?<!\{)\{(" + names + r")(?![}\w])"), "{{{0} is not closed with }}"),
            ("placeholder-malformed", re.compile(r"(?<![{\w])(" + names + r")\}(?!\})"), "{0}}} has no opening {{"),
            ("placeholder-malformed", re.compile(r"<(tuple_delimiter|record_delimiter|completion_delimiter)[>}]"),
             "<{0}> is not a placeholder; write {{{0}}}"),
        ]
        for code, pattern, message in patterns:
            for match in pattern.finditer(text):
                if any(start <= match.start() < end for start, end in flagged):
                    continue
                name = next(g for g in match.groups() if g)
                flagged.append((match.start(), match.end()))
                out.add(code, first + text.count("\n", 0, match.start()), message.format(name))
    # lone braces the placeholder syntax does not consume
    masked = TOKEN.sub(lambda m: " " * len(m.group(0)), text)
    lone = [m.start() for m in re.finditer(r"[{}]", masked) if not any(s <= m.start() < e for s, e in flagged)]
    if lone:
        line = first + text.count("\n", 0, lone[0])
        out.add("brace-unescaped", line, f"{len(lone)} lone brace(s), the first here; the harness keeps them, str.format would not")


def _check_gleaning(template: PromptTemplate, out: _Collector) -> None:
    for part in ("continue_prompt", "loop_prompt"):
        text = getattr(template, part)
        tokens = [m for m in TOKEN.finditer(text)]
        if tokens:
            shown = ", ".join(dict.fromkeys(m.group(0) for m in tokens))
            line = template.line_of(part) + text.count("\n", 0, tokens[0].start())
            out.add("gleaning-placeholder", line, f"the {part.replace('_', ' ')} is sent as written, so the model sees {shown}")


_LANGUAGE_WORDS = re.compile(r"\b(?:language|is|are|was|appears|seems|written|text|primary|detected)\b", re.I)
_OUTPUT_IN = re.compile(r"\b(?:output|respond|answer|write|return|reply|descriptions?)\b[^\n]{0,40}?\bin\s+([^\n]+)", re.I)


def _sentence_like(value: str) -> bool:
    words = value.split()
    return len(words) > 4 or (len(words) > 2 and bool(_LANGUAGE_WORDS.search(value))) or value.rstrip().endswith(".")


def _check_language(template: PromptTemplate, ctx: LintContext, out: _Collector) -> None:
    value = ctx.language.strip()
    if value and _sentence_like(value):
        line = template.origin.get("language")
        if line is None:
            for part, text in template.parts():
                lines = placeholder_lines(text, template.line_of(part))
                if "language" in lines:
                    line = lines["language"]
                    break
        out.add("language-sentence", line or 1, f"the language is {value[:80]!r}, a sentence rather than a language name")
    for part, text in template.parts():
        first = template.line_of(part)
        for match in _OUTPUT_IN.finditer(text):
            phrase = re.split(r"\s+as\s+a\b|[.;:,(]\s|\.$", match.group(1).strip(), maxsplit=1)[0].strip()
            if "{" in phrase:
                continue
            if len(phrase.split()) > 3 and _LANGUAGE_WORDS.search(phrase) and re.search(r"\b(?:is|are|was)\b", phrase):
                out.add("language-sentence", first + text.count("\n", 0, match.start()),
                        f"a sentence stands where a language name belongs: 'in {phrase[:70]}'")


_TUPLE_LITERAL = re.compile(r"<\|(?:#\|)?>")  # <|> (GraphRAG) and <|#|> (LightRAG >= 1.4.8)
_COMPLETION_LITERAL = re.compile(r"<\|[A-Z][A-Z_]*\|>")
_RECORD_LITERAL = re.compile(r"(?<![#\w])##(?![#\w])")
_ASKS_JSON = re.compile(r"\b(?:return|output|respond|answer|format|reply)\b[^\n.]{0,60}\bJSON\b", re.I)
_TUPLE_RECORD = re.compile(r"\(\s*\"?(?:entity|relationship)\"?\s*\{tuple_delimiter\}")


def _check_delimiters(template: PromptTemplate, ctx: LintContext, out: _Collector) -> None:
    fmt = ctx.format
    output_format = get_format(fmt)
    delimited = output_format.delimited
    records_in_json = not delimited and not output_format.single_object  # a JSON graph: no tuples at all
    for part, text in template.parts():
        first = template.line_of(part)

        def line(pos: int) -> int:
            return first + text.count("\n", 0, pos)

        for match in _TUPLE_LITERAL.finditer(text):
            if not delimited:
                out.add("delimiter-mismatch", line(match.start()), f"the format is {fmt} but the instructions write the tuple delimiter {match.group(0)}")
            elif match.group(0) != ctx.tuple_delimiter:
                out.add("delimiter-mismatch", line(match.start()),
                        f"the instructions write {match.group(0)} but answers are parsed with the tuple delimiter {ctx.tuple_delimiter}")
        for match in _COMPLETION_LITERAL.finditer(text):
            if delimited and match.group(0) != ctx.completion_delimiter:
                out.add("delimiter-mismatch", line(match.start()),
                        f"the instructions write {match.group(0)} but the completion delimiter is {ctx.completion_delimiter}")
        if "record_delimiter" in output_format.variables and ctx.record_delimiter != "##":
            for match in _RECORD_LITERAL.finditer(text):
                if text[max(0, match.start() - 1):match.start()] in ("", "\n") and text[match.end():match.end() + 1] == " ":
                    continue  # a markdown heading
                out.add("delimiter-mismatch", line(match.start()),
                        f"the instructions write ## but the record delimiter is {ctx.record_delimiter!r}")
        if records_in_json:
            for name in ("tuple_delimiter", "record_delimiter"):
                hit = placeholder_lines(text, first).get(name)
                if hit:
                    out.add("delimiter-mismatch", hit, f"the format is json but the instructions use {{{name}}}")
            record = _TUPLE_RECORD.search(text)
            if record:
                out.add("delimiter-mismatch", line(record.start()), "the format is json but the instructions ask for tuple records")
        elif delimited:
            for match in _ASKS_JSON.finditer(text):
                if re.search(r"\b(?:not|never|no)\b", match.group(0), re.I):
                    continue
                out.add("delimiter-mismatch", line(match.start()), f"the format is {fmt} but the instructions ask for JSON")
    if delimited:
        rendered = "\n".join(fill(text, _render_values(template, ctx), missing="empty") for _, text in template.parts())
        for name, value in (("tuple delimiter", ctx.tuple_delimiter), ("completion delimiter", ctx.completion_delimiter)):
            if value.strip() and value not in rendered:
                out.add("delimiter-mismatch", template.line_of("user"),
                        f"the prompt never shows the {name} {value}, but answers are parsed with it")


# --------------------------------------------------------------------------- few-shot examples


PROSE_CODES = {"preamble", "closing-note", "interleaved-prose", "prose-record"}
DELIMITER_CODES = {"delimiter-inferred", "wrong-delimiter"}
QUIRK_CODES = {"glued-records", "record-closer", "record-type-missing", "record-type-unknown", "missing-type",
                "strength-invalid", "strength-out-of-range", "json-repaired", "json-multiple", "claim-fields",
                "claim-status-invalid", "report-missing-field", "report-field-type", "report-findings-count"}
ROUND_CODES = {"completion-missing", "completion-not-last", "completion-repeated", "completion-lowercase",
               "completion-malformed"}


@dataclass
class _ExampleText:
    output: str  # with placeholders filled
    line: int
    label: str
    declared: list[str] | None
    records: list[str] = field(default_factory=list)


# what a block that shows the answer's layout, not an answer, reads as
_LAYOUT_CODES = frozenset({"preamble", "placeholder-value"})


def _holds_records(values: Mapping[str, str], ctx: LintContext) -> Callable[[str], bool]:
    """Whether a block of prompt text (placeholders unfilled) is an answer in the prompt's format:
    it holds records, opens with one and fills none with `<placeholders>` (instructions that show
    a record's layout open with prose or hold `<entity_name>`). How an example's answer is told
    from its input text whatever language labels it."""

    def holds(text: str) -> bool:
        result = parse(fill(text, values, missing="keep"), ctx.format, tuple_delimiter=ctx.tuple_delimiter,
                       record_delimiter=ctx.record_delimiter, completion_delimiter=ctx.completion_delimiter)
        graph = result.graph
        records = len(graph.entities) + len(graph.relationships) + len(graph.claims) + (graph.report is not None)
        return records > 0 and not any(i.code in _LAYOUT_CODES for i in result.format_report.issues)

    return holds


def _check_examples(template: PromptTemplate, ctx: LintContext, out: _Collector) -> None:
    values = _render_values(template, ctx)
    holds = _holds_records(values, ctx)
    found: list[_ExampleText] = []
    for index, example in enumerate(template.examples, 1):
        found.extend(_declared_example(template, example, index, values, ctx, out))
    for part, text in template.parts():
        for number, inline in enumerate(find_inline_examples(text, template.line_of(part), holds), 1):
            found.append(_inline(inline, values, ctx, f"example {number} in the {part.split('.')[0]} message",
                                 template.meta.entity_types if ctx.entity_types is None else ctx.entity_types))
    for example_text in found:
        _lint_example(example_text, ctx, out)


def _inline(inline: InlineExample, values: Mapping[str, str], ctx: LintContext, label: str,
            fallback: list[str] | None) -> _ExampleText:
    declared = inline.entity_types if inline.entity_types is not None else fallback
    return _ExampleText(fill(inline.output, values, missing="keep"), inline.line, label, declared)


def _declared_example(template: PromptTemplate, example: Example, index: int, values: Mapping[str, str],
                      ctx: LintContext, out: _Collector) -> list[_ExampleText]:
    label = f"example {index}"
    if example.kind == "block":
        assert example.block is not None
        inner = find_inline_examples(example.block, example.output_line or example.line, _holds_records(values, ctx))
        if not inner:
            out.add("example-not-extraction", example.line,
                    f"{label} has no answer to check: no block of {ctx.format} records, no 'Output:' label")
            return []
        fallback = example.entity_types or template.meta.entity_types
        return [_inline(i, values, ctx, label, fallback) for i in inner]
    try:
        text = render_output(example, ctx.format, values, source=template.source)
    except InputError as exc:
        out.add("placeholder-unknown", example.output_line or example.line, exc.message.split(": ", 1)[-1])
        return []
    declared = example.entity_types if example.entity_types is not None else template.meta.entity_types
    return [_ExampleText(text, example.output_line or example.line, label, declared)]


def _lint_example(example: _ExampleText, ctx: LintContext, out: _Collector) -> None:
    fmt = ctx.format
    result = parse(example.output, fmt, tuple_delimiter=ctx.tuple_delimiter, record_delimiter=ctx.record_delimiter,
                   completion_delimiter=ctx.completion_delimiter)
    report = result.format_report
    codes = [issue.code for issue in report.issues]
    graph = result.graph
    records = len(graph.entities) + len(graph.relationships) + len(graph.claims) + (graph.report is not None)
    label, line = example.label, example.line
    if records == 0:
        why = "a refusal" if "refusal" in codes else ("empty" if "empty-output" in codes else "prose, not records")
        out.add("example-not-extraction", line, f"{label} is {why}: {example.output.strip()[:60]!r}")
        return
    delimiter = sorted(set(codes) & DELIMITER_CODES)
    if delimiter:
        out.add("example-delimiter", line, f"{label} is not written with the tuple delimiter {ctx.tuple_delimiter} ({', '.join(delimiter)})")
    dropped = sorted({i.code for i in report.issues if i.dropped} - DELIMITER_CODES - PROSE_CODES)
    if dropped:
        out.add("example-unparsable", line, f"{label} loses {report.records_dropped} record(s) when parsed as {fmt} ({', '.join(dropped)})")
    output_format = get_format(fmt)
    if not output_format.is_complete(report.completion):
        detail = ", ".join(sorted(set(codes) & ROUND_CODES)) or report.completion
        out.add("example-no-completion", line, f"{label} does not end with {ctx.completion_delimiter} ({detail})")
    prose = sorted(set(codes) & PROSE_CODES)
    if prose:
        out.add("example-prose", line, f"{label} mixes prose with its records ({', '.join(prose)})")
    separated = "record_delimiter" in output_format.variables  # records must be apart by the record delimiter
    quirks = sorted(set(codes) & QUIRK_CODES | ({"newline-separated"} & set(codes) if separated else set()))
    if quirks:
        out.add("example-format", line, f"{label} is readable but not clean {fmt} ({', '.join(quirks)})")
    if example.declared:
        allowed = {t.strip().lower() for t in example.declared}
        bad = sorted({e.type for e in graph.entities if e.type and e.type.strip().lower() not in allowed})
        if bad:
            out.add("example-type-undeclared", line,
                    f"{label} uses type(s) {', '.join(bad)} outside its list [{', '.join(example.declared)}]")
    if graph.entities:
        names = {e.name.strip().lower() for e in graph.entities}
        dangling = sorted({end for r in graph.relationships for end in (r.source, r.target) if end.strip().lower() not in names})
        if dangling:
            out.add("example-dangling-relationship", line, f"{label} relates {', '.join(dangling[:3])} without listing it as an entity")


# --------------------------------------------------------------------------- tokens


def _check_tokens(template: PromptTemplate, ctx: LintContext, out: _Collector) -> None:
    values = {**_render_values(template, ctx), INPUT_VARIABLE: ""}
    messages = []
    for part, text in template.parts():
        role = "system" if part == "system" else "user"
        messages.append({"role": role, "content": fill(text, values, missing="empty")})
    tokens = count_message_tokens(messages, ctx.model)
    if tokens > ctx.budget:
        out.add("token-budget", 1, f"the prompt is {tokens} tokens before the chunk; the budget is {ctx.budget} ({ctx.model})")


def prompt_tokens(template: PromptTemplate, variables: Mapping[str, str], model: str = "gpt-4o-mini") -> int:
    """Tokens of the rendered request for these variables."""
    return count_message_tokens(template.render(dict(variables)), model)
