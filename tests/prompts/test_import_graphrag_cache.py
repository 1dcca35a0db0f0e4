"""`harness import graphrag ROOT --cache` (issue 27, item 4, GraphRAG 0.x-2.x): the project's LLM
cache becomes cassettes, one variant per cached model, and `run --record-mode none` scores what
the cache holds, reading per entry the records `harness audit-cache` reads.

The fixture project is the real GraphRAG 2.7.0 chunking project (engine_captures/graphrag-2.7.0-
chunks) with an extraction prompt and a cache written in 2.x's fnllm layout; the continuation and
loop prompts in it are the ones GraphRAG 2.7.0 itself sent (engine_captures/graphrag-2.7.0)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from harness.cache_audit import audit_cache
from harness.cli import main
from harness.finish import finish_outcome
from harness.parsing import parse
from harness.runner import RunOptions, run_suite
from harness.suites import load_suite

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "engine_captures"
PROMPT = ("-Goal-\nIdentify all entities of types [{entity_types}] in the text and the relationships among them.\n"
          "Format each entity as (\"entity\"{tuple_delimiter}<name>{tuple_delimiter}<type>{tuple_delimiter}<description>)\n"
          "Use {record_delimiter} between records and end with {completion_delimiter}\n\nText: {input_text}\nOutput:\n")
TYPES = ["organization", "person", "geo"]


def _engine_prompts() -> tuple[str, str]:
    """The continuation and loop prompts GraphRAG 2.7.0 sent (its own capture)."""
    data = json.loads((CAPTURES / "graphrag-2.7.0" / "requests.json").read_text(encoding="utf-8"))
    sent = data["scenarios"]["continue"]["requests"]
    return sent[1]["messages"][-1]["content"], sent[2]["messages"][-1]["content"]


def _entry(folder: Path, call: str, messages: list[dict], answer: str, model: str) -> None:
    digest = hashlib.sha256(json.dumps(messages).encode() + model.encode()).hexdigest()
    name = f"chat_{call + '_' if call else ''}{digest}_v2"
    body = {"id": f"chatcmpl-{digest[:8]}", "object": "chat.completion", "created": 1735689600, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    data = {"result": body, "input": {"messages": messages, "parameters": {"model": model, "temperature": 0.0}}}
    (folder / name).write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def _answer(text: str, n: int) -> str:
    word = text.split("\n", 1)[-1].split()[0].strip(".,").upper() or "X"
    return (f'("entity"<|>{word}{n}<|>ORGANIZATION<|>named in the text)\n##\n'
            f'("entity"<|>PLACE{n}<|>GEO<|>a place)\n##\n'
            f'("relationship"<|>{word}{n}<|>PLACE{n}<|>is at<|>{n + 1})\n<|COMPLETE|>')


def _project(tmp_path: Path) -> tuple[Path, list[dict]]:
    """The project, its cache written as GraphRAG 2.7.0 with max_gleanings 2 would: gpt-4o-mini
    answered every text unit but the last; gpt-4o the first four. Odd units stop at the loop check."""
    root = tmp_path / "project"
    shutil.copytree(CAPTURES / "graphrag-2.7.0-chunks", root)
    settings = (root / "settings.yaml").read_text(encoding="utf-8")
    settings += ("extract_graph:\n  model_id: default_chat_model\n  prompt: prompts/extract_graph.txt\n"
                 f"  entity_types: [{', '.join(TYPES)}]\n  max_gleanings: 2\ncache:\n  type: file\n  base_dir: cache\n")
    (root / "settings.yaml").write_text(settings, encoding="utf-8")
    (root / "prompts").mkdir()
    (root / "prompts" / "extract_graph.txt").write_text(PROMPT, encoding="utf-8")
    units = json.loads((CAPTURES / "graphrag-2.7.0-chunks" / "text_units.json").read_text(encoding="utf-8"))["text_units"]
    cont, loop = _engine_prompts()
    folder = root / "cache" / "extract_graph"
    folder.mkdir(parents=True)
    for model, chosen in (("gpt-4o-mini", units[:-1]), ("gpt-4o", units[:4])):
        for i, unit in enumerate(chosen):
            first = PROMPT.format(entity_types=",".join(TYPES), tuple_delimiter="<|>", record_delimiter="##",
                                  completion_delimiter="<|COMPLETE|>", input_text=unit["text"].strip())
            history = [{"role": "user", "content": first}]
            answer = _answer(unit["text"], i)
            _entry(folder, "", history, answer, model)
            history += [{"role": "assistant", "content": answer}, {"role": "user", "content": cont}]
            more = f'("entity"<|>EXTRA{i}<|>PERSON<|>found on gleaning)\n<|COMPLETE|>'
            _entry(folder, "extract-continuation-0", history, more, model)
            history += [{"role": "assistant", "content": more}, {"role": "user", "content": loop}]
            go_on = "Y" if i % 2 == 0 else "N"
            _entry(folder, "extract-loopcheck-0", history, go_on, model)
            if go_on == "Y":
                history += [{"role": "assistant", "content": go_on}, {"role": "user", "content": cont}]
                _entry(folder, "extract-continuation-1", history,
                       f'("relationship"<|>EXTRA{i}<|>PLACE{i}<|>visits<|>3)\n<|COMPLETE|>', model)
    return root, units


def test_import_cache_replays_every_covered_case_as_audit_reads_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root, units = _project(tmp_path)
    work = tmp_path / "harness"
    (work / "suites").mkdir(parents=True)
    monkeypatch.chdir(work)
    for env in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(env, raising=False)
    code = main(["import", "graphrag", str(root), "--name", "proj", "--limit", "50", "--graphrag-version", "2.7.0",
                 "--cache"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"gpt-4o-mini: {len(units) - 1} of {len(units)} cases covered" in out
    assert f"gpt-4o: 4 of {len(units)} cases covered" in out
    assert "case rivers-" in err and "not in the cache" in err  # the uncovered case is named

    suite = load_suite(work / "suites" / "proj-cache.yaml")
    assert suite.variant_names() == ["gpt-4o-mini", "gpt-4o"]
    assert len(suite.cases) == 4  # the cases every model covers: none is scored as an empty answer
    written = sorted(p.relative_to(suite.cassette_dir()).as_posix() for p in suite.cassette_dir().rglob("*.json"))
    assert written == sorted(f"{v}/{c.id}.json" for v in suite.variant_names() for c in suite.cases)  # no orphan
    outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=tmp_path / "reports", fresh=True))
    finish_outcome(outcome, record_mode="none")
    assert len(outcome.results) == 8 and all(row.error is None for row in outcome.results)

    # per cached entry: the answer the replayed run read is the cached one, and its records are
    # the records audit-cache reads from that entry
    audit = {row.id: row for row in audit_cache(root / "cache").rows}
    entries = {}
    for path in (root / "cache" / "extract_graph").iterdir():
        data = json.loads(path.read_text(encoding="utf-8"))
        entries[(data["result"]["model"], data["input"]["messages"][-1]["content"],
                 data["result"]["choices"][0]["message"]["content"])] = f"extract_graph/{path.name}"
    checked = 0
    for row in outcome.results:
        model = suite.spec.variants[row.variant].model
        for rnd in row.rounds:
            matches = [key for key in entries if key[0] == model and key[2] == rnd.output]
            assert matches, (row.variant, row.case_id, rnd.kind)
            audited = audit[entries[matches[0]]]
            if rnd.kind != "loop":
                graph = parse(rnd.output, "graphrag").graph
                assert (len(graph.entities), len(graph.relationships)) == (
                    audited.recovered_entities, audited.recovered_relationships)
            checked += 1
    assert checked == sum(3 + (i % 2 == 0) for i in range(4)) * 2


def test_import_cache_leaves_out_cases_whose_request_differs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    root, units = _project(tmp_path)
    # the project's prompt changed since the index was built: no cached request is the harness's
    (root / "prompts" / "extract_graph.txt").write_text(PROMPT.replace("-Goal-", "-GOAL-"), encoding="utf-8")
    work = tmp_path / "harness"
    (work / "suites").mkdir(parents=True)
    monkeypatch.chdir(work)
    code = main(["import", "graphrag", str(root), "--name", "proj", "--limit", "50", "--graphrag-version", "2.7.0",
                 "--cache"])
    out, err = capsys.readouterr()
    assert code == 2
    assert f"gpt-4o-mini: 0 of {len(units)} cases covered" in out
    assert "first request differs from the cached one" in err
    assert not (work / "suites" / "proj-cache.yaml").exists()
    assert not list(work.rglob("cassettes/**/*.json"))
