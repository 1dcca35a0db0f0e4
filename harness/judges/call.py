"""One case's questions to the judge, through `ModelClient` and the judge's own cassettes.

A judge's cassettes live apart from the extraction ones, one per (variant, case):
`fixtures/judge-cassettes/<suite>/<variant>/<case>.json`, matched like any cassette by method,
path and request hash (llm/cassette_store.py), so `--record-mode none` replays every verdict with
no key and a changed judge prompt or model makes them stale, as it would an extraction cassette.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..llm.cassette_store import replaying
from ..llm.client import ModelClient, SettingNames
from ..llm.providers.base import Message
from ..model import GoldCase, JudgeVerdict
from ..prompts.template import PromptTemplate
from .verdict import read_verdict

JUDGE_SETTINGS = SettingNames(max_tokens="judge.model.max_tokens", timeout_s="judge.model.timeout_s",
                              concurrency="judge.model.concurrency")


def judge_cassette_path(root: Path, suite: str, variant: str, case_id: str) -> Path:
    return root / "fixtures" / "judge-cassettes" / suite / variant / f"{case_id}.json"


@dataclass
class JudgeCaller:
    """The judge's client and prompt, and where its answers are replayed from or recorded into."""

    client: ModelClient
    template: PromptTemplate
    cassette_for: Callable[[Path], contextlib.AbstractContextManager[Any]]
    save: Callable[[Any], None] | None = None  # a recording router's save (None when replaying)
    recorded: int = 0  # cassettes that took answers sent to the endpoint

    async def ask(self, path: Path, case: GoldCase, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], JudgeVerdict | None]:
        """Each (gold, predicted) pair's verdict, in order, from one cassette."""
        messages = [self.template.render({"input_text": case.text, "gold": gold, "predicted": pred}, case=case.id)
                    for gold, pred in pairs]
        texts = await self.answers(path, messages)
        return {pair: read_verdict(text) for pair, text in zip(pairs, texts)}

    async def answers(self, path: Path, conversations: list[list[Message]]) -> list[str]:
        """The judge's answer to each one-call conversation, in order, from (or into) one cassette:
        the same request asked twice is answered by its two recordings in turn."""
        texts: list[str] = []
        with self.cassette_for(path) as cassette:
            for messages in conversations:
                texts.append((await self.client.chat(messages)).text)
        if self.save is not None:
            if getattr(cassette, "dirty", False):
                self.recorded += 1
            self.save(cassette)
        return texts


@contextlib.contextmanager
def judge_caller(client: ModelClient, template: PromptTemplate, record_mode: str, root: Path) -> Iterator[JudgeCaller]:
    """Replay from the cassette store (record mode none: nothing sent, no key), else send through
    the provider's SDK with vcrpy recording each case's cassette."""
    if record_mode == "none":
        yield JudgeCaller(client, template, replaying)
        return
    from ..llm.cassettes import CassetteRouter

    with CassetteRouter(record_mode, roots=(root,)).patched() as router:
        yield JudgeCaller(client, template, lambda path: router.case(path, save=False), router.save_case)
