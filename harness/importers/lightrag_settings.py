"""The extraction model's settings of a LightRAG project, as a suite's `model:` block.

A suite recorded from an import must call what the project calls: the same endpoint, model and
sampling. LightRAG states them in one of two places, read here as each release reads them:

- a script's `LightRAG(...)` call (lightrag_script.py) whose `llm_model_func` is one of LightRAG's
  OpenAI functions (`lightrag.llm.openai`: `openai_complete` with `llm_model_name`,
  `gpt_4o_mini_complete`, `gpt_4o_complete`, `nvidia_openai_complete`; `azure_openai_complete`).
  `llm_model_kwargs` reach the request: `temperature`, `top_p`, `max_tokens` are carried,
  `base_url` and `api_key` name the endpoint and key; without them the function reads
  OPENAI_API_BASE and OPENAI_API_KEY (Azure: AZURE_OPENAI_ENDPOINT or LLM_BINDING_HOST,
  AZURE_OPENAI_DEPLOYMENT or LLM_MODEL, AZURE_OPENAI_API_KEY or LLM_BINDING_API_KEY,
  AZURE_OPENAI_API_VERSION or OPENAI_API_VERSION). A function of the project's own is named in
  a warning: what it sends is not read.
- else the API server's environment (`.env`, lightrag/api/config.py and lightrag_server.py):

| setting | <= 1.4.6 | 1.4.7 - 1.4.x | 1.5 |
| --- | --- | --- | --- |
| binding | LLM_BINDING (default ollama) | same | EXTRACT_LLM_BINDING, else LLM_BINDING |
| model | LLM_MODEL (default mistral-nemo:latest) | same | EXTRACT_LLM_MODEL, else LLM_MODEL |
| endpoint | LLM_BINDING_HOST (openai default: OpenAI's) | same | EXTRACT_LLM_BINDING_HOST first |
| key | LLM_BINDING_API_KEY | same | EXTRACT_LLM_BINDING_API_KEY first |
| temperature | TEMPERATURE, always sent (default 0.5 to 1.4.4, 1.0 in 1.4.5-1.4.6) | OPENAI_LLM_TEMPERATURE, sent only when set | EXTRACT_OPENAI_LLM_TEMPERATURE first |
| top_p, max_tokens | not sent (MAX_TOKENS is the summary limit) | OPENAI_LLM_TOP_P, OPENAI_LLM_MAX_TOKENS | EXTRACT_OPENAI_LLM_* first |
| timeout | TIMEOUT (Azure binding only) | LLM_TIMEOUT | EXTRACT_LLM_TIMEOUT first |
| concurrency | MAX_ASYNC | same | EXTRACT_MAX_ASYNC_LLM, MAX_ASYNC_LLM, MAX_ASYNC |

Read from the code of 1.3.9, 1.4.0, 1.4.3-1.4.7, 1.4.8.2, 1.4.9, 1.4.9.11, 1.5.0 and 1.5.7.
Either way the gleanings are `entity_extract_max_gleaning`, else MAX_GLEANING (1.4.0 and later),
else 1; LLM_BINDING `openai-ollama` is the openai binding for the LLM. Azure (`azure_openai`): the
deployment (AZURE_OPENAI_DEPLOYMENT, else the model) is the suite's model, the endpoint
LLM_BINDING_HOST or AZURE_OPENAI_ENDPOINT, the key AZURE_OPENAI_API_KEY or LLM_BINDING_API_KEY, the
api_version AZURE_OPENAI_API_VERSION (the server's default 2024-08-01-preview).

A binding a suite cannot call (ollama's own API, lollms, bedrock, gemini, another
`lightrag.llm` module) is refused in one line naming the setting, never replaced by the default
endpoint. Secrets: a key is never written, only the name of the variable that holds it; a key
written into a script is named in a warning instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..llm.providers.base import check_base_url
from .lightrag_release import Release
from .lightrag_script import ConstructorCall, EnvRef, FuncRef

OPENAI_DEFAULT_HOST = "https://api.openai.com/v1"
SERVER_DEFAULT_MODEL = "mistral-nemo:latest"
SCRIPT_DEFAULT_MODEL = "gpt-4o-mini"  # LightRAG's llm_model_name default
AZURE_SERVER_API_VERSION = "2024-08-01-preview"
SUITE_CONCURRENCY = 512
SUITE_MAX_GLEANINGS = 10
# bindings (LLM_BINDING) whose requests a suite's provider sends as they are
BINDINGS = {"openai": "openai", "openai-ollama": "openai", "azure_openai": "azure"}
OTHER_BINDINGS = ("ollama", "lollms", "aws_bedrock", "bedrock", "gemini")
# lightrag.llm.openai's functions: the model each sends (None: llm_model_name), and its fixed endpoint
OPENAI_FUNCTIONS: dict[str, tuple[str | None, str | None]] = {
    "openai_complete": (None, None), "gpt_4o_mini_complete": ("gpt-4o-mini", None),
    "gpt_4o_complete": ("gpt-4o", None),
    "nvidia_openai_complete": ("nvidia/llama-3.1-nemotron-70b-instruct", "https://integrate.api.nvidia.com/v1"),
}
OPENAI_MODULES = ("lightrag.llm.openai", "lightrag.llm.azure_openai")
# llm_model_kwargs that the OpenAI functions use themselves rather than send
CLIENT_KWARGS = {"base_url", "api_key", "timeout", "openai_client_configs", "token_tracker", "stream"}
OPTION_FIELDS = ("frequency_penalty", "max_completion_tokens", "presence_penalty", "reasoning_effort",
                 "safety_identifier", "service_tier", "stop", "extra_body")
OPTIONS_FROM = (1, 4, 7)  # OpenAILLMOptions (OPENAI_LLM_*), LLM_TIMEOUT; TEMPERATURE no longer read
ROLES_FROM = (1, 5, 0)  # per-role EXTRACT_* settings, MAX_ASYNC_LLM
GLEANING_ENV_FROM = (1, 4, 0)  # MAX_GLEANING
TEMPERATURE_1_FROM = (1, 4, 5)  # TEMPERATURE's default 1.0 (0.5 before)
SERVER_SETTINGS = ("LLM_BINDING", "LLM_MODEL", "LLM_BINDING_HOST", "LLM_BINDING_API_KEY", "EXTRACT_LLM_BINDING",
                   "EXTRACT_LLM_MODEL", "EXTRACT_LLM_BINDING_HOST", "EXTRACT_LLM_BINDING_API_KEY")


@dataclass
class EnvSource:
    """What LightRAG reads from its environment: the project's `.env` under the process environment
    (its `load_dotenv(override=False)`), and where each value came from."""

    values: Mapping[str, str]
    dotenv: Path
    dotenv_lines: Mapping[str, int] = field(default_factory=dict)
    from_environment: frozenset[str] = frozenset()
    used: set[str] = field(default_factory=set)  # the variables whose values the import took

    def get(self, name: str) -> str | None:
        value = self.values.get(name)
        return value.strip() if isinstance(value, str) and value.strip() else None

    def first(self, *names: str) -> tuple[str, str] | None:
        """The first of `names` that is set, and its value."""
        for name in names:
            value = self.get(name)
            if value is not None:
                self.used.add(name)
                return name, value
        return None

    def where(self, name: str) -> str:
        if name in self.from_environment or name not in self.dotenv_lines:
            return f"environment variable {name}"
        return f"{self.dotenv}:{self.dotenv_lines[name]}: {name}"


@dataclass
class LightRAGModel:
    """The suite's `model:` keys the project states, in the suite's order, and what was not carried."""

    block: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


class _Block:
    def __init__(self, env: EnvSource, release: Release) -> None:
        self.env, self.release, self.result = env, release, LightRAGModel()
        self.values: dict[str, Any] = {}

    def number(self, where: str, text: Any, kind: type, *, low: float | None = None, high: float | None = None,
               above: float | None = None) -> Any:
        """A setting's number, or InputError naming it."""
        try:
            number = kind(text) if not isinstance(text, bool) else None
        except (TypeError, ValueError):
            number = None
        if kind is int and isinstance(text, float) and not text.is_integer():
            number = None  # int(2.5) would drop the half
        ok = number is not None and number == number and not (
            (low is not None and number < low) or (high is not None and number > high)
            or (above is not None and number <= above))
        if not ok:
            bounds = (f" from {low} to {high}" if low is not None and high is not None
                      else f" above {above}" if above is not None else f" of at least {low}" if low is not None else "")
            raise InputError(f"{where}: '{str(text)[:40]}' is not a {'whole ' if kind is int else ''}number{bounds}")
        return number

    def env_number(self, names: tuple[str, ...], kind: type, **bounds: float) -> Any:
        found = self.env.first(*names)
        if found is None:
            return None
        return self.number(f"{self.env.where(found[0])}={found[1]}", found[1], kind, **bounds)

    def endpoint(self, where: str, url: str) -> None:
        try:
            self.values["base_url"] = check_base_url(url)
        except ValueError as exc:
            raise InputError(f"{where}: an endpoint a suite cannot call: {exc}") from None

    def finish(self) -> LightRAGModel:
        order = ("name", "provider", "base_url", "base_url_env", "api_version", "api_key_env", "temperature",
                 "top_p", "max_tokens", "timeout_s", "concurrency", "max_gleanings")
        self.result.block = {key: self.values[key] for key in order if key in self.values}
        return self.result


