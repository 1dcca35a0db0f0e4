"""A case's requests, rendered, built and hashed once, and the conversation that sends them
(the run, the replay pool, the cassette audit, batch recording and the cache importers all use it)."""

from __future__ import annotations
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from ..llm.client import ModelClient, call_label
from ..llm.gleaning import extract_with_gleaning
from ..llm.request_digest import request_hash
from ..model import GoldCase, Round
from ..suites import Suite
from .cassette_paths import cassette_path
from .plan import VariantPlan


def calls_hash(plan: VariantPlan, first_payload: dict, variables: dict[str, str], *,
               continue_prompt: str | None = None, loop_prompt: str | None = None) -> str:
    """Identifies the calls a case makes: the first request and how gleaning continues it.

    Parsing and scoring are recomputed from the stored rounds, so they are not part of it.
    The continue and loop prompts are rendered here unless the caller already has them.
    """
    calls = {
        "first": first_payload,
        "continue": plan.template.render_continue(variables) if continue_prompt is None else continue_prompt,
        "loop": plan.template.render_loop(variables) if loop_prompt is None else loop_prompt,
        "max_gleanings": plan.max_gleanings,
    }
    engine = plan.conversation.identity()  # None for the harness's own: hashes as before
    if engine is not None:
        calls["conversation"] = engine
    return request_hash(calls)


@dataclass(frozen=True)
class CaseRequest:
    """One case of one variant, its first request rendered and built once: the runner and
    `harness cassettes audit` both send it with `converse`."""

    plan: VariantPlan
    case: GoldCase
    variables: dict[str, str]
    messages: list[dict[str, str]]
    payload: dict
    calls_digest: str  # results.jsonl's request_hash: the row is reused while it is unchanged
    sample: int = 0  # which repeat (`--repeat N`): every sample sends the same requests
    # rendered and hashed once with the rest (None: computed where needed): the first request's
    # hash (replay looks its answer up by it) and the gleaning prompts
    digest: str | None = None
    continue_prompt: str | None = None
    loop_prompt: str | None = None

    @property
    def label(self) -> str:
        sample = f"sample {self.sample} of " if self.sample else ""
        return f"{sample}case '{self.case.id}' of variant '{self.plan.name}'"

    def cassette_path(self, suite: Suite) -> Path:
        return cassette_path(suite, self.plan.name, self.case.id, self.sample)

    def for_sample(self, sample: int) -> CaseRequest:
        """The same request, as sample `sample` (its own cassette, its own row)."""
        return dataclasses.replace(self, sample=sample)



def case_request(plan: VariantPlan, client: ModelClient, case: GoldCase) -> CaseRequest:
    """The case's requests, rendered and hashed here once (`plan.render` is this render)."""
    variables = plan.variables(case)
    conversation = plan.conversation
    messages = conversation.send(plan.template.render(variables, case=case.id))
    payload = client.payload(messages)
    continue_prompt = plan.template.render_continue(variables)
    loop_prompt = plan.template.render_loop(variables)
    if conversation.sent is not None:  # LightRAG 1.4.8+ sanitizes every text it sends
        continue_prompt, loop_prompt = conversation.sent(continue_prompt), conversation.sent(loop_prompt)
    digest = calls_hash(plan, payload, variables, continue_prompt=continue_prompt, loop_prompt=loop_prompt)
    return CaseRequest(plan, case, variables, messages, payload, digest, digest=request_hash(payload),
                       continue_prompt=continue_prompt, loop_prompt=loop_prompt)


async def converse(client: ModelClient, request: CaseRequest) -> list[Round]:
    """Every call of the case (the first request, then gleaning), in order."""
    plan = request.plan
    with call_label(request.label):
        return await extract_with_gleaning(client, request.messages, plan.template, plan.max_gleanings,
                                           request.variables, first_payload=request.payload,
                                           first_digest=request.digest, continue_prompt=request.continue_prompt,
                                           loop_prompt=request.loop_prompt, conversation=plan.conversation)


def clients_for(plans: dict[str, VariantPlan], *, replay: bool) -> dict[str, ModelClient]:
    """A client per variant, shared by variants calling the same endpoint with the same settings
    so that its adaptive limit covers every call to it. Variants that ask for another model (a
    variant's `model:`, a matrix cell) or other settings get a client of their own: a client
    builds every payload from its settings, so a shared one would send the first variant's model."""
    shared: dict[tuple, ModelClient] = {}
    by_variant: dict[str, ModelClient] = {}
    for name, plan in plans.items():
        endpoint = plan.endpoint
        key = dataclasses.astuple(endpoint)  # base_urls too: a tuple
        if key not in shared:
            shared[key] = ModelClient(endpoint, replay=replay)
        by_variant[name] = shared[key]
    return by_variant
