"""The providers a suite may name in `model.provider`. A new built-in provider is one module and one
line in `_BUILT_IN`; an outside package's is one `kg_prompt_harness.providers` entry point naming
its `Provider` subclass (harness/plugins.py, docs/plugins.md). Both go through `register_provider`."""

from __future__ import annotations

from ... import plugins
from ...errors import InputError
from .azure import AzureProvider
from .base import Provider
from .openai import OpenAIProvider

# name -> provider class, built-ins first (plugins once `provider_names` or an unknown name loads them)
PROVIDERS: dict[str, type[Provider]] = {}


def register_provider(provider: object) -> None:
    """Register a provider class (the route built-ins and entry points share)."""
    if not (isinstance(provider, type) and issubclass(provider, Provider)):
        raise TypeError(f"a provider is a subclass of harness.llm.providers.base.Provider, not {provider!r}")
    name = getattr(provider, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"provider {provider.__name__} has no `name`")
    if name in PROVIDERS:
        raise ValueError(f"provider {name!r} is already registered")
    PROVIDERS[name] = provider


_BUILT_IN: tuple[type[Provider], ...] = (OpenAIProvider, AzureProvider)
for _provider in _BUILT_IN:
    register_provider(_provider)


def provider_names() -> tuple[str, ...]:
    """Every registered provider's name, built-ins first."""
    plugins.load("providers", register_provider)
    return tuple(PROVIDERS)


def known_provider(name: str) -> bool:
    if name not in PROVIDERS:
        plugins.load("providers", register_provider)
    return name in PROVIDERS


def get_provider(name: str) -> Provider:
    """The provider registered as `name`; an InputError naming the known ones otherwise."""
    if not known_provider(name):
        raise InputError(f"model.provider: '{name}' is not one of {', '.join(PROVIDERS)}")
    return PROVIDERS[name]()