def engine_model(env: EnvSource, call: ConstructorCall | None, release: Release) -> LightRAGModel:
    """The project's extraction model as suite `model:` keys; InputError (one line naming the
    setting) for a binding or endpoint a suite cannot call."""
    block = _Block(env, release)
    if call is not None and ("llm_model_func" in call.values or "llm_model_func" in call.unread):
        _script_model(block, call)
        stated = [name for name in SERVER_SETTINGS if env.get(name)]
        if stated:
            block.result.warnings.append(
                f"{', '.join(stated)}: the API server's settings; {call.where()}'s LightRAG(...) calls its own "
                "llm_model_func, so the suite takes that")
    elif any(env.get(name) for name in SERVER_SETTINGS):
        _server_model(block)
    else:
        block.values["temperature"] = 0  # the harness's default, said to be one
        block.result.warnings.append(
            "the project states no LLM (no LightRAG(...) with an llm_model_func in its Python files, no LLM_BINDING "
            "or LLM_MODEL for LightRAG's server): the suite calls the harness's default model; set model: by hand")
    _gleanings(block, call)
    _concurrency(block, call)
    for name in sorted(env.used & env.from_environment):
        block.result.warnings.append(f"environment variable {name}: taken from the environment the import ran in, "
                                     f"over {env.dotenv.name} (as LightRAG reads it); the project's files do not say it")
    return block.finish()


