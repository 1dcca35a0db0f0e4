"""Azure OpenAI: chat completions of a deployment (the suite's model name) at AZURE_OPENAI_ENDPOINT.

The key is the suite's `api_key_env`, else AZURE_OPENAI_API_KEY; the API version is the suite's
`api_version`, else OPENAI_API_VERSION (default 2024-10-21). Bodies and answers are OpenAI's.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from ...errors import InputError
from .base import EndpointSettings
from .openai import CHAT_PATH, OpenAIProvider

DEFAULT_API_VERSION = "2024-10-21"


class AzureProvider(OpenAIProvider):
    name = "azure"
    key_envs = ("AZURE_OPENAI_API_KEY",)

    def endpoint(self, settings: EndpointSettings) -> str | None:
        return self.stated_endpoint(settings) or os.environ.get("AZURE_OPENAI_ENDPOINT")

    def request_path(self, settings: EndpointSettings) -> str:
        # the SDK sends /openai/deployments/<model>/chat/completions under the endpoint; replaying
        # needs no endpoint, so an unset `base_url_env` is refused only when a call is sent
        try:
            endpoint = self.endpoint(settings)
        except InputError:
            endpoint = None
        prefix = urlsplit(endpoint or "").path.rstrip("/")
        return f"{prefix}/openai/deployments/{settings.model}{CHAT_PATH}"

    def make_client(self, settings: EndpointSettings, api_key: str, http_client: Any) -> Any:
        import openai

        endpoint = self.endpoint(settings)
        if not endpoint:
            raise InputError("model.provider azure: set AZURE_OPENAI_ENDPOINT (or model.base_url) to the resource's URL")
        return openai.AsyncAzureOpenAI(azure_endpoint=endpoint,
                                       api_version=settings.api_version or os.environ.get("OPENAI_API_VERSION", DEFAULT_API_VERSION),
                                       api_key=api_key, timeout=settings.timeout_s, max_retries=0,
                                       http_client=http_client)
