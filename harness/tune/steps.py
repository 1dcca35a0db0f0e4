"""The tuning questions put to the model, and how each answer is checked.

Every prompt starts with a `TASK:` line so a recorded conversation reads clearly.
"""

from __future__ import annotations

import re

from ..errors import ModelCallError
from ..parsing.cleanup import clean, is_refusal
from ..parsing.issues_log import IssueLog
from ..parsing.json_output import load_json
from .echo import SHAPE, echo, item_key

SAMPLE_CHARS = 1200
MAX_TYPES = 10

LANGUAGES = (
    "Arabic", "Bengali", "Chinese", "Czech", "Danish", "Dutch", "English", "Finnish", "French", "German",
    "Greek", "Hebrew", "Hindi", "Hungarian", "Indonesian", "Italian", "Japanese", "Korean", "Norwegian",
    "Persian", "Polish", "Portuguese", "Romanian", "Russian", "Spanish", "Swedish", "Thai", "Turkish",
    "Ukrainian", "Vietnamese", "Catalan", "Basque", "Galician",
)


NATIVE_NAMES = {
    "español": "Spanish", "castellano": "Spanish", "中文": "Chinese", "汉语": "Chinese", "漢語": "Chinese",
    "deutsch": "German", "français": "French", "português": "Portuguese", "italiano": "Italian",
    "日本語": "Japanese", "한국어": "Korean", "русский": "Russian", "nederlands": "Dutch", "polski": "Polish",
    "türkçe": "Turkish", "العربية": "Arabic", "हिन्दी": "Hindi",
}
NOT_A_LANGUAGE = re.compile(r"\b(unknown|unsure|not sure|none|mixed|multiple|various|unclear|sorry|cannot|n/?a)\b", re.I)


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


def rating_prompt(domain: str, persona: str, texts: list[str]) -> str:
    """GraphRAG's community-report rating description: what 0 and 10 mean in this domain."""
    return (
        "TASK: rating\n"
        f"{persona}\n\nCommunity reports rate how much a group of related entities from {domain} texts "
        "matters, from 0 to 10. In one or two sentences, say what the rating measures for this domain "
        "and what a 0 and a 10 mean, judging from the sample passages below. Answer with the description only, "
        "for example: \"A float score between 0 and 10 for how much the community affects public health, "
        "0 being trivial and 10 being a matter of national policy.\"\n\n" + samples_block(texts)
    )


def entity_types_prompt(domain: str, texts: list[str], cap: int = MAX_TYPES) -> str:
    return (
        "TASK: entity-types\n"
        f"For a knowledge graph of {domain} texts, list the entity types that matter in the passages "
        f"below: at most {cap} short, lower-case, general types (such as person, organization, location). "
        'Answer with JSON only: {"entity_types": ["type", ...]}\n\n' + samples_block(texts)
    )


def own_text(task: str) -> str:
    """A tuning question as asked with no sample passage and no earlier answer in it: its own words,
    which nothing taken from an answer into a prompt may repeat (echo.py)."""
    return {"domain": domain_prompt([]), "persona": persona_prompt(""), "rating": rating_prompt("", "", []),
            "entity-types": entity_types_prompt("", [])}[task]


def _refuse_echo(item: str, task: str, given: str, remedy: str) -> None:
    reason = echo(item, own_text(task), given)
    if reason is not None:
        what = f"{item[:80]!r} is {reason}" if reason == SHAPE else f"is {reason}"
        raise ModelCallError(f"the {task} answer {what}; {remedy}")


# --------------------------------------------------------------------------- answer checks


def visible(answer: str) -> str:
    """The answer as the parser reads model output: without reasoning blocks (`<think>`, closed
    or not) or code fences."""
    return clean(answer, IssueLog())[0].strip()


def refuses(text: str) -> bool:
    """Whether any sentence of the answer is a refusal, by the parser's own refusal test."""
    return any(is_refusal(sentence) for sentence in re.split(r"(?<=[.!?…])\s+", text))


def clean_line(answer: str, what: str, max_words: int = 12, *, given: str = "") -> str:
    """A short phrase (the domain); `given`: the sample passages the question showed."""
    answer = visible(answer)
    text = re.sub(r"^(the )?(domain|answer)( is)?:?\s*", "", answer.strip(), flags=re.I)
    text = text.strip().strip("\"'*").strip().rstrip(".").strip("\"'").strip()
    remedy = f"give it with --{what}, or ask again with --record-mode rewrite"
    if not text or len(text.split()) > max_words or "\n" in text or refuses(text):
        raise ModelCallError(f"the {what} answer is not a short phrase: {answer.strip()[:80]!r}; {remedy}")
    _refuse_echo(text, what, given, remedy)
    return text