# --------------------------------------------------------------------------- the API server's .env


def _server_model(block: _Block) -> None:
    env, release = block.env, block.release.version
    roles = release >= ROLES_FROM
    base = env.first("LLM_BINDING")
    role = env.first("EXTRACT_LLM_BINDING") if roles else None
    binding_name, binding = (role or base or ("LLM_BINDING", "ollama"))
    binding = "bedrock" if binding == "aws_bedrock" and roles else binding
    base_binding = BINDINGS.get(base[1] if base else "ollama")
    stated = next(name for name in SERVER_SETTINGS if env.get(name))
    where = env.where(binding_name) + f"={binding}" if (role or base) else (
        f"{env.where(stated)}: LLM_BINDING is not set, so LightRAG's server uses ollama")
    provider = BINDINGS.get(binding)
    if provider is None:
        known = "speaks its own API" if binding in OTHER_BINDINGS else "is not one LightRAG's server knows"
        raise InputError(f"{where}: the {binding} binding {known}, which a suite cannot call (it calls OpenAI, Azure OpenAI "
                         "and OpenAI-compatible endpoints: LLM_BINDING openai or azure_openai; a local server that "
                         "speaks the OpenAI API, as Ollama does at http://HOST:11434/v1, is LLM_BINDING=openai)")
    cross = roles and role is not None and BINDINGS.get(role[1]) != base_binding
    prefix = ("EXTRACT_",) if roles else ()

    def names(name: str, *, role_only: bool = False) -> tuple[str, ...]:
        return tuple(f"{p}{name}" for p in prefix) + (() if role_only else (name,))

    model = env.first(*names("LLM_MODEL"))
    model_name = model[1] if model else SERVER_DEFAULT_MODEL
    host = env.first(*names("LLM_BINDING_HOST"))
    if provider == "azure":
        _azure(block, model_name, host or env.first("AZURE_OPENAI_ENDPOINT"), server=True)
    else:
        block.values["name"] = model_name
        if host is not None and host[1].rstrip("/") != OPENAI_DEFAULT_HOST:
            block.endpoint(env.where(host[0]), host[1])
        key = env.first(*names("LLM_BINDING_API_KEY", role_only=cross))
        if key is not None:
            block.values["api_key_env"] = key[0]
    _server_sampling(block, binding=(role or base or ("", ""))[1], provider=provider, cross=cross)


