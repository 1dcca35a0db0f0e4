"""The provider seam: the registry, and what the openai and azure providers build and read."""

from __future__ import annotations

import json

import pytest
import yaml

from harness.errors import InputError, ModelCallError
from harness.llm.providers.azure import AzureProvider
from harness.llm.providers.base import REPLAY_KEY, EndpointSettings
from harness.llm.providers.openai import OpenAIProvider
from harness.llm.providers.registry import PROVIDERS, get_provider
from harness.llm.request_digest import request_hash
from harness.suites import load_suite

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def test_the_registry_names_openai_and_azure_and_refuses_others_in_one_line():
    assert list(PROVIDERS) == ["openai", "azure"]
    assert isinstance(get_provider("azure"), AzureProvider)
    with pytest.raises(InputError) as caught:
        get_provider("bedrock")
    assert caught.value.message == "model.provider: 'bedrock' is not one of openai, azure"


def test_a_suite_naming_an_unknown_provider_is_refused_at_load(project, capsys):
    from harness.cli import main

    data = yaml.safe_load(project.read_text(encoding="utf-8"))
    data["model"]["provider"] = "bedrock"
    project.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert main(["prompts", "lint", "--suite", str(project)]) == 2
    err = capsys.readouterr().err
    assert "provider" in err and "'bedrock' is not one of openai, azure" in err and err.count("\n") == 1
    data["model"]["provider"] = "azure"
    project.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert load_suite(project).spec.model.provider == "azure"


def test_the_payload_is_model_messages_settings_then_overrides_in_that_order():
    settings = EndpointSettings(model="m", temperature=0.0, seed=7, max_tokens=None)
    body = OpenAIProvider().build_payload(settings, MESSAGES, max_tokens=1, response_format={"type": "json_object"})
    assert list(body) == ["model", "messages", "temperature", "max_tokens", "seed", "response_format"]
    assert body["max_tokens"] == 1 and body["seed"] == 7
    # the hash the cassettes were recorded under is the hash of exactly this body
    assert request_hash(body) == request_hash(json.loads(json.dumps(body)))


def test_a_lone_surrogate_in_a_message_is_replaced_before_sending():
    body = OpenAIProvider().build_payload(EndpointSettings(model="m"), [{"role": "user", "content": "a\ud800b"}])
    assert body["messages"][0]["content"] == "a\ufffdb"


@pytest.mark.parametrize(("base_url", "path"), [
    (None, "/v1/chat/completions"),
    ("http://localhost:11434/v1/", "/v1/chat/completions"),
    ("https://proxy.example/openai/v1", "/openai/v1/chat/completions"),
])
def test_the_openai_request_path_follows_the_base_url(base_url, path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert OpenAIProvider().request_path(EndpointSettings(model="m", base_url=base_url)) == path


def test_the_azure_request_path_names_the_deployment_with_or_without_an_endpoint(monkeypatch):
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    settings = EndpointSettings(model="my-deployment", provider="azure")
    assert AzureProvider().request_path(settings) == "/openai/deployments/my-deployment/chat/completions"
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://res.example/prefix/")
    assert AzureProvider().request_path(settings) == "/prefix/openai/deployments/my-deployment/chat/completions"


def test_azure_without_an_endpoint_cannot_send(monkeypatch):
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    with pytest.raises(InputError, match="AZURE_OPENAI_ENDPOINT"):
        AzureProvider().make_client(EndpointSettings(model="m", provider="azure"), "key", http_client=None)


def test_keys_come_from_api_key_env_then_the_providers_own_variables(monkeypatch):
    for env in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "TOWNS_KEY"):
        monkeypatch.delenv(env, raising=False)
    settings = EndpointSettings(model="m", api_key_env="TOWNS_KEY")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-key")
    assert AzureProvider().api_key(settings, replay=False) == "azure-key"
    with pytest.raises(InputError, match="set TOWNS_KEY to record"):
        OpenAIProvider().api_key(settings, replay=False)  # the Azure key is Azure's
    assert OpenAIProvider().api_key(settings, replay=True) == REPLAY_KEY
    monkeypatch.setenv("TOWNS_KEY", "towns-key")
    assert AzureProvider().api_key(settings, replay=False) == "towns-key"


def test_an_answer_is_text_usage_and_finish_reason():
    body = {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, "b"]}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}
    answer = OpenAIProvider().read_answer(json.dumps(body).encode(), MESSAGES, "gpt-4o-mini")
    assert (answer.text, answer.finish_reason, answer.usage.total_tokens, answer.usage_note) == ("ab", "length", 5, None)
    with pytest.raises(ModelCallError, match="no choices"):
        OpenAIProvider().read_answer(b'{"choices": []}', MESSAGES, "gpt-4o-mini")


@pytest.mark.parametrize(("details", "cached"), [
    ({"cached_tokens": 40}, 40), ({"cached_tokens": 500}, 0), ({"cached_tokens": "40"}, 0), (None, 0), ([], 0),
])
def test_cached_prompt_tokens_are_read_when_plausible(details, cached):
    usage = {"prompt_tokens": 100, "completion_tokens": 2, "total_tokens": 102}
    if details is not None:
        usage["prompt_tokens_details"] = details
    body = {"choices": [{"message": {"content": "a"}}], "usage": usage}
    answer = OpenAIProvider().read_answer(json.dumps(body).encode(), MESSAGES, "gpt-4o-mini")
    assert answer.usage.cached_tokens == cached  # more than the prompt, or not a count: billed as input


def test_the_keys_a_provider_may_send_are_redacted_from_what_the_client_keeps(monkeypatch):
    # an endpoint may echo the key in its answer; the variables a provider reads its key from
    # (its `key_envs`, not only OPENAI_API_KEY, AZURE_OPENAI_API_KEY and the suite's api_key_env)
    # and the key it sends must never reach results or reports
    from harness.llm.client import ModelClient

    class KeyedProvider(OpenAIProvider):
        name = "keyed"
        key_envs = ("KEYED_API_KEY",)

    monkeypatch.setitem(PROVIDERS, "keyed", KeyedProvider)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("KEYED_API_KEY", "kd-provider-own-secret-0001")
    client = ModelClient(EndpointSettings(model="m", provider="keyed"), replay=False)
    assert client.redactor.redact("echo kd-provider-own-secret-0001") == "echo [REDACTED]"
    monkeypatch.setenv("MY_KEY", "kd-suite-named-secret-0002")
    client = ModelClient(EndpointSettings(model="m", provider="keyed", api_key_env="MY_KEY"), replay=False)
    assert client.redactor.redact("kd-suite-named-secret-0002 kd-provider-own-secret-0001") == "[REDACTED] [REDACTED]"


def test_an_environment_set_up_for_azure_is_pointed_to_model_provider(monkeypatch):
    # Azure is chosen by the suite (model.provider: azure), no longer by AZURE_OPENAI_ENDPOINT alone:
    # someone recording with the old setup gets told, not just "no API key"
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com")
    with pytest.raises(InputError) as caught:
        OpenAIProvider().api_key(EndpointSettings(model="m"), replay=False)
    assert "set `model.provider: azure` in the suite" in caught.value.message
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT")
    with pytest.raises(InputError) as caught:
        OpenAIProvider().api_key(EndpointSettings(model="m"), replay=False)
    assert "azure" not in caught.value.message
