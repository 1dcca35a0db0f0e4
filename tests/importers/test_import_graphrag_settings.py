"""`harness import graphrag` carries the extraction model's settings of every layout into the suite's
`model:` block (issue 27, item 3): endpoint, provider, sampling, limits; refuses what a suite cannot
call; never writes the key or another `${VAR}` value."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from harness.errors import InputError
from harness.llm.providers.azure import AzureProvider
from harness.llm.providers.openai import OpenAIProvider
from harness.importers import graphrag_draft, read_graphrag_project, write_draft
from harness.run.plan import endpoint_settings
from harness.suites import load_suite

FIXTURES = Path(__file__).resolve().parents[1] / "prompts" / "fixtures" / "graphrag_settings"
EXTRACT = (Path(__file__).resolve().parents[1] / "prompts" / "fixtures" / "lint" / "good.txt").read_text()
SECRET = "sk-settings-" + "0123456789abcdefghijkl"
LOCAL_URL = "http://10.1.2.3:11434/v1"


def _project(layout: str, root: Path, settings: str | None = None) -> Path:
    """A project with the layout's committed settings file (or `settings`), its prompt and one input."""
    root.mkdir(parents=True)
    if settings is None:
        shutil.copy(FIXTURES / layout / "settings.yaml", root / "settings.yaml")
    else:
        (root / "settings.yaml").write_text(settings, encoding="utf-8")
    (root / "prompts").mkdir()
    for name in ("entity_extraction.txt", "extract_graph.txt", "basic_search_system_prompt.txt"):
        (root / "prompts" / name).write_text(EXTRACT, encoding="utf-8")
    (root / "input").mkdir()
    (root / "input" / "mayor.txt").write_text("Mayor Ana Ruiz of Lowbridge opened the library.", encoding="utf-8")
    (root / ".env").write_text(f"GRAPHRAG_API_KEY={SECRET}\nEXTRACTION_KEY={SECRET}\nAZURE_EXTRACTION_KEY={SECRET}\n"
                               f"LOCAL_LLM_URL={LOCAL_URL}\n", encoding="utf-8")
    return root


def _import(layout: str, tmp_path: Path, settings: str | None = None) -> tuple[dict, Path, list[str]]:
    root = _project(layout, tmp_path / "project", settings)
    out = tmp_path / "work" / "suites" / "imported.yaml"
    draft = graphrag_draft(read_graphrag_project(root, environ={}), out)
    write_draft(draft, out)
    text = out.read_text(encoding="utf-8")
    assert SECRET not in text and LOCAL_URL not in text  # no substituted ${VAR} value is written
    return yaml.safe_load(text)["model"], out, draft.warnings


def test_a_0x_project_on_a_local_vllm_server_keeps_its_endpoint(tmp_path: Path) -> None:
    model, out, warnings = _import("v0-vllm", tmp_path)
    assert model == {
        "name": "Qwen/Qwen2.5-7B-Instruct", "base_url": "http://localhost:8000/v1", "top_p": 0.9, "max_tokens": 2000,
        "timeout_s": 600.0, "concurrency": 4, "max_retries": 3, "api_key_env": "GRAPHRAG_API_KEY",
        "temperature": 0.2, "max_gleanings": 1,
    }
    assert any("llm.requests_per_minute: not carried" in w for w in warnings)
    # the recording goes where the project's does, not to OpenAI's default endpoint
    endpoint = endpoint_settings(load_suite(out).spec.model)
    assert OpenAIProvider().base_url(endpoint) == "http://localhost:8000/v1"


def test_a_1x_azure_project_keeps_deployment_api_version_and_the_steps_own_llm(tmp_path: Path) -> None:
    model, out, warnings = _import("v1-azure", tmp_path)
    assert model == {
        "name": "gpt4o-extraction", "provider": "azure", "base_url": "https://contoso.openai.azure.com",
        "api_version": "2024-02-15-preview", "max_tokens": 3000, "concurrency": 25, "api_key_env": "GRAPHRAG_API_KEY",
        "temperature": 0.0, "max_gleanings": 2,
    }
    assert any("llm.tokens_per_minute: not carried" in w for w in warnings)
    endpoint = endpoint_settings(load_suite(out).spec.model)
    assert endpoint.api_version == "2024-02-15-preview"
    assert AzureProvider().request_path(endpoint) == "/openai/deployments/gpt4o-extraction/chat/completions"


def test_a_0x_project_that_states_no_max_tokens_gets_graphrags_default(tmp_path: Path) -> None:
    """0.x and 1.x send max_tokens 4000 (defaults.LLM_MAX_TOKENS) when the settings leave it out."""
    settings = (FIXTURES / "v0-vllm" / "settings.yaml").read_text().replace("  max_tokens: 2000\n", "")
    model, _, _ = _import("v0-vllm", tmp_path, settings)
    assert model["max_tokens"] == 4000