def _server_sampling(block: _Block, *, binding: str, provider: str, cross: bool) -> None:
    env, release, warnings = block.env, block.release.version, block.result.warnings
    if release < OPTIONS_FROM:
        default = 1.0 if release >= TEMPERATURE_1_FROM else 0.5
        stated = block.env_number(("TEMPERATURE",), float, low=0, high=2)
        block.values["temperature"] = default if stated is None else stated
        if env.get("MAX_TOKENS"):
            warnings.append(f"{env.where('MAX_TOKENS')}: LightRAG {block.release.label}'s limit on description "
                            "summaries (summary_max_tokens), not sent with extraction requests: not carried")
        timeout = env.first("TIMEOUT")
        if timeout is not None and provider == "azure":
            block.values["timeout_s"] = block.number(f"{env.where('TIMEOUT')}={timeout[1]}", timeout[1], float, above=0)
        elif timeout is not None:
            warnings.append(f"{env.where('TIMEOUT')}: LightRAG {block.release.label}'s server does not give it to the "
                            "openai binding: not carried")
        return
    roles = release >= ROLES_FROM
    if binding not in ("openai", "azure_openai"):  # openai-ollama: the server adds no OpenAI options
        block.values["temperature"] = None
        return

    def option(field_name: str) -> tuple[str, ...]:
        name = f"OPENAI_LLM_{field_name.upper()}"
        return ((f"EXTRACT_{name}",) if roles else ()) + (() if cross else (name,))

    temperature = block.env_number(option("temperature"), float, low=0, high=2)
    block.values["temperature"] = temperature  # None: not sent, the endpoint's default
    top_p = block.env_number(option("top_p"), float, above=0, high=1)
    if top_p is not None:
        block.values["top_p"] = top_p
    max_tokens = block.env_number(option("max_tokens"), int, low=1)
    if max_tokens is not None:
        block.values["max_tokens"] = max_tokens
    for name in OPTION_FIELDS:
        found = env.first(*option(name))
        if found is not None:
            warnings.append(f"{env.where(found[0])}: not carried (a suite sends temperature, top_p and max_tokens)")
    timeout = block.env_number((("EXTRACT_LLM_TIMEOUT",) if roles else ()) + ("LLM_TIMEOUT",), float, above=0)
    if timeout is not None:
        block.values["timeout_s"] = timeout


