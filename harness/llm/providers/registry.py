"""The providers a suite may name in `model.provider`. A new provider is one module and one line here."""

from __future__ import annotations

from ...errors import InputError
from .azure import AzureProvider
from .base import Provider
from .openai import OpenAIProvider

PROVIDERS: dict[str, type[Provider]] = {
    OpenAIProvider.name: OpenAIProvider,
    AzureProvider.name: AzureProvider,
}


def get_provider(name: str) -> Provider:
    """The provider registered as `name`; an InputError naming the known ones otherwise."""
    try:
        return PROVIDERS[name]()
    except KeyError:
        raise InputError(f"model.provider: '{name}' is not one of {', '.join(PROVIDERS)}") from None