def test_a_2x_project_takes_the_model_its_extraction_step_names(tmp_path: Path) -> None:
    model, out, warnings = _import("v2-models", tmp_path)
    # api_base and the key come from ${VAR}: written as the variables' names, never their values
    assert model == {
        "name": "qwen2.5:7b", "base_url_env": "LOCAL_LLM_URL", "top_p": 1.0, "max_tokens": 1500, "timeout_s": 300.0,
        "concurrency": 512, "max_retries": 5, "api_key_env": "EXTRACTION_KEY", "temperature": 0.1, "max_gleanings": 0,
    }
    assert any("concurrent_requests: 1000 is more than a suite takes" in w for w in warnings)
    endpoint = endpoint_settings(load_suite(out).spec.model)
    assert OpenAIProvider().request_path(endpoint) == "/v1/chat/completions"  # replaying needs no endpoint


def test_a_3x_project_reads_litellm_provider_and_call_args(tmp_path: Path) -> None:
    model, _, warnings = _import("v3-litellm", tmp_path)
    assert model == {
        "name": "extraction-41-mini", "provider": "azure", "base_url": "https://contoso.openai.azure.com",
        "api_version": "2025-01-01-preview", "top_p": 0.95, "max_tokens": 4096, "max_retries": 7,
        "api_key_env": "AZURE_EXTRACTION_KEY", "temperature": 0.0, "max_gleanings": 1,
    }
    assert any("rate_limit.requests_per_period: not carried" in w for w in warnings)


def test_a_3x_project_that_states_no_temperature_sends_none(tmp_path: Path) -> None:
    """3.x sends no temperature unless `call_args` has one (its capture: the body is model and
    messages); 0.x-2.x send their default, 0. The suite says `temperature: null`, sent as nothing."""
    settings = (FIXTURES / "v3-litellm" / "settings.yaml").read_text().replace("      temperature: 0\n", "")
    model, out, _ = _import("v3-litellm", tmp_path, settings)
    assert "temperature" in model and model["temperature"] is None
    endpoint = endpoint_settings(load_suite(out).spec.model)
    assert "temperature" not in AzureProvider().build_payload(endpoint, [{"role": "user", "content": "x"}])
    model, _, _ = _import("v0-vllm", tmp_path / "v0", (FIXTURES / "v0-vllm" / "settings.yaml").read_text()
                          .replace("  temperature: 0.2\n", ""))
    assert model["temperature"] == 0


@pytest.mark.parametrize(("layout", "edit", "problem"), [
    ("v0-vllm", ("type: openai_chat", "type: static_response"), ":6: llm.type: 'static_response' is a model type"),
    ("v0-vllm", ("type: openai_chat", "type: openai"), ":6: llm.type: 'openai' is a model type a suite cannot call"),
    ("v0-vllm", ("http://localhost:8000/v1", "localhost:8000/v1"), ":9: llm.api_base: an endpoint a suite cannot call"),
    ("v0-vllm", ("max_tokens: 2000", "max_tokens: lots"), ":10: llm.max_tokens: 'lots' is not a whole number"),
    ("v1-azure", ("  api_base: https://contoso.openai.azure.com\n", ""), ": llm.api_base: not set for an Azure model"),
    ("v2-models", ("model_id: extraction_model", "model_id: missing_model"),
     ": extract_graph.model_id: 'missing_model' is not a model of models"),
    ("v3-litellm", ("model_provider: azure", "model_provider: anthropic"),
     ": completion_models.azure_extraction.model_provider: 'anthropic' is a provider a suite cannot call"),
])
def test_an_endpoint_or_provider_a_suite_cannot_call_is_refused_in_one_line(
        layout: str, edit: tuple[str, str], problem: str, tmp_path: Path) -> None:
    settings = (FIXTURES / layout / "settings.yaml").read_text()
    assert edit[0] in settings
    with pytest.raises(InputError) as caught:
        _import(layout, tmp_path, settings.replace(edit[0], edit[1], 1))
    message = caught.value.message
    assert "\n" not in message and message.startswith(str(tmp_path / "project" / "settings.yaml"))
    assert problem in message


