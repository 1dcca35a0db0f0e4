"""Which test cases a prompt already shows: a case whose chunk stands in the prompt's few-shot
examples is scored on copying, not on extraction.

Tuning from a suite's own chunks (`harness tune --suite`) does this by construction, and so does
a hand-written example cut from a test document. The runner marks such rows and the gate warns.
"""

from __future__ import annotations

from functools import lru_cache

from .template import INPUT_VARIABLE, PromptTemplate

WINDOW = 160  # characters of normalised text: long enough to be no coincidence, short enough for excerpts
GRAM = 16  # characters of the prompt indexed at every position (`_grams`)
MAX_INDEXED = 20_000  # longer prompts are searched without an index (it takes ~90 bytes a character)


def fold(text: str) -> str:
    """Case and whitespace folded, as both sides are compared."""
    return " ".join(text.casefold().split())


@lru_cache(maxsize=16)
def _grams(haystack: str) -> frozenset[str]:
    """Every GRAM-character substring of a (folded) prompt: built once per prompt text."""
    return frozenset(haystack[i : i + GRAM] for i in range(len(haystack) - GRAM + 1))


def chunk_in_prompt(chunk: str, prompt: str, window: int = WINDOW, *, folded: bool = False) -> bool:
    """Whether a passage of `chunk` (any `window` characters, whitespace and case folded) occurs in
    `prompt`, the rendered prompt without the chunk itself (already `fold`ed when `folded`)."""
    text, haystack = fold(chunk), prompt if folded else fold(prompt)
    if not text or not haystack:
        return False
    if len(text) <= window:
        return text in haystack
    step = window // 2
    starts = [*range(0, len(text) - window + 1, step), len(text) - window]  # the last window too
    if window < GRAM or len(haystack) > MAX_INDEXED:
        return any(text[i : i + window] in haystack for i in starts)
    # a window occurs only where its first GRAM characters do: most windows are ruled out by one
    # set look-up instead of a search through the whole prompt
    grams = _grams(haystack)
    return any(text[i : i + GRAM] in grams and text[i : i + window] in haystack for i in starts)


def prompt_without_chunk(template: PromptTemplate, variables: dict[str, str]) -> str:
    """The prompt's text as sent with an empty chunk: its examples and instructions, as the runner
    renders it for `VariantPlan.prompt_contains_chunk`. A variable the template needs and `variables`
    leave out renders empty (a prompt file read alone has no suite to fill it)."""
    values = {name: "" for name in template.required_variables()}
    values.update(variables)
    values[INPUT_VARIABLE] = ""
    return "\n".join(message["content"] for message in template.render(values))