def _azure(block: _Block, model: str, endpoint: tuple[str, str] | None, *, server: bool,
           stated_url: tuple[str, Any] | None = None) -> None:
    """Azure OpenAI, as LightRAG's azure_openai_complete_if_cache reads it."""
    env = block.env
    block.values["provider"] = "azure"
    deployment = env.first("AZURE_OPENAI_DEPLOYMENT")
    block.values["name"] = deployment[1] if deployment else model
    if deployment and deployment[1] != model:
        block.result.warnings.append(f"{env.where(deployment[0])}: the suite calls deployment {deployment[1]}; "
                                     f"the request's `model` field ({model}) is not carried")
    if stated_url is not None:
        _url(block, *stated_url)
    elif endpoint is not None:
        block.endpoint(env.where(endpoint[0]), endpoint[1])
    else:
        if not env.first("LLM_BINDING_HOST", "AZURE_OPENAI_ENDPOINT"):
            raise InputError(f"{env.dotenv}: the azure_openai binding has no endpoint (neither LLM_BINDING_HOST nor "
                             "AZURE_OPENAI_ENDPOINT is set): the suite would call none of the project's")
        found = env.first("AZURE_OPENAI_ENDPOINT", "LLM_BINDING_HOST")
        assert found is not None
        block.endpoint(env.where(found[0]), found[1])
    key = env.first("AZURE_OPENAI_API_KEY", "LLM_BINDING_API_KEY")
    block.values["api_key_env"] = key[0] if key else "AZURE_OPENAI_API_KEY"
    version = env.first("AZURE_OPENAI_API_VERSION") if server else env.first("AZURE_OPENAI_API_VERSION", "OPENAI_API_VERSION")
    if version is not None:
        block.values["api_version"] = version[1]
    elif server:
        block.values["api_version"] = AZURE_SERVER_API_VERSION


def _url(block: _Block, where: str, value: Any) -> None:
    """A script's `base_url`: a URL written out, or a variable (`base_url_env`, read when a call is sent)."""
    if isinstance(value, EnvRef):
        if value.value is None and isinstance(value.default, str):
            block.endpoint(where, value.default)
        else:
            block.values["base_url_env"] = value.name
    elif isinstance(value, str):
        block.endpoint(where, value)
    else:
        raise InputError(f"{where}: base_url is not a URL the file states")


# --------------------------------------------------------------------------- a script's LightRAG(...)


def _script_model(block: _Block, call: ConstructorCall) -> None:
    env, warnings = block.env, block.result.warnings
    func = call.values.get("llm_model_func")
    where = f"{call.where('llm_model_func')}: llm_model_func"
    model_name = call.values.get("llm_model_name")
    model_name = model_name.resolved if isinstance(model_name, EnvRef) else model_name
    kwargs = call.values.get("llm_model_kwargs", {})
    if "llm_model_kwargs" in call.unread:
        warnings.append(f"{call.where('llm_model_kwargs')}: llm_model_kwargs cannot be read "
                        f"({call.unread['llm_model_kwargs']}): what it adds to each request is not carried")
    if not isinstance(kwargs, dict):
        kwargs = {}
    family = _family(func)
    if family is None and not isinstance(func, FuncRef):
        warnings.append(f"{where} cannot be read ({call.unread.get('llm_model_func', 'not a function')}): the "
                        "endpoint, model and sampling it sends are not read; check the suite's model: by hand")
        if isinstance(model_name, str) and model_name:
            block.values["name"] = model_name
        return
    if family is None:
        assert isinstance(func, FuncRef)
        label = func.label
        if func.module and func.module.startswith("lightrag.llm.") and func.module not in OPENAI_MODULES:
            raise InputError(f"{where}={func.name}: LightRAG's {func.module.rsplit('.', 1)[-1]} binding, which a "
                             "suite cannot call (it calls OpenAI, Azure OpenAI and OpenAI-compatible endpoints: "
                             "lightrag.llm.openai's functions)")
        whose = "a function of LightRAG's the import does not model" if func.module in OPENAI_MODULES else \
            "the project's own function"
        warnings.append(f"{where}={label} is {whose}: the endpoint, model and sampling it sends "
                        "are not read; check the suite's model: by hand")
        if isinstance(model_name, str) and model_name:
            block.values["name"] = model_name
        return
    _, function = family
    if function == "azure_openai_complete":
        model = env.first("LLM_MODEL")
        url = kwargs.get("base_url")
        _azure(block, model[1] if model else SCRIPT_DEFAULT_MODEL, None, server=False,
               stated_url=(where, url) if url is not None else None)
    else:
        fixed_model, fixed_url = OPENAI_FUNCTIONS[function]
        block.values["name"] = fixed_model or (model_name if isinstance(model_name, str) and model_name
                                               else SCRIPT_DEFAULT_MODEL)
        if fixed_url is not None:
            block.endpoint(where, fixed_url)
        elif "base_url" in kwargs:
            _url(block, f"{call.where('llm_model_kwargs')}: llm_model_kwargs['base_url']", kwargs["base_url"])
        else:
            found = env.first("OPENAI_API_BASE")  # lightrag.llm.openai's fallback
            if found is not None and found[1].rstrip("/") != OPENAI_DEFAULT_HOST:
                block.endpoint(env.where(found[0]), found[1])
    key = kwargs.get("api_key")
    if isinstance(key, EnvRef):
        block.values["api_key_env"] = key.name
    elif key is not None:
        warnings.append(f"{call.where('llm_model_kwargs')}: llm_model_kwargs['api_key'] is written in the script: "
                        "it is not copied into the suite; set model.api_key_env to the variable that holds it")
    _script_sampling(block, call, kwargs)


