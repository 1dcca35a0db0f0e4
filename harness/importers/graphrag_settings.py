"""The extraction model's settings of a GraphRAG project, as a suite's `model:` block.

A suite recorded from an import must call the endpoint the project calls, with the sampling the
project asks for: a local vLLM server's model sent to OpenAI's endpoint is a 404 at best and
private text sent to the wrong provider at worst. Where the extraction model's settings live, per
layout (read from each version's config models and init_content.py):

| layout | the model | per-step override |
| --- | --- | --- |
| `llm:` (0.x, 1.x) | `llm` | `entity_extraction.llm`, merged over `llm` |
| `models:` (2.x) | `models.<extract_graph.model_id>` (default `default_chat_model`) | - |
| 3.x | `completion_models.<extract_graph.completion_model_id>` (default `default_completion_model`) | - |

Carried: provider (`type`, 2.6+'s and 3.x's `model_provider`), model or Azure deployment, `api_base`,
`api_version` (Azure), `max_tokens`, `temperature`, `top_p` (3.x: under `call_args`),
`request_timeout`, `concurrent_requests`, `max_retries` (3.x: `retry.max_retries`). An endpoint or
provider a suite cannot speak to (the completions API, a mock, a LiteLLM provider other than
OpenAI, Azure or hosted vLLM) is refused in one line naming the setting, never replaced by the
default endpoint. What a suite has no field for (per-minute limits, `n` above 1,
`max_completion_tokens`) is said in a warning.

Secrets: the key is never written. `api_key: ${VAR}` becomes `api_key_env: VAR` and `api_base:
${VAR}` becomes `base_url_env: VAR` (references, read when a call is sent); any other value that
comes from `${VAR}` is left out, with a warning naming the variable, since the suite is a file a
pull request shows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from ..errors import InputError
from ..llm.providers.base import check_base_url
from ..yamlfile import LineMap, Location, line_of, parse_yaml

# GraphRAG's default `max_tokens` on the `llm:` layout (0.x and 1.x defaults.py LLM_MAX_TOKENS): sent
# with every request when the settings leave it out, so answers are cut at it
LLM_LAYOUT_MAX_TOKENS = 4000
DEFAULT_MODEL_ID = {"models": "default_chat_model", "completion_models": "default_completion_model"}
MODEL_ID_KEY = {"models": "model_id", "completion_models": "completion_model_id"}
# `type` of the llm:/models: layouts -> the suite's provider; None: the type names a LiteLLM `model_provider`
CHAT_TYPES: dict[str, str | None] = {"openai_chat": "openai", "azure_openai_chat": "azure", "chat": None}
# LiteLLM providers (2.6+ `model_provider`, 3.x) whose requests a suite's provider sends as they are
LITELLM_PROVIDERS = {"openai": "openai", "azure": "azure", "hosted_vllm": "openai"}
SUITE_LIMITS = {"concurrency": (1, 512), "max_retries": (0, 50)}
_VAR = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}|(?P<named>[A-Za-z_][A-Za-z0-9_]*))")
_MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001"


class _Marks(dict[str, str]):
    """Every variable stands for a marker, so the parsed settings show which values came from one."""

    def __missing__(self, key: str) -> str:
        return f"{_MARK_OPEN}{key}{_MARK_CLOSE}"


def marked_settings(raw: str, where: str) -> Any:
    """The settings parsed with every `${VAR}` replaced by a marker (None if that does not parse)."""
    try:
        data, _ = parse_yaml(Template(raw).safe_substitute(_Marks()), where)
    except InputError:
        return None
    return data


def key_variables(raw: str, where: str) -> list[str]:
    """The variables the settings take a key from (`api_key: ${VAR}`, in any section): their values
    are keys, never substituted into anything written (common.substitute_env)."""
    found: list[str] = []
    stack: list[Any] = [marked_settings(raw, where)]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            for name, value in node.items():
                if name == "api_key" and isinstance(value, str):
                    found += re.findall(f"{_MARK_OPEN}([A-Za-z_][A-Za-z0-9_]*){_MARK_CLOSE}", value)
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return found


@dataclass
class EngineModel:
    """The suite's `model:` keys the project states (`max_gleanings` is the importer's), and what
    could not be carried."""

    block: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    left_out: set[str] = field(default_factory=set)  # suite keys whose value came from `${VAR}`


@dataclass
class _Reader:
    settings_path: Path
    data: Mapping[str, Any]
    marked: Any
    lines: LineMap

    def where(self, loc: Location) -> str:
        line = line_of(self.lines, loc)
        return f"{self.settings_path}:{line}" if line else str(self.settings_path)

    def refuse(self, loc: Location, problem: str) -> InputError:
        return InputError(f"{self.where(loc)}: {'.'.join(map(str, loc))}: {problem}")

    def variable(self, loc: Location) -> tuple[bool, str | None]:
        """Whether the value at `loc` came from `${VAR}`, and VAR when the whole value is one."""
        value: Any = self.marked
        for key in loc:
            if not isinstance(value, Mapping) or key not in value:
                return False, None
            value = value[key]
        if not isinstance(value, str) or _MARK_OPEN not in value:
            return False, None
        whole = re.fullmatch(f"{_MARK_OPEN}([A-Za-z_][A-Za-z0-9_]*){_MARK_CLOSE}", value)
        return True, whole[1] if whole else None


def _get(tree: Mapping[str, Any], loc: Location) -> Any:
    value: Any = tree
    for key in loc:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def engine_model(settings_path: Path, raw: str, data: Mapping[str, Any], lines: LineMap) -> EngineModel:
    """The extraction model's settings of the project as suite `model:` keys; InputError (one line
    naming the settings line) for an endpoint or provider a suite cannot represent."""
    reader = _Reader(settings_path, data, marked_settings(raw, str(settings_path)), lines)
    if isinstance(data.get("completion_models"), Mapping):
        return _litellm_model(reader)
    if isinstance(data.get("models"), Mapping):
        return _chat_model(reader, _chosen(reader, "models"), layout_default_max_tokens=None)
    base: Location = ("llm",)
    extract = next((s for s in ("entity_extraction", "extract_graph") if isinstance(data.get(s), Mapping)), None)
    places: list[Location] = [base]
    if extract is not None and isinstance(_get(data, (extract, "llm")), Mapping):
        places.append((extract, "llm"))  # 0.x/1.x: the step's own llm settings win, key by key
    return _chat_model(reader, places, layout_default_max_tokens=LLM_LAYOUT_MAX_TOKENS)


def _chosen(reader: _Reader, section: str) -> list[Location]:
    """The model the extraction step names among `section` (models:, completion_models:)."""
    models = reader.data[section]
    extract = next((s for s in ("extract_graph", "entity_extraction") if isinstance(reader.data.get(s), Mapping)), None)
    id_key = MODEL_ID_KEY[section]
    model_id = _get(reader.data, (extract, id_key)) if extract else None
    if model_id is None:
        model_id = DEFAULT_MODEL_ID[section]
        if not isinstance(models.get(model_id), Mapping):
            raise reader.refuse((section,), f"no '{model_id}' (the extraction step's model when {extract or 'extract_graph'}."
                                f"{id_key} is not set)")
    elif not isinstance(models.get(model_id), Mapping):
        raise reader.refuse((extract or "extract_graph", id_key), f"'{model_id}' is not a model of {section}")
    return [(section, str(model_id))]


def _value(reader: _Reader, places: list[Location], *keys: str) -> tuple[Any, Location | None]:
    """The value of the first of `keys` set, the last place winning (step settings over `llm:`)."""
    for place in reversed(places):
        for key in keys:
            loc = (*place, *key.split("."))
            value = _get(reader.data, loc)
            # 0.x/1.x merge a step's llm over `llm:` with `or`: a 0 there does not override
            if value is not None and value != "" and (place == places[0] or value):
                return value, loc
    return None, None


class _Block:
    """Fills the suite's model block from settings values, keeping `${VAR}` values out of it."""

    def __init__(self, reader: _Reader, places: list[Location]) -> None:
        self.reader, self.places, self.result = reader, places, EngineModel()

    def take(self, suite_key: str, *keys: str, kind: type = str, low: float | None = None,
             high: float | None = None, above: float | None = None) -> Any:
        """Read one setting into `suite_key`; refuse a malformed one, leave out one from `${VAR}`."""
        value, loc = _value(self.reader, self.places, *keys)
        if loc is None:
            return None
        from_env, _ = self.reader.variable(loc)
        value = self.check(loc, value, kind, low=low, high=high, above=above)
        if from_env:
            self.result.left_out.add(suite_key)
            self.result.warnings.append(
                f"{'.'.join(map(str, loc))} comes from an environment variable: not written into the suite "
                f"(set model.{suite_key} there by hand if it matters)")
            return value
        self.result.block[suite_key] = value
        return value

    def check(self, loc: Location, value: Any, kind: type, *, low: float | None = None,
              high: float | None = None, above: float | None = None) -> Any:
        if kind is str:
            return str(value)
        number = value
        if isinstance(value, str):  # a ${VAR} substitution is text
            try:
                number = int(value) if kind is int else float(value)
            except ValueError:
                number = None
        ok = isinstance(number, (int, float)) and not isinstance(number, bool) and number == number \
            and (kind is not int or float(number).is_integer())
        if ok and ((low is not None and number < low) or (high is not None and number > high)
                   or (above is not None and number <= above)):
            ok = False
        if not ok:
            bounds = (f" from {low} to {high}" if low is not None and high is not None
                      else f" above {above}" if above is not None else f" of at least {low}" if low is not None else "")
            raise self.reader.refuse(loc, f"'{str(value)[:40]}' is not a {'whole ' if kind is int else ''}number{bounds}")
        return int(number) if kind is int else float(number)

    def key(self) -> None:
        """`api_key: ${VAR}` -> `api_key_env: VAR`; a key written in the settings is never copied."""
        value, loc = _value(self.reader, self.places, "api_key")
        if loc is None:
            return
        from_env, name = self.reader.variable(loc)
        if from_env and name:
            self.result.block["api_key_env"] = name
        else:
            self.result.warnings.append(f"{'.'.join(map(str, loc))}: the key is not copied into the suite; "
                                        "set model.api_key_env to the variable that holds it")

    def endpoint(self, provider: str) -> None:
        """`api_base` -> `base_url` (or `base_url_env: VAR`); refused when a suite cannot call it."""
        value, loc = _value(self.reader, self.places, "api_base")
        if loc is None:
            if provider == "azure":
                raise self.reader.refuse((*self.places[0], "api_base"), "not set for an Azure model: the suite "
                                         "would call no endpoint of the project's (set it to the resource's URL)")
            return
        from_env, name = self.reader.variable(loc)
        if from_env:
            if not name:
                raise self.reader.refuse(loc, "the endpoint is built from environment variables; a suite names "
                                         "one variable (base_url_env) or a URL: write it as ${VAR} or as the URL")
            self.result.block["base_url_env"] = name
            return
        try:
            self.result.block["base_url"] = check_base_url(str(value))
        except ValueError as exc:
            raise self.reader.refuse(loc, f"an endpoint a suite cannot call: {exc}") from None

    def limits(self, *, concurrency: str | None, retries: str, timeout: str | None) -> None:
        if timeout:
            self.take("timeout_s", timeout, kind=float, above=0)
        for suite_key, setting in (("concurrency", concurrency), ("max_retries", retries)):
            if setting is None:
                continue
            value, loc = _value(self.reader, self.places, setting)
            if loc is None:
                continue
            if suite_key == "max_retries" and isinstance(value, int) and value < 0:
                continue  # 2.x's -1: "dynamic" retries, which the harness's own retry loop is
            low, high = SUITE_LIMITS[suite_key]
            number = self.take(suite_key, setting, kind=int, low=0 if suite_key == "max_retries" else 1)
            if suite_key in self.result.block and number > high:
                self.result.block[suite_key] = high
                self.result.warnings.append(f"{'.'.join(map(str, loc))}: {number} is more than a suite takes; "
                                            f"model.{suite_key} is {high}")

    def not_carried(self, *keys: str, why: str) -> None:
        for key in keys:
            value, loc = _value(self.reader, self.places, key)
            if loc is not None and value not in (0, None):
                self.result.warnings.append(f"{'.'.join(map(str, loc))}: not carried ({why})")


