"""GraphRAG's gluing of an answer and its gleanings, modelled per conversation."""

from __future__ import annotations

import json
from pathlib import Path

from harness.cache_audit import audit_cache
from harness.cache_audit.classify import Kind
from harness.cache_audit.entry import CacheEntry
from harness.cache_audit.kind_checks import audit_entry
from harness.cache_audit.seams import count_seams

FIRST = '("entity"<|>A<|>PERSON<|>a)##\n<|COMPLETE|>'
GLEAN = '("entity"<|>B<|>PERSON<|>b)##\n("entity"<|>C<|>PERSON<|>c)##\n<|COMPLETE|>'


def _pair(answer: str, kind: str, hints: tuple[str, ...] = (), conversation: str | None = "prompt", engine: str = "graphrag-2.x"):
    entry = CacheEntry(id=kind + str(hints), engine=engine, layout="t", answer=answer, conversation=conversation, hints=hints)
    return entry, audit_entry(entry, Kind(kind, "test"))


def test_the_first_record_after_complete_is_lost() -> None:
    pairs = [_pair(FIRST, "extraction"), _pair(GLEAN, "continuation", ("extract-continuation-0",))]
    count_seams(pairs)
    # glued: '...<|COMPLETE|>("entity"<|>B...' -> the record starts with <|COMPLETE|>, not "entity": B is lost
    assert pairs[0][1].seam_lost == 1 and pairs[0][1].findings[0].startswith("seam-lost: 1 record(s) graphrag-2.x")
    assert pairs[1][1].seam_lost is None


def test_seams_need_the_whole_conversation_and_a_stored_prompt() -> None:
    only_gleanings = [_pair(GLEAN, "continuation", ("extract-continuation-0",)), _pair(GLEAN, "continuation", ("extract-continuation-1",))]
    no_prompt = [_pair(FIRST, "extraction", conversation=None), _pair(GLEAN, "continuation", ("extract-continuation-0",), conversation=None)]
    gap = [_pair(FIRST, "extraction"), _pair(GLEAN, "continuation", ("extract-continuation-1",))]
    lightrag = [_pair(FIRST, "extraction", engine="lightrag"), _pair(GLEAN, "continuation", engine="lightrag")]
    for pairs in (only_gleanings, no_prompt, gap, lightrag):
        count_seams(pairs)
        assert all(row.seam_lost is None for _, row in pairs)


def test_a_record_delimiter_after_complete_costs_nothing() -> None:
    pairs = [_pair(FIRST + "##", "extraction"), _pair(GLEAN, "continuation", ("extract-continuation-0",))]
    count_seams(pairs)
    assert pairs[0][1].seam_lost == 0 and pairs[0][1].findings == []


def test_fixture_conversation(caches: Path) -> None:
    rows = audit_cache(caches).rows
    # graphrag-2: the extraction ends "##\n<|COMPLETE|>", its gleaning starts ("entity"<|>OSAKA...: OSAKA is lost
    [first] = [r for r in rows if r.seam_lost]
    assert first.id.endswith("chat_7a1c0f2e9b8d4c3a6e5f7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0_v2") and first.seam_lost == 1


def _fnllm_entry(folder: Path, name: str, model: str, messages: list[dict[str, str]], answer: str) -> None:
    """One GraphRAG 2.x (fnllm) cache file: the request's messages and parameters, the response object."""
    parameters = {"model": model, "max_tokens": 4000, "temperature": 0.0}
    body = {"result": {"model": model + "-2024", "choices": [{"message": {"role": "assistant", "content": answer}}]},
            "input": {"messages": messages, "parameters": parameters}}
    (folder / name).write_text(json.dumps(body), encoding="utf-8")


def test_two_models_runs_of_one_chunk_are_two_conversations(tmp_path: Path) -> None:
    # two indexing runs of the same chunk (same first prompt) under two models: GraphRAG's cache key
    # tells them apart by the parameters; each run's extraction and gleaning glue on their own
    folder = tmp_path / "cache" / "extract_graph"
    folder.mkdir(parents=True)
    first = [{"role": "user", "content": "Text: Alice met Bob"}]
    for n, model in enumerate(("gpt-4o-mini", "gpt-4-turbo")):
        _fnllm_entry(folder, f"chat_{n}a{'0' * 20}_v2", model, first, FIRST)
        history = [*first, {"role": "assistant", "content": FIRST}, {"role": "user", "content": "MANY entities were missed"}]
        _fnllm_entry(folder, f"chat_extract-continuation-0_{n}b{'0' * 20}_v2", model, history, GLEAN)
    audit = audit_cache(tmp_path)
    firsts = sorted((r.model, r.seam_lost) for r in audit.rows if r.kind == "extraction")
    assert firsts == [("gpt-4-turbo-2024", 1), ("gpt-4o-mini-2024", 1)]
    assert {m: t.seam_lost for m, t in audit.totals.by_model.items()} == {"gpt-4-turbo-2024": 1, "gpt-4o-mini-2024": 1}


def test_one_model_under_other_settings_is_another_conversation() -> None:
    def pair(answer: str, kind: str, hints: tuple[str, ...], parameters: str):
        entry = CacheEntry(id=kind + parameters, engine="graphrag-1.x", layout="t", answer=answer, conversation="prompt",
                           model="m", parameters=parameters, hints=hints)
        return entry, audit_entry(entry, Kind(kind, "test"))

    pairs = [pair(FIRST, "extraction", (), p) for p in ('{"t": 0}', '{"t": 1}')]
    pairs += [pair(GLEAN, "continuation", ("extract-continuation-0",), p) for p in ('{"t": 0}', '{"t": 1}')]
    count_seams(pairs)
    assert [row.seam_lost for _, row in pairs] == [1, 1, None, None]


def test_a_name_a_gleaning_repeats_is_merged_not_lost_at_the_seam() -> None:
    """2.x merges a name the gleaning writes again into its node: only the record glued after
    <|COMPLETE|> is lost where the answers are joined."""
    first = '("entity"<|>ARN<|>GEO<|>a river)##("entity"<|>MILLBROOK<|>GEO<|>a town)<|COMPLETE|>'
    glean = '("entity"<|>OAK<|>GEO<|>a tree)##("entity"<|>ARN<|>GEO<|>the river)<|COMPLETE|>'

    def pair(answer: str, kind: str, hints: tuple[str, ...]):
        entry = CacheEntry(id=kind, engine="graphrag-2.x", layout="t", answer=answer, conversation="prompt", model="m",
                           hints=hints)
        return entry, audit_entry(entry, Kind(kind, "test"))

    pairs = [pair(first, "extraction", ()), pair(glean, "continuation", ("extract-continuation-0",))]
    count_seams(pairs)
    assert pairs[0][1].seam_lost == 1  # OAK, glued after <|COMPLETE|>; ARN again is one node
