"""The tuning questions put to the model, and how each answer is checked.

Every prompt starts with a `TASK:` line so a recorded conversation reads clearly.
"""

from __future__ import annotations

import json
import re

from ..errors import ModelCallError

SAMPLE_CHARS = 1200
MAX_TYPES = 10

LANGUAGES = (
    "Arabic", "Bengali", "Chinese", "Czech", "Danish", "Dutch", "English", "Finnish", "French", "German",
    "Greek", "Hebrew", "Hindi", "Hungarian", "Indonesian", "Italian", "Japanese", "Korean", "Norwegian",
    "Persian", "Polish", "Portuguese", "Romanian", "Russian", "Spanish", "Swedish", "Thai", "Turkish",
    "Ukrainian", "Vietnamese", "Catalan", "Basque", "Galician",
)


def samples_block(texts: list[str]) -> str:
    return "\n\n".join(f"Passage {i}:\n{text[:SAMPLE_CHARS].strip()}" for i, text in enumerate(texts, 1))


def domain_prompt(texts: list[str]) -> str:
    return (
        "TASK: domain\n"
        "Read the sample passages below and name the domain they come from, in a few words "
        "(for example: technology podcasts, clinical pharmacology, regional news). "
        "Answer with the domain only.\n\n" + samples_block(texts)
    )


def language_prompt(texts: list[str]) -> str:
    return (
        "TASK: language\n"
        "In which language are the passages below written? Answer with the English name of the "
        "language only, one word, for example: English, Spanish, Chinese.\n\n" + samples_block(texts)
    )


def persona_prompt(domain: str) -> str:
    return (
        "TASK: persona\n"
        f"Write a persona for an expert who builds knowledge graphs from {domain} texts: two or three "
        "sentences in the second person, starting with \"You are\", saying what the expert knows and "
        "which entities and relationships they care about. Answer with the persona only."
    )


def entity_types_prompt(domain: str, texts: list[str], cap: int = MAX_TYPES) -> str:
    return (
        "TASK: entity-types\n"
        f"For a knowledge graph of {domain} texts, list the entity types that matter in the passages "
        f"below: at most {cap} short, lower-case, general types (such as person, organization, location). "
        'Answer with JSON only: {"entity_types": ["type", ...]}\n\n' + samples_block(texts)
    )


# --------------------------------------------------------------------------- answer checks


def clean_line(answer: str, what: str, max_words: int = 12) -> str:
    text = answer.strip().strip('"').strip()
    text = re.sub(r"^(the )?(domain|answer)( is)?:?\s*", "", text, flags=re.I).strip().rstrip(".")
    if not text or len(text.split()) > max_words or "\n" in text:
        raise ModelCallError(f"the {what} answer is not a short phrase: {answer.strip()[:80]!r}")
    return text


def clean_language(answer: str) -> tuple[str, str | None]:
    """The language name, and a note when the answer had to be reduced to it.

    A language detector's whole sentence ("The primary language of the provided text is
    Chinese.") must never reach a prompt: it is reduced to the name, or refused."""
    text = answer.strip().strip(".\"' ")
    if re.fullmatch(r"[A-Za-z][A-Za-z \-]{0,30}", text) and len(text.split()) <= 2:
        return text[:1].upper() + text[1:], None
    found = [name for name in LANGUAGES if re.search(rf"\b{name}\b", answer, re.I)]
    if len(found) == 1:
        return found[0], f"reduced the answer {answer.strip()[:80]!r} to {found[0]!r}"
    raise ModelCallError(f"the language answer is not a language name: {answer.strip()[:80]!r}")


def clean_persona(answer: str) -> str:
    text = " ".join(answer.split())
    if not text.lower().startswith("you are") or len(text.split()) > 120:
        raise ModelCallError(f"the persona answer is not a short 'You are ...' persona: {text[:80]!r}")
    return text


def clean_entity_types(answer: str, cap: int = MAX_TYPES) -> tuple[list[str], list[str]]:
    """De-duplicated, normalised types (capped), and notes on what was changed."""
    try:
        data = json.loads(re.sub(r"^```(json)?|```$", "", answer.strip()).strip())
    except ValueError:
        raise ModelCallError(f"the entity-types answer is not JSON: {answer.strip()[:80]!r}") from None
    raw = data.get("entity_types") if isinstance(data, dict) else data
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
        raise ModelCallError("the entity-types answer has no list of strings under `entity_types`")
    types: list[str] = []
    notes: list[str] = []
    for item in raw:
        name = re.sub(r"[^a-z0-9 _-]", "", item.strip().lower()).strip().replace(" ", "_")
        if not name:
            notes.append(f"dropped empty type {item!r}")
        elif name in types:
            notes.append(f"dropped duplicate {item!r}")
        else:
            types.append(name)
    if len(types) > cap:
        notes.append(f"kept the first {cap} of {len(types)} types")
        types = types[:cap]
    if not types:
        raise ModelCallError("the entity-types answer lists no usable type")
    return types, notes