def test_the_cli_refuses_with_exit_2_and_writes_nothing(harness_cli, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    settings = (FIXTURES / "v0-vllm" / "settings.yaml").read_text().replace("type: openai_chat", "type: azure_openai")
    root = _project("v0-vllm", tmp_path / "project", settings)
    out = tmp_path / "work" / "suites" / "p.yaml"
    assert harness_cli(["import", "graphrag", str(root), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "llm.type: 'azure_openai'" in err[0]
    assert not out.exists()


def test_the_key_is_never_written_even_when_the_settings_hold_it(tmp_path: Path) -> None:
    settings = (FIXTURES / "v0-vllm" / "settings.yaml").read_text().replace("${GRAPHRAG_API_KEY}", SECRET)
    model, _, warnings = _import("v0-vllm", tmp_path, settings)
    assert "api_key_env" not in model
    assert any("llm.api_key: the key is not copied" in w for w in warnings)


def test_values_from_variables_other_than_key_and_endpoint_are_left_out(tmp_path: Path) -> None:
    settings = (FIXTURES / "v0-vllm" / "settings.yaml").read_text().replace("Qwen/Qwen2.5-7B-Instruct", "${CHAT_MODEL}")
    root = _project("v0-vllm", tmp_path / "project", settings)
    out = tmp_path / "work" / "suites" / "imported.yaml"
    draft = graphrag_draft(read_graphrag_project(root, environ={"CHAT_MODEL": "private-finetune-7"}), out)
    write_draft(draft, out)
    assert "private-finetune-7" not in out.read_text()
    assert any("llm.model comes from an environment variable" in w for w in draft.warnings)


def test_a_suite_whose_endpoint_variable_is_unset_refuses_to_send(monkeypatch: pytest.MonkeyPatch) -> None:
    """`base_url_env` names where the endpoint is; unset, recording stops instead of calling OpenAI."""
    from harness.llm.providers.base import EndpointSettings

    settings = EndpointSettings(model="qwen2.5:7b", base_url_env="LOCAL_LLM_URL")
    monkeypatch.delenv("LOCAL_LLM_URL", raising=False)
    with pytest.raises(InputError, match="set LOCAL_LLM_URL"):
        OpenAIProvider().base_url(settings)
    monkeypatch.setenv("LOCAL_LLM_URL", LOCAL_URL)
    assert OpenAIProvider().base_url(settings) == LOCAL_URL


def test_key_variables_are_never_substituted_into_what_the_suite_holds(tmp_path: Path) -> None:
    """Issue 28, item 2: `${VAR}` of a key (the settings' own `api_key` variable, whatever its name,
    a provider's, one named like a secret) in entity types or delimiters stays a reference; no file
    the import writes holds the key, nor its base64."""
    import base64

    settings = (FIXTURES / "v0-vllm" / "settings.yaml").read_text(encoding="utf-8")
    settings = settings.replace("api_key: ${GRAPHRAG_API_KEY}", "api_key: ${LLM_CREDENTIAL}")
    settings = settings.replace("entity_types: [organization,person,geo,event]",
                                "entity_types: [person, ${LLM_CREDENTIAL}, $GRAPHRAG_API_KEY]\n"
                                "  tuple_delimiter: ${OPENAI_API_KEY}\n  record_delimiter: \"##${HF_TOKEN}\"")
    root = _project("v0-vllm", tmp_path / "project", settings)
    (root / ".env").write_text(f"LLM_CREDENTIAL={SECRET}\nGRAPHRAG_API_KEY={SECRET}\n", encoding="utf-8")
    (root / "prompts" / "entity_extraction.txt").write_text(EXTRACT + f"\n# {SECRET}\n", encoding="utf-8")
    out = tmp_path / "work" / "suites" / "imported.yaml"
    project = read_graphrag_project(root, environ={"OPENAI_API_KEY": SECRET, "HF_TOKEN": SECRET})
    assert project.entity_types == ["person", "$LLM_CREDENTIAL", "$GRAPHRAG_API_KEY"]
    assert project.delimiters == {"tuple_delimiter": "$OPENAI_API_KEY", "record_delimiter": "##$HF_TOKEN"}
    write_draft(graphrag_draft(project, out), out)
    written = "\n".join(p.read_text(encoding="utf-8") for p in (tmp_path / "work").rglob("*") if p.is_file())
    assert SECRET not in written and base64.b64encode(SECRET.encode()).decode()[:-4] not in written
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["model"]["api_key_env"] == "LLM_CREDENTIAL"


def test_key_variables_are_found_in_every_layout(tmp_path: Path) -> None:
    from harness.importers.graphrag_settings import key_variables

    for layout, expected in (("v0-vllm", ["GRAPHRAG_API_KEY"]), ("v1-azure", ["GRAPHRAG_API_KEY"])):
        raw = (FIXTURES / layout / "settings.yaml").read_text(encoding="utf-8")
        assert sorted(set(key_variables(raw, layout))) == expected, layout
    nested = "models:\n  a: {api_key: '${K1}'}\n  b:\n    api_key: pre-$K2\nx: [{api_key: $K3}]\n"
    assert sorted(key_variables(nested, "s")) == ["K1", "K2", "K3"]
    assert key_variables("not: [valid", "s") == []