def _provider(reader: _Reader, loc: Location | None, value: Any, litellm: bool) -> str | None:
    """The suite's provider for a settings `type` (llm:/models:) or LiteLLM `model_provider`."""
    name = str(value)
    if litellm and name in LITELLM_PROVIDERS:
        return LITELLM_PROVIDERS[name]
    if not litellm and name in CHAT_TYPES:
        return CHAT_TYPES[name]  # None for `chat`: see model_provider
    assert loc is not None
    if litellm:
        raise reader.refuse(loc, f"'{name}' is a provider a suite cannot call (it speaks to OpenAI, Azure "
                            "OpenAI and OpenAI-compatible endpoints: openai, azure, hosted_vllm)")
    raise reader.refuse(loc, f"'{name}' is a model type a suite cannot call (chat completions only: "
                        f"{', '.join(t for t in CHAT_TYPES if t != 'chat')}, or chat with model_provider openai or azure)")


def _chat_model(reader: _Reader, places: list[Location], *, layout_default_max_tokens: int | None) -> EngineModel:
    """The `llm:` (0.x, 1.x) and `models:` (2.x) layouts: one flat mapping of model settings."""
    block = _Block(reader, places)
    kind, kind_loc = _value(reader, places, "type")
    provider = "openai" if kind_loc is None else _provider(reader, kind_loc, kind, litellm=False)
    if provider is None:  # 2.6+ `type: chat` with LiteLLM's model_provider
        name, name_loc = _value(reader, places, "model_provider")
        provider = _provider(reader, name_loc or kind_loc, name if name_loc else "(none)", litellm=True)
    assert provider is not None
    return _fill(block, provider, deployment=("deployment_name",), call=(), layout_default_max_tokens=layout_default_max_tokens,
                 concurrency="concurrent_requests", retries="max_retries", timeout="request_timeout",
                 per_minute=("requests_per_minute", "tokens_per_minute"))


