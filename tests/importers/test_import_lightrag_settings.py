"""`harness import lightrag` carries the extraction model's settings into the suite's `model:`
(issue 27, item 3): from the API server's `.env` as each release reads it (lightrag/api/config.py,
lightrag_server.py), or from a script's `LightRAG(...)` call read with `ast`; refuses a binding a
suite cannot call in one line; writes a key's variable, never its value."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.errors import InputError
from harness.importers import lightrag_draft, read_lightrag_project, write_draft
from harness.run.plan import endpoint_settings
from harness.suites import load_suite

SECRET = "sk-lightrag-" + "settings0123456789abcd"


def _setup(root: Path, env: str = "", script: str | None = None, pin: str | None = None) -> Path:
    (root / "inputs").mkdir(parents=True)
    (root / "inputs" / "a.txt").write_text("Ana Ruiz leads the Kestrel Trust in Lowbridge.\n", encoding="utf-8")
    (root / ".env").write_text(env, encoding="utf-8")
    if script is not None:
        (root / "index.py").write_text(script, encoding="utf-8")
    if pin is not None:
        (root / "requirements.txt").write_text(pin, encoding="utf-8")
    return root


def _import(tmp_path: Path, env: str = "", script: str | None = None, *, version: str | None = "1.4.6",
            pin: str | None = None, environ: dict[str, str] | None = None) -> tuple[dict, list[str], Path]:
    root = _setup(tmp_path / "setup", env, script, pin)
    out = tmp_path / "work" / "suites" / "lr.yaml"
    draft = lightrag_draft(read_lightrag_project(root, environ=environ or {}, lightrag_version=version), out)
    write_draft(draft, out)
    text = out.read_text(encoding="utf-8")
    assert SECRET not in text
    return yaml.safe_load(text), draft.warnings, out


# --------------------------------------------------------------------------- the API server's .env

SERVER_146 = ("LLM_BINDING=openai\nLLM_MODEL=Qwen/Qwen2.5-7B-Instruct\nLLM_BINDING_HOST=http://10.0.0.5:8000/v1\n"
              f"LLM_BINDING_API_KEY={SECRET}\nTEMPERATURE=0.3\nMAX_ASYNC=6\nMAX_GLEANING=2\nTIMEOUT=200\nMAX_TOKENS=32000\n")


def test_a_1_4_6_server_env_becomes_the_model_block(tmp_path: Path) -> None:
    data, warnings, out = _import(tmp_path, SERVER_146)
    assert data["engine"] == "lightrag-1.4.6"
    assert data["model"] == {"name": "Qwen/Qwen2.5-7B-Instruct", "base_url": "http://10.0.0.5:8000/v1",
                             "api_key_env": "LLM_BINDING_API_KEY", "temperature": 0.3, "concurrency": 6,
                             "max_gleanings": 2}
    assert any(w.endswith(".env:9: MAX_TOKENS: LightRAG 1.4.6's limit on description summaries "
                          "(summary_max_tokens), not sent with extraction requests: not carried") for w in warnings)
    assert any(".env:8: TIMEOUT: LightRAG 1.4.6's server does not give it to the openai binding" in w for w in warnings)
    # the recording goes where the project's does
    endpoint = endpoint_settings(load_suite(out).spec.model)
    assert (endpoint.base_url, endpoint.api_key_env, endpoint.temperature) == ("http://10.0.0.5:8000/v1",
                                                                              "LLM_BINDING_API_KEY", 0.3)


@pytest.mark.parametrize(("version", "temperature"), [("1.4.4", 0.5), ("1.4.5", 1.0), ("1.4.6", 1.0), ("1.4.7", None)])
def test_the_temperature_the_server_sends_when_the_env_states_none(version: str, temperature: float | None,
                                                                    tmp_path: Path) -> None:
    """To 1.4.6 the openai binding always sends TEMPERATURE (default 0.5 to 1.4.4, then 1.0); from
    1.4.7 OPENAI_LLM_TEMPERATURE, sent only when set."""
    data, _, _ = _import(tmp_path, "LLM_BINDING=openai\nLLM_MODEL=gpt-4o-mini\n", version=version)
    assert "temperature" in data["model"] and data["model"]["temperature"] == temperature


def test_a_1_4_9_server_env_reads_the_openai_options(tmp_path: Path) -> None:
    env = ("LLM_BINDING=openai\nLLM_MODEL=gpt-4.1-mini\nTEMPERATURE=0.3\nOPENAI_LLM_TEMPERATURE=0.2\n"
           "OPENAI_LLM_MAX_TOKENS=900\nOPENAI_LLM_TOP_P=0.9\nLLM_TIMEOUT=240\nOPENAI_LLM_EXTRA_BODY={\"x\": 1}\n")
    data, warnings, _ = _import(tmp_path, env, version="1.4.9.11")
    assert data["model"] == {"name": "gpt-4.1-mini", "temperature": 0.2, "top_p": 0.9, "max_tokens": 900,
                             "timeout_s": 240.0, "max_gleanings": 1}
    assert any(".env:8: OPENAI_LLM_EXTRA_BODY: not carried" in w for w in warnings)


def test_1_5_reads_the_extract_roles_settings_first(tmp_path: Path) -> None:
    env = ("LLM_BINDING=openai\nLLM_MODEL=gpt-4.1\nEXTRACT_LLM_MODEL=gpt-4.1-mini\nOPENAI_LLM_TEMPERATURE=0.7\n"
           "EXTRACT_OPENAI_LLM_TEMPERATURE=0\nMAX_ASYNC=4\nEXTRACT_MAX_ASYNC_LLM=12\n")
    data, _, _ = _import(tmp_path, env, version="1.5.7")
    assert data["model"] == {"name": "gpt-4.1-mini", "temperature": 0.0, "concurrency": 12, "max_gleanings": 1}


def test_an_azure_binding_keeps_deployment_endpoint_key_and_api_version(tmp_path: Path) -> None:
    env = ("LLM_BINDING=azure_openai\nLLM_MODEL=gpt-4o\nAZURE_OPENAI_DEPLOYMENT=prod-4o\n"
           f"AZURE_OPENAI_ENDPOINT=https://contoso.openai.azure.com\nAZURE_OPENAI_API_KEY={SECRET}\n")
    data, warnings, _ = _import(tmp_path, env)
    assert data["model"] == {"name": "prod-4o", "provider": "azure", "base_url": "https://contoso.openai.azure.com",
                             "api_version": "2024-08-01-preview", "api_key_env": "AZURE_OPENAI_API_KEY",
                             "temperature": 1.0, "max_gleanings": 1}
    assert any("the request's `model` field (gpt-4o) is not carried" in w for w in warnings)


@pytest.mark.parametrize(("env", "version", "problem"), [
    ("LLM_BINDING=ollama\nLLM_MODEL=qwen2.5:14b\n", "1.4.6",
     r"\.env:1: LLM_BINDING=ollama: the ollama binding speaks its own API, which a suite cannot call"),
    ("LLM_MODEL=qwen2.5:14b\n", "1.4.6",
     r"\.env:1: LLM_MODEL: LLM_BINDING is not set, so LightRAG's server uses ollama: the ollama binding"),
    ("LLM_BINDING=openai\nEXTRACT_LLM_BINDING=aws_bedrock\n", "1.5.7",
     r"\.env:2: EXTRACT_LLM_BINDING=bedrock: the bedrock binding speaks its own API"),
    ("LLM_BINDING=openai\nLLM_BINDING_HOST=localhost:8000\n", "1.4.6",
     r"\.env:2: LLM_BINDING_HOST: an endpoint a suite cannot call"),
    ("LLM_BINDING=openai\nTEMPERATURE=hot\n", "1.4.6", r"\.env:2: TEMPERATURE=hot: 'hot' is not a number"),
    ("LLM_BINDING=azure_openai\nLLM_MODEL=gpt-4o\n", "1.4.6", r"the azure_openai binding has no endpoint"),
])
def test_a_binding_or_setting_a_suite_cannot_call_is_refused_in_one_line(env: str, version: str, problem: str,
                                                                         tmp_path: Path) -> None:
    with pytest.raises(InputError, match=problem) as raised:
        _import(tmp_path, env, version=version)
    assert "\n" not in raised.value.message


def test_the_cli_refuses_with_exit_2_and_writes_nothing(harness_cli, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = _setup(tmp_path / "setup", "LLM_BINDING=lollms\nLLM_MODEL=mistral\n")
    for name in ("LLM_BINDING", "LLM_MODEL", "EXTRACT_LLM_BINDING"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "suites" / "lr.yaml"
    assert harness_cli(["import", "lightrag", str(root), "--out", str(out), "--lightrag-version", "1.4.6"]) == 2
    err = capsys.readouterr().err
    assert "LLM_BINDING=lollms: the lollms binding speaks its own API" in err and "Traceback" not in err
    assert not out.exists()


# --------------------------------------------------------------------------- a script's LightRAG(...)

SCRIPT = '''
import os
from lightrag import LightRAG
from lightrag.llm.openai import gpt_4o_mini_complete

WORKDIR = "./rag_storage"
rag = LightRAG(
    working_dir=WORKDIR,
    llm_model_func=gpt_4o_mini_complete,
    llm_model_kwargs={"base_url": os.getenv("VLLM_URL"), "api_key": os.getenv("EXTRACTION_KEY"),
                      "temperature": float(os.getenv("TEMP", "0.1")), "max_tokens": 800, "seed": 7},
    llm_model_max_async=3,
    entity_extract_max_gleaning=int(os.environ.get("GLEANINGS", 2)),
    chunk_token_size=200,
    embedding_func=make_embedding(),
)
'''


def test_a_scripts_lightrag_call_becomes_the_model_block(tmp_path: Path) -> None:
    data, warnings, _ = _import(tmp_path, f"VLLM_URL=http://10.0.0.5:8000/v1\nEXTRACTION_KEY={SECRET}\n"
                                          "LLM_BINDING=openai\n", SCRIPT)
    # the model is the function's own; the endpoint and key are the variables the script names
    assert data["model"] == {"name": "gpt-4o-mini", "base_url_env": "VLLM_URL", "api_key_env": "EXTRACTION_KEY",
                             "temperature": 0.1, "max_tokens": 800, "concurrency": 3, "max_gleanings": 2}
    assert any("llm_model_kwargs['seed']: sent with every request by LightRAG, not carried" in w for w in warnings)
    assert any(w.startswith("LLM_BINDING: the API server's settings;") for w in warnings)
    assert not any("embedding_func" in w for w in warnings)  # only what the import uses is said


def test_a_script_reads_the_openai_bindings_own_fallbacks(tmp_path: Path) -> None:
    script = ("from lightrag import LightRAG\nfrom lightrag.llm import openai\n"
              "rag = LightRAG(llm_model_func=openai.openai_complete, llm_model_name='qwen2.5-14b')\n")
    data, _, _ = _import(tmp_path, "OPENAI_API_BASE=http://localhost:8000/v1\nMAX_GLEANING=0\n", script)
    assert data["model"] == {"name": "qwen2.5-14b", "base_url": "http://localhost:8000/v1", "temperature": None,
                             "max_gleanings": 0}


def test_a_script_keeps_no_key_it_writes_out(tmp_path: Path) -> None:
    script = SCRIPT.replace('os.getenv("EXTRACTION_KEY")', f'"{SECRET}"')
    data, warnings, _ = _import(tmp_path, "", script)
    assert "api_key_env" not in data["model"]
    assert any("llm_model_kwargs['api_key'] is written in the script: it is not copied" in w for w in warnings)


def test_a_scripts_own_function_is_named_and_another_binding_refused(tmp_path: Path) -> None:
    own = ("from lightrag import LightRAG\nasync def my_llm(prompt, **kw):\n    ...\n"
           "rag = LightRAG(llm_model_func=my_llm, llm_model_name='llama-3-70b')\n")
    data, warnings, _ = _import(tmp_path / "own", "", own)
    assert data["model"]["name"] == "llama-3-70b"
    assert any("index.py:4: llm_model_func=my_llm is the project's own function" in w for w in warnings)
    ollama = ("from lightrag import LightRAG\nfrom lightrag.llm.ollama import ollama_model_complete\n"
              "rag = LightRAG(llm_model_func=ollama_model_complete, llm_model_name='qwen2.5')\n")
    with pytest.raises(InputError, match=r"index\.py:3: llm_model_func=ollama_model_complete: LightRAG's ollama "
                                         "binding, which a suite cannot call"):
        _import(tmp_path / "ollama", "", ollama)


def test_the_call_wins_over_the_environment_for_chunking_and_working_folder(tmp_path: Path) -> None:
    script = ("from lightrag import LightRAG\nrag = LightRAG(working_dir='store', chunk_token_size=20, "
              "chunk_overlap_token_size=5, tiktoken_model_name='gpt-4', addon_params={'language': 'French'})\n")
    root = _setup(tmp_path / "setup", "CHUNK_SIZE=1200\nSUMMARY_LANGUAGE=German\n", script)
    project = read_lightrag_project(root, environ={})
    assert (project.chunk_size, project.chunk_overlap, project.tokenizer_model, project.language) == (
        20, 5, "gpt-4", "French")


def test_a_value_from_the_importing_shell_is_said_to_be_one(tmp_path: Path) -> None:
    """LightRAG reads its environment over `.env`, and so does the import; a value only the shell
    gives is carried and named, since the project's files do not say it."""
    data, warnings, _ = _import(tmp_path, "LLM_BINDING=openai\nLLM_MODEL=gpt-4o-mini\n",
                                environ={"LLM_MODEL": "gpt-4.1", "TEMPERATURE": "0.4"})
    assert (data["model"]["name"], data["model"]["temperature"]) == ("gpt-4.1", 0.4)
    assert any(w.startswith("environment variable LLM_MODEL: taken from the environment the import ran in")
               for w in warnings)


def test_an_openai_function_the_import_does_not_model_is_named_not_refused(tmp_path: Path) -> None:
    script = ("from functools import partial\nfrom lightrag import LightRAG\n"
              "from lightrag.llm.openai import openai_complete_if_cache, openai_embed\n"
              "a = LightRAG(llm_model_func=openai_embed, llm_model_name='m')\n")
    _, warnings, _ = _import(tmp_path / "a", "", script)
    assert any("llm_model_func=lightrag.llm.openai.openai_embed is a function of LightRAG's the import does not model"
               in w for w in warnings)
    script = script.replace("llm_model_func=openai_embed", "llm_model_func=partial(openai_complete_if_cache, 'm')")
    _, warnings, _ = _import(tmp_path / "b", "", script)
    assert any("index.py:4: llm_model_func cannot be read (a call of partial())" in w for w in warnings)
