"""Gleaning as GraphRAG does it: continue prompts with a Y/N loop check between rounds, in the
conversation of the engine version the suite names (llm/engine_conversation.py)."""

from __future__ import annotations

from typing import Any

from ..model import Round
from ..prompts.template import PromptTemplate
from .client import ChatResult, ModelClient
from .engine_conversation import HARNESS, Conversation


def timing(result: ChatResult) -> dict[str, Any]:
    """A round's latency fields from its call's result: the latency, where it comes from, batch."""
    return {"latency_s": result.latency_s, "latency_from": result.latency_from, "batch": result.batch}

Message = dict[str, str]


async def extract_with_gleaning(
    client: ModelClient,
    messages: list[Message],
    template: PromptTemplate,
    max_gleanings: int,
    variables: dict[str, str] | None = None,
    first_payload: dict[str, Any] | None = None,
    first_digest: str | None = None,
    continue_prompt: str | None = None,
    loop_prompt: str | None = None,
    conversation: Conversation = HARNESS,
) -> list[Round]:
    """Every call of one case, in order. Each round keeps its own raw output, never glued.

    The continue and loop prompts are filled with the case's variables (a LightRAG-style
    continue prompt names the delimiters). `first_payload` is the first request's body when the
    caller has already built it (to hash it), so it is not built twice; likewise its hash
    (`first_digest`) and the rendered continue and loop prompts. `conversation` says how the
    engine sends the loop check (its parameters), reads its answer, and lays out the history."""
    values = variables or {}
    if continue_prompt is None:
        continue_prompt = template.render_continue(values)
    if loop_prompt is None:
        loop_prompt = template.render_loop(values)
    history = list(messages)
    first = await client.chat(history, payload=first_payload, digest=first_digest if first_payload is not None else None)
    rounds = [Round(index=0, kind="extract", output=first.text, usage=first.usage, **timing(first),
                    finish_reason=first.finish_reason)]
    kept = conversation.kept_answer or (lambda answer: answer)  # LightRAG keeps answers think-stripped
    history.append({"role": "assistant", "content": kept(first.text)})
    after_first = list(history)
    for gleaning in range(max_gleanings):
        if conversation.continue_from_first:
            history = list(after_first)  # GraphRAG 0.1.0-0.2.0 continue the first answer's history
        history.append({"role": "user", "content": continue_prompt})
        more = await client.chat(history)
        rounds.append(
            Round(index=len(rounds), kind="continue", output=more.text, usage=more.usage, **timing(more),
                  finish_reason=more.finish_reason)
        )
        history.append({"role": "assistant", "content": kept(more.text)})
        if gleaning >= max_gleanings - 1:
            break  # GraphRAG asks no loop question after the last gleaning
        asked = [*history, {"role": "user", "content": loop_prompt}]
        if conversation.loop_question_in_history:  # LightRAG asks it beside the history, never in it
            history = asked
        check = await client.chat(asked, **conversation.loop_params)
        rounds.append(
            Round(index=len(rounds), kind="loop", output=check.text, usage=check.usage, **timing(check),
                  finish_reason=check.finish_reason)
        )
        if conversation.loop_question_in_history and conversation.loop_answer_in_history:
            # GraphRAG 3.x drops it: two user turns follow each other
            history.append({"role": "assistant", "content": check.text})
        if not conversation.continues(check.text):
            break
    return rounds