def clean_language(answer: str) -> tuple[str, str | None]:
    """The language name, and a note when the answer had to be reduced to it.

    A language detector's whole sentence ("The primary language of the provided text is
    Chinese.") must never reach a prompt: it is reduced to the name, or refused."""
    answer = visible(answer)
    text = answer.strip().strip(".\"'* ")
    if text.casefold() in NATIVE_NAMES:
        return NATIVE_NAMES[text.casefold()], f"reduced the answer {text!r} to its English name"
    if (re.fullmatch(r"[A-Za-z][A-Za-z \-]{0,30}", text) and len(text.split()) <= 2
            and not NOT_A_LANGUAGE.search(text)):
        return text[:1].upper() + text[1:], None
    found = [name for name in LANGUAGES if re.search(rf"\b{name}\b", answer, re.I)]
    if len(found) == 1:
        return found[0], f"reduced the answer {answer.strip()[:80]!r} to {found[0]!r}"
    raise ModelCallError(f"the language answer is not a language name: {answer.strip()[:80]!r}; "
                         "give it with --language, or ask again with --record-mode rewrite")


def clean_persona(answer: str, *, given: str = "") -> str:
    """A "You are ..." persona; `given`: the domain the question named."""
    text = " ".join(visible(answer).split())
    text = re.sub(r"^(?:persona|answer)\s*:\s*", "", text.strip('"'), flags=re.I)
    remedy = "give it with --persona \"You are ...\", or ask again with --record-mode rewrite"
    if not text.lower().startswith("you are") or len(text.split()) > 120 or refuses(text):
        raise ModelCallError(f"the persona answer is not a short 'You are ...' persona: {text[:80]!r}; {remedy}")
    _refuse_echo(text, "persona", given, remedy)
    return text


def clean_rating(answer: str, *, given: str = "") -> str:
    """One or two sentences that say what the two ends of the 0-10 scale mean, in the model's own
    words: the question's example (a public-health scale) copied is refused as an empty answer is.
    `given`: the domain, persona and sample passages the question was filled with."""
    text = " ".join(visible(answer).split()).strip('"').strip()
    text = re.sub(r"^(?:rating(?: description)?|answer)\s*:\s*", "", text, flags=re.I)
    ends = re.search(r"\b(?:0|zero|1|one)\b", text) and re.search(r"\b(?:10|ten)\b", text)
    if not text or not ends or len(text.split()) > 80 or refuses(text) or "{" in text:
        raise ModelCallError(f"the rating answer does not describe a 0-10 scale: {text[:80]!r}")
    _refuse_echo(text, "rating", given, "ask again with --record-mode rewrite")
    return text


def _json_answer(answer: str) -> object:
    """JSON mode answers are JSON, but proxies and local servers ignore the mode: read the answer
    as the parser reads JSON output (after prose, fences and reasoning; repaired if need be)."""
    loaded = load_json(visible(answer), IssueLog())
    if loaded is None:
        raise ModelCallError(f"the entity-types answer is not JSON: {answer.strip()[:80]!r}")
    return loaded.value


def _singular(name: str) -> str:
    if len(name) > 4 and name.endswith("ies"):
        return name[:-3] + "y"
    if len(name) > 3 and name.endswith("s") and not name.endswith(("ss", "us", "is")):
        return name[:-1]
    return name


def clean_entity_types(answer: str, cap: int = MAX_TYPES, *, given: str = "") -> tuple[list[str], list[str]]:
    """De-duplicated, normalised types (capped), and notes on what was changed.

    A plural is a duplicate of its singular when both are listed ("organizations" and
    "organization"); a lone plural is kept as written ("news" is not "new"). A type that repeats
    the question (a word of its answer shape, `"type"`; its instructions) is dropped with a note;
    `given`: the sample passages the question showed. No usable type left is refused."""
    data = _json_answer(answer)
    raw = data.get("entity_types", data.get("types")) if isinstance(data, dict) else data
    if isinstance(raw, list):
        raw = [t.get("name", t.get("type")) if isinstance(t, dict) else t for t in raw]
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
        raise ModelCallError("the entity-types answer has no list of strings under `entity_types`")
    names = [item_key(item) for item in raw]
    listed = set(names)
    types: list[str] = []
    notes: list[str] = []
    echoed: list[str] = []
    question = own_text("entity-types")
    for item, name in zip(raw, names):
        reason = echo(item, question, given) if name else None
        if not name:
            notes.append(f"dropped empty type {item!r}")
        elif reason is not None:
            echoed.append(f"dropped {item!r}: {reason}")
            notes.append(echoed[-1])
        elif name in types:
            notes.append(f"dropped duplicate {item!r}")
        elif _singular(name) != name and _singular(name) in listed:
            notes.append(f"dropped {item!r}, the plural of {_singular(name)!r}")
        else:
            types.append(name)
    if len(types) > cap:
        notes.append(f"kept the first {cap} of {len(types)} types")
        types = types[:cap]
    if not types:
        why = f" ({'; '.join(echoed)})" if echoed else ""
        raise ModelCallError(f"the entity-types answer lists no usable type{why}; give them with --entity-types, "
                             "or ask again with --record-mode rewrite")
    return types, notes
