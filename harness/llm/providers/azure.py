"""Azure OpenAI: chat completions of a deployment (the suite's model name) at AZURE_OPENAI_ENDPOINT.

The key is the suite's `api_key_env`, else AZURE_OPENAI_API_KEY; the API version is
OPENAI_API_VERSION (default 2024-10-21). Bodies and answers are OpenAI's.
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
        return settings.base_url or os.environ.get("AZURE_OPENAI_ENDPOINT")

    def request_path(self, settings: EndpointSettings) -> str:
        # the SDK sends /openai/deployments/<model>/chat/completions under the endpoint
        prefix = urlsplit(self.endpoint(settings) or "").path.rstrip("/")
        return f"{prefix}/openai/deployments/{settings.model}{CHAT_PATH}"

    def make_client(self, settings: EndpointSettings, api_key: str, http_client: Any) -> Any:
        import openai

        endpoint = self.endpoint(settings)
        if not endpoint:
            raise InputError("model.provider azure: set AZURE_OPENAI_ENDPOINT (or model.base_url) to the resource's URL")
        return openai.AsyncAzureOpenAI(azure_endpoint=endpoint,
                                       api_version=os.environ.get("OPENAI_API_VERSION", DEFAULT_API_VERSION),
                                       api_key=api_key, timeout=settings.timeout_s, max_retries=0,
                                       http_client=http_client)
