"""Which keys the process knows, and the one redaction every writer and the screen apply."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import known_keys
from harness.llm.providers.registry import PROVIDERS
from harness.redaction import DEFAULT_KEY_ENVS, REDACTED

KEY = "sk-known-" + "Hq2Wm8Zr4Lp6Xt1Vb9Nc"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "MY_CREDENTIAL", "HF_TOKEN", "SSH_KEY", "PROXY_TOKEN",
                 "FEATURE_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def test_every_providers_key_variable_is_known_without_a_suite():
    """A provider added later cannot be forgotten: its `key_envs` are among the defaults."""
    for provider in PROVIDERS.values():
        assert set(provider.key_envs) <= set(DEFAULT_KEY_ENVS), provider.name
    assert all(known_keys.is_key_env(name) for name in DEFAULT_KEY_ENVS)


@pytest.mark.parametrize(("name", "secret"), [
    ("OPENAI_API_KEY", True), ("GRAPHRAG_API_KEY", True), ("LLM_BINDING_API_KEY", True), ("HF_TOKEN", True),
    ("GITHUB_TOKEN", True), ("DB_PASSWORD", True), ("AWS_SECRET_ACCESS_KEY", True), ("OPENAIAPIKEY", True),
    ("openai_api_key", True), ("MAX_TOKENS", False), ("TIKTOKEN_CACHE_DIR", False), ("TOKENIZERS_PARALLELISM", False),
    ("PATH", False), ("PWD", False), ("SSH_AUTH_SOCK", False), ("KEYBOARD", False), ("MY_CREDENTIAL", False),
])
def test_names_that_say_they_hold_a_secret(name: str, secret: bool):
    assert known_keys.looks_secret(name) is secret


def test_the_environment_suites_and_projects_teach_the_keys(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MY_CREDENTIAL", KEY)
    assert KEY not in known_keys.key_values()  # a name that says nothing: not a key until a suite names it
    known_keys.learn_key_envs(["MY_CREDENTIAL", None, ""])
    assert KEY in known_keys.key_values() and known_keys.is_key_env("MY_CREDENTIAL")
    known_keys.forget()
    known_keys.learn_keys_of({"PROJECT_TOKEN": "tok-" + "9" * 12, "MODEL": "gpt-4o-mini-2024-07-18"})
    assert known_keys.key_values() == ["tok-" + "9" * 12]  # the .env's key, not its model name
    known_keys.learn_keys(["short", "  padded-key-value  "])
    assert known_keys.key_values()[-1] == "padded-key-value"


def test_a_secret_named_variable_holding_a_path_or_address_is_not_a_key(monkeypatch: pytest.MonkeyPatch):
    """Hiding `/home/ci/.ssh/id_rsa` would rewrite every path under it."""
    monkeypatch.setenv("SSH_KEY", "/home/ci/.ssh/id_ed25519")
    monkeypatch.setenv("PROXY_TOKEN", "https://proxy.example/token-endpoint")
    monkeypatch.setenv("HF_TOKEN", "hf_" + "x" * 20)
    monkeypatch.setenv("FEATURE_TOKEN", "disabled")  # a word, not a credential
    assert known_keys.key_values() == ["hf_" + "x" * 20]
    assert known_keys.scrub("/home/ci/.ssh/id_ed25519 and hf_" + "x" * 20) == "/home/ci/.ssh/id_ed25519 and " + REDACTED


def test_scrub_and_scrub_data_redact_every_form(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    encoded = base64.b64encode(KEY.encode()).decode()  # its last characters mix in the padding: kept
    assert known_keys.scrub(f"a {KEY} b {encoded} c") == f"a {REDACTED} b {REDACTED}{encoded[-2:]} c"
    assert known_keys.scrub_data({KEY: [KEY, 1, {"x": KEY[:20]}]}) == {REDACTED: [REDACTED, 1, {"x": REDACTED}]}


def test_without_keys_chunks_pass_through_untouched(monkeypatch: pytest.MonkeyPatch):
    chunks = ["a", "b" * 10, ""]
    assert list(known_keys.scrub_chunks(iter(chunks))) == chunks
    assert known_keys.scrub("anything") == "anything"


@given(cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=12),
       small=st.sampled_from([1, 7, 64, 1 << 16]))
def test_a_key_split_across_chunks_is_still_found(cuts: list[int], small: int):
    """Whatever the chunking (and the size of the pieces scanned), the joined output holds no key."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", KEY)
        mp.setattr(known_keys, "CHUNK_CHARS", small)
        text = f"start {KEY} middle {base64.b64encode(KEY.encode()).decode()} end {KEY}"
        points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
        chunks = [text[a:b] for a, b in zip(points, points[1:])]
        joined = "".join(known_keys.scrub_chunks(iter(chunks)))
        assert joined == known_keys.scrub(text)  # as if written at once
    assert joined.startswith(f"start {REDACTED} middle {REDACTED}") and joined.endswith(f" end {REDACTED}")


def test_the_environment_is_scanned_again_only_when_it_or_the_learnt_names_change(monkeypatch: pytest.MonkeyPatch) -> None:
    scanned: list[str] = []
    holds = known_keys._holds_key
    monkeypatch.setattr(known_keys, "_holds_key", lambda name, value: scanned.append(name) or holds(name, value))
    known_keys.key_values()
    assert scanned  # the first call scans
    scanned.clear()
    known_keys.key_values()
    assert scanned == []  # an unchanged environment is not scanned again
    value = "k" * 12 + "-set-late-by-a-test-0123456789"
    monkeypatch.setenv("KGH_PROBE_CREDENTIAL", value)  # not named like a secret: not a key yet
    assert value not in known_keys.key_values() and scanned  # the changed environment was scanned
    scanned.clear()
    known_keys.learn_key_envs(["KGH_PROBE_CREDENTIAL"])  # a suite's api_key_env names it
    assert value in known_keys.key_values() and scanned
    monkeypatch.delenv("KGH_PROBE_CREDENTIAL")
    assert value not in known_keys.key_values()