def _litellm_model(reader: _Reader) -> EngineModel:
    """3.x: `completion_models.<id>` with LiteLLM's `model_provider` and the request's `call_args`."""
    places = _chosen(reader, "completion_models")
    block = _Block(reader, places)
    kind, kind_loc = _value(reader, places, "type")
    if kind_loc is not None and str(kind) != "litellm":
        raise reader.refuse(kind_loc, f"'{kind}' is a model type a suite cannot call (litellm only)")
    name, name_loc = _value(reader, places, "model_provider")
    provider = _provider(reader, name_loc or places[-1], name if name_loc else "(none)", litellm=True)
    assert provider is not None
    return _fill(block, provider, deployment=("azure_deployment_name",), call=("call_args.",), layout_default_max_tokens=None,
                 concurrency=None, retries="retry.max_retries", timeout="call_args.timeout",
                 per_minute=("rate_limit.requests_per_period", "rate_limit.tokens_per_period"))


def _fill(block: _Block, provider: str, *, deployment: tuple[str, ...], call: tuple[str, ...],
          layout_default_max_tokens: int | None, concurrency: str | None, retries: str, timeout: str,
          per_minute: tuple[str, ...]) -> EngineModel:
    reader, result = block.reader, block.result
    if provider != "openai":
        result.block["provider"] = provider
    # the model name the request carries; Azure's is the deployment's
    block.take("name", *((*deployment, "model") if provider == "azure" else ("model",)))
    block.endpoint(provider)
    if provider == "azure":
        block.take("api_version", "api_version")
    prefix = call[0] if call else ""
    block.take("temperature", f"{prefix}temperature", kind=float, low=0, high=2)
    block.take("top_p", f"{prefix}top_p", kind=float, high=1, above=0)
    if block.take("max_tokens", f"{prefix}max_tokens", kind=int, low=1) is None and layout_default_max_tokens:
        result.block["max_tokens"] = layout_default_max_tokens
    block.limits(concurrency=concurrency, retries=retries, timeout=timeout)
    block.key()
    n, n_loc = _value(reader, block.places, f"{prefix}n")
    if n_loc is not None and n not in (1, "1"):
        result.warnings.append(f"{'.'.join(map(str, n_loc))}: {n} answers per request are not carried "
                               "(a suite asks for one; GraphRAG reads the first)")
    block.not_carried(*per_minute, why="a suite has no per-minute limit; the harness adapts to the endpoint's 429s")
    block.not_carried(f"{prefix}max_completion_tokens", why="a suite sends max_tokens only")
    return result