def _family(func: Any) -> tuple[str, str] | None:
    """(module, function) for LightRAG's OpenAI and Azure OpenAI functions; None for any other."""
    if not isinstance(func, FuncRef) or func.module not in OPENAI_MODULES:
        return None
    if func.name == "azure_openai_complete" or (func.module == "lightrag.llm.openai" and func.name in OPENAI_FUNCTIONS):
        return func.module, func.name
    return None


def _script_sampling(block: _Block, call: ConstructorCall, kwargs: Mapping[str, Any]) -> None:
    where = f"{call.where('llm_model_kwargs')}: llm_model_kwargs"
    block.values["temperature"] = None  # none sent unless llm_model_kwargs has one
    for key, suite_key, kind, bounds in (("temperature", "temperature", float, {"low": 0, "high": 2}),
                                         ("top_p", "top_p", float, {"above": 0, "high": 1}),
                                         ("max_tokens", "max_tokens", int, {"low": 1}),
                                         ("timeout", "timeout_s", float, {"above": 0})):
        if key in kwargs:
            value = kwargs[key].resolved if isinstance(kwargs[key], EnvRef) else kwargs[key]
            block.values[suite_key] = block.number(f"{where}['{key}']", value, kind, **bounds)
    for key in sorted(set(kwargs) - CLIENT_KWARGS - {"temperature", "top_p", "max_tokens"}):
        block.result.warnings.append(f"{where}['{key}']: sent with every request by LightRAG, not carried "
                                     "(a suite sends temperature, top_p and max_tokens)")


# --------------------------------------------------------------------------- either way


def _gleanings(block: _Block, call: ConstructorCall | None) -> None:
    stated = call.values.get("entity_extract_max_gleaning") if call is not None else None
    if stated is not None:
        value = stated.resolved if isinstance(stated, EnvRef) else stated
        number = block.number(f"{call.where('entity_extract_max_gleaning')}: entity_extract_max_gleaning",  # type: ignore[union-attr]
                              value, int)
    elif block.release.version >= GLEANING_ENV_FROM and block.env.get("MAX_GLEANING"):
        number = block.env_number(("MAX_GLEANING",), int)
    else:
        number = 1  # LightRAG's default
    if number > SUITE_MAX_GLEANINGS:
        block.result.warnings.append(f"{number} gleanings: a suite takes at most {SUITE_MAX_GLEANINGS}")
    block.values["max_gleanings"] = min(max(number, 0), SUITE_MAX_GLEANINGS)  # range(n) of a negative n is none


def _concurrency(block: _Block, call: ConstructorCall | None) -> None:
    stated = call.values.get("llm_model_max_async") if call is not None else None
    if stated is not None:
        value = stated.resolved if isinstance(stated, EnvRef) else stated
        number = block.number(f"{call.where('llm_model_max_async')}: llm_model_max_async", value, int, low=1)  # type: ignore[union-attr]
    else:
        names = (("EXTRACT_MAX_ASYNC_LLM", "MAX_ASYNC_LLM") if block.release.version >= ROLES_FROM else ()) + ("MAX_ASYNC",)
        number = block.env_number(names, int, low=1)
    if number is None:
        return
    if number > SUITE_CONCURRENCY:
        block.result.warnings.append(f"concurrency {number} is more than a suite takes; model.concurrency is "
                                     f"{SUITE_CONCURRENCY}")
    block.values["concurrency"] = min(number, SUITE_CONCURRENCY)
