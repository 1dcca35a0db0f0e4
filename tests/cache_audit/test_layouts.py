"""Each engine's way of storing a call, read into a CacheEntry."""

from __future__ import annotations

from harness.cache_audit.layouts import graphrag_entry, is_lightrag_store, lightrag_entries, path_hints


def test_graphrag_0x_text_result_with_parameters() -> None:
    entry = graphrag_entry("cache/entity_extraction/extract-loopcheck-0-chat-v2-0123456789abcdef",
                           {"result": "YES", "input": "Answer YES | NO", "parameters": {"model": "gpt-4"}})
    assert entry is not None
    assert (entry.engine, entry.answer, entry.request, entry.model) == ("graphrag-0.x", "YES", "Answer YES | NO", "gpt-4")
    assert entry.hints == ("cache", "entity_extraction", "extract-loopcheck-0")


def test_fnllm_response_object_and_messages() -> None:
    data = {"result": {"model": "gpt-4o-2024", "choices": [{"message": {"role": "assistant", "content": "ok"}}]},
            "input": {"messages": [{"role": "user", "content": "first"}, {"role": "assistant", "content": "a"},
                                   {"role": "user", "content": "second"}], "parameters": {"model": "gpt-4o"}}}
    entry = graphrag_entry("cache/community_reporting/chat_create_community_report_" + "a" * 64 + "_v2", data)
    assert entry is not None
    assert (entry.engine, entry.answer, entry.request, entry.model) == ("graphrag-1.x", "ok", "second", "gpt-4o-2024")
    assert graphrag_entry("cache/extract_graph/chat_" + "a" * 64 + "_v2", data).engine == "graphrag-2.x"  # type: ignore[union-attr]


def test_litellm_and_graphrag_llm_responses() -> None:
    response = {"model": "m", "choices": [{"message": {"content": "x"}}]}
    assert graphrag_entry("c/extract_graph/chat_" + "b" * 64 + "_v3", {"result": {"response": response}}).engine == "graphrag-2.x"  # type: ignore[union-attr]
    v3 = graphrag_entry("c/extract_graph/" + "b" * 64 + "_v4", {"result": {"response": response, "metrics": {}}})
    assert v3 is not None and (v3.engine, v3.model, v3.answer) == ("graphrag-3.x", "m", "x")


def test_embeddings_in_every_layout() -> None:
    old = graphrag_entry("c/text_embedding/embedding-0123456789abcdef", {"result": [[0.1, 0.2]], "parameters": {"model": "e"}})
    new = graphrag_entry("c/text_embedding/" + "c" * 64 + "_v4",
                         {"result": {"response": {"model": "e3", "data": [{"embedding": [1, 2, 3]}]}, "metrics": {}}})
    assert old is not None and (old.embedding, old.vectors, old.dimensions, old.model) == (True, 1, 2, "e")
    assert new is not None and (new.embedding, new.vectors, new.dimensions, new.model) == (True, 1, 3, "e3")


def test_json_that_is_no_entry() -> None:
    assert graphrag_entry("stats.json", {"total_runtime": 1}) is None
    assert graphrag_entry("x", [1, 2]) is None


def test_lightrag_flat_and_nested() -> None:
    flat = {"mix:query:h1": {"return": "a", "cache_type": "query", "original_prompt": "q"}}
    nested = {"default": {"h2": {"return": "b", "original_prompt": "p"}}, "local": {"h3": {"return": "c"}}}
    assert is_lightrag_store("kv_store_llm_response_cache.json", flat) and is_lightrag_store("other.json", nested)
    [one] = lightrag_entries("kv.json", flat)
    assert (one.id, one.mode, one.cache_type, one.request, one.model) == ("kv.json#mix:query:h1", "mix", "query", "q", None)
    assert [(e.id, e.mode) for e in lightrag_entries("kv.json", nested)] == [("kv.json#default/h2", "default"), ("kv.json#local/h3", "local")]


def test_path_hints() -> None:
    assert path_hints("a/summarize_descriptions/chat_summarize_" + "d" * 64 + "_v2") == ("a", "summarize_descriptions", "summarize")
    assert path_hints("a/x/chat-0123456789abcdef0123") == ("a", "x")


def test_usage_and_duration_are_read_where_the_cache_stores_them() -> None:
    usage = {"prompt_tokens": 2643, "completion_tokens": 660, "total_tokens": 3303}
    fnllm = graphrag_entry("c/entity_extraction/chat_" + "a" * 64 + "_v2", {
        "result": {"model": "m", "choices": [{"message": {"content": "x"}}], "usage": usage},
        "input": {"messages": [{"role": "user", "content": "p"}], "parameters": {"model": "m"}}})
    v3 = graphrag_entry("c/extract_graph/" + "b" * 64 + "_v4", {"result": {
        "response": {"model": "m", "choices": [{"message": {"content": "x"}}], "usage": usage},
        "metrics": {"compute_duration_seconds": 84.5}}})
    old = graphrag_entry("c/entity_extraction/chat-0123456789abcdef", {"result": "x", "input": "p"})
    bad = graphrag_entry("c/extract_graph/" + "c" * 64 + "_v4", {"result": {
        "response": {"model": "m", "choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": "many"}},
        "metrics": {"compute_duration_seconds": float("nan")}}})
    assert fnllm is not None and (fnllm.prompt_tokens, fnllm.completion_tokens, fnllm.latency_s) == (2643, 660, None)
    assert v3 is not None and (v3.prompt_tokens, v3.completion_tokens, v3.latency_s) == (2643, 660, 84.5)
    assert old is not None and (old.prompt_tokens, old.completion_tokens) == (None, None)  # 0.x stores the text only
    assert bad is not None and (bad.prompt_tokens, bad.latency_s) == (None, None)
