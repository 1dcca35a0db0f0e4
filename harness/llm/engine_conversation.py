"""The gleaning conversation of each GraphRAG version, so a suite that names its engine
(`engine: graphrag-1.2.0`) sends what that version sends and reads loop answers as it does.

Read from GraphRAG's code at each tag (`GraphExtractor._process_document`, the prompt constants of
`graphrag/prompts/index/` or `index/graph/extractors/graph/prompts.py`, and the config's
`resolved_strategy`, which reads the prompt file). 0.5.0, 0.9.0, 1.2.0, 2.7.0 and 3.3.0 are also
proven against what the real release sent to the test server (tests/fixtures/engine_captures/);
the other rows are read from code only:

| versions      | continue / loop prompt                      | loop call params           | loop goes on when     | prompt file read as        |
| 0.1.0-0.2.0   | "MANY entities were missed" / "YES | NO"    | logit_bias YES,NO; max 1   | the answer is "YES"   | 0.1: read_text; 0.2.0: bytes |
| 0.2.1-0.5.x   | "...and relationships..." / "YES | NO"      | logit_bias YES,NO; max 1   | the answer is "YES"   | bytes.decode("utf-8")      |
| 0.9.0-1.0.x   | as 0.2.1                                    | as 0.2.1                   | never (see below)     | bytes.decode("utf-8")      |
| 1.1.0-1.2.x   | ... / "Answer Y or N if"                    | logit_bias Y,N; max 1      | the answer is "Y"     | bytes.decode("utf-8")      |
| 2.0.0-2.1.x   | as 1.1                                      | as 1.1                     | the answer is "Y"     | read_text(utf-8)           |
| 2.2.0-3.x     | ... / "Answer Y if there are still"         | none                       | the answer is "Y"     | read_text(utf-8)           |

"never": 0.9.0-1.0.x compare fnllm's output object, not its text, with "YES", so the check is
never true and no second gleaning follows a loop check. "the answer is": exact equality, nothing
stripped. `bytes.decode("utf-8")` keeps `\\r\\n` and a BOM; `read_text` turns `\\r\\n` and `\\r`
into `\\n` and keeps a BOM. 0.1.0-0.2.0 send every continuation after the first answer only
(the first response's history), not after the gleanings before it. 3.x never adds the loop
check's answer to the history: the next continuation follows the loop question, two user turns
in a row. 0.1-0.5 fill the prompt with `str.replace` of their five variables, not `str.format`:
`{{`, `}}` and any other `{name}` are sent as written.

LightRAG (`engine: lightrag-1.4.6`), read from `extract_entities` in lightrag/operate.py,
`use_llm_func_with_cache` in lightrag/utils.py and lightrag/llm/openai.py (which sends a system
message when `system_prompt` is set, then `history_messages`, then the prompt as user), and proven
for 1.4.6, 1.4.9.11 and 1.5.7 against what the real release passed to its `llm_model_func`
(tests/fixtures/engine_captures/lightrag-<v>-conversation/):

| versions       | gleanings            | loop check                                  | sent text           | answers kept in the history |
| 1.0-1.3.x      | up to `entity_extract_max_gleaning` | `entity_if_loop_extraction`; goes on when the answer, stripped of space and quotes and lowered, is "yes" | as formatted | as answered |
| 1.4.0-1.4.7    | as 1.0               | as 1.0, after `remove_think_tags`          | as formatted        | remove_think_tags (a leading think block), stripped |
| 1.4.8-1.4.9.x  | at most one          | none                                        | sanitized (v1)      | as 1.4, then sanitized |
| 1.4.10-1.4.13  | at most one          | none                                        | sanitized (v2)      | as 1.4, then sanitized |
| 1.4.14-1.5.x   | at most one          | none                                        | sanitized (v2)      | every think block removed, stripped, sanitized |

Read from the wheels of 1.0.0, 1.2.1, 1.3.0, 1.3.9, 1.4.0, 1.4.7, 1.4.8.1, 1.4.10, 1.4.12-1.4.14,
1.4.16 and 1.5.0 as well. `sanitize_text_for_encoding`: v1 strips, drops surrogates,
U+FFFE/U+FFFF and C0 controls (not tab, LF, CR) and DEL, unescapes HTML entities, drops C0, DEL
and C1 controls, strips; v2 strips, unescapes, drops surrogates, U+FFFE/U+FFFF, C0 controls and
DEL (C1 kept), strips. No version puts the loop question or its answer in the history: a
continuation after "yes" follows the previous gleaning. Not modelled: 1.5's skipping of the
gleaning when system prompt, history and continue prompt exceed MAX_EXTRACT_INPUT_TOKENS (20480
tokens by default). Their continue and loop prompts are PROMPTS entries, which a project's
prompt.py may replace, so a LightRAG suite sends its template's (`harness import lightrag` writes
them from the project's or the release's stock PROMPTS).

A suite that names no engine keeps the harness's own conversation (`HARNESS`): GraphRAG 2.2's
prompts, a one-token loop call, and any answer starting with Y (after stripping) going on.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..engine_names import EngineRelease, parse_engine_name
from ..errors import InputError
from ..prompts.template import CONTINUE_PROMPT, LOOP_PROMPT

Newlines = Literal["keep", "universal"]
# how the extraction prompt is filled: `str.format` (0.9 and later), or 0.1-0.5's own LLM, which
# replaces `{name}` of each variable it passes with `str.replace` and leaves every other brace,
# `{{` and `}}` included, as written (graphrag/llm/openai/utils.py, perform_variable_replacements)
Filling = Literal["format", "replace"]
# the variables 0.1-0.5's extraction passes (run_extract_entities, GraphExtractor.__call__)
REPLACED_VARIABLES = ("entity_types", "tuple_delimiter", "record_delimiter", "completion_delimiter", "input_text")

# the prompt constants, each the text of the tags named
_CONTINUE_V01 = "MANY entities were missed in the last extraction.  Add them below using the same format:\n"
_LOOP_V01 = "It appears some entities may have still been missed.  Answer YES | NO if there are still entities that need to be added.\n"
_LOOP_V021 = ("It appears some entities and relationships may have still been missed.  "
              "Answer YES | NO if there are still entities or relationships that need to be added.\n")
_LOOP_V11 = ("It appears some entities and relationships may have still been missed.  "
             "Answer Y or N if there are still entities or relationships that need to be added.\n")
# the tokenizer GraphRAG takes the logit-bias tokens from when the project sets no encoding_model
DEFAULT_ENCODING = "cl100k_base"


@dataclass(frozen=True)
class Conversation:
    """How one engine version gleans: what it sends after the first answer and how it reads the
    loop check's answer."""

    engine: str | None  # `graphrag-1.2.0`; None: the harness's own conversation
    continue_prompt: str = CONTINUE_PROMPT
    loop_prompt: str = LOOP_PROMPT
    loop_bias: tuple[str, str] | None = None  # the yes and no words the loop call's logit_bias favours
    loop_max_tokens: int | None = 1
    encoding: str = DEFAULT_ENCODING  # whose tokens the logit bias names
    continues: Callable[[str], bool] = lambda answer: answer.strip().upper().startswith("Y")
    newlines: Newlines | None = None  # how a text prompt file's line ends are read (None: as the harness reads files)
    keep_bom: bool = False
    continue_from_first: bool = False  # every continuation follows the first answer only (0.1.0-0.2.0)
    loop_answer_in_history: bool = True  # False: the next continuation follows the loop question (3.x)
    loop_question_in_history: bool = True  # False: neither the loop question nor its answer (LightRAG)
    filling: Filling = "format"
    # None: the version's own continue and loop prompts above replace a template's; "template":
    # the template's are sent (LightRAG reads them from PROMPTS, which a project may replace)
    gleaning_prompts: Literal["engine", "template"] = "engine"
    max_gleanings: int | None = None  # the most gleanings the version makes, whatever is asked (None: no cap)
    # every message's text as the version sends it, and an answer as the version keeps it in the history
    sent: Callable[[str], str] | None = None
    kept_answer: Callable[[str], str] | None = None
    # the chunk as the version puts it in the prompt: GraphRAG strips every text unit before
    # extraction (`doc.text.strip()` 0.1-2.x, `text.strip()` 3.x); LightRAG stored it stripped
    strips_chunk: bool = False

    def chunk(self, text: str) -> str:
        """A case's chunk as this version fills `{input_text}` with it."""
        return text.strip() if self.strips_chunk else text

    @functools.cached_property
    def loop_params(self) -> Mapping[str, Any]:
        """The loop call's parameters beyond the suite's (tokens counted only when a run needs them)."""
        params: dict[str, Any] = {}
        if self.loop_bias is not None:
            params["logit_bias"] = _logit_bias(*self.loop_bias, self.encoding)
        if self.loop_max_tokens is not None:
            params["max_tokens"] = self.loop_max_tokens
        return params

    def read_prompt_bytes(self, data: bytes, name: str) -> str:
        """A text prompt file's content as this version reads it (UTF-8; BOM and line ends per version)."""
        try:
            text = data.decode("utf-8" if self.keep_bom else "utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None
        if self.newlines == "universal":
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return text

    def as_sent(self, text: str) -> str:
        """A message template that the harness's `fill` renders as this version fills it: with
        `replace` filling, every brace but the placeholders of REPLACED_VARIABLES is literal."""
        if self.filling == "format":
            return text
        from ..prompts.syntax import escape

        parts = _REPLACED.split(text)
        return "".join(part if index % 2 else escape(part) for index, part in enumerate(parts))

    def send(self, messages: list[dict[str, str]]) -> list[dict[str, str]]:
        """The messages as this version sends them (LightRAG 1.4.8+ sanitizes every text)."""
        if self.sent is None:
            return messages
        return [{**m, "content": self.sent(m["content"])} for m in messages]

    def identity(self) -> dict[str, Any] | None:
        """What a results row's request hash adds for this conversation (None: nothing, as before)."""
        if self.engine is None:
            return None
        return {"engine": self.engine, "encoding": self.encoding}


HARNESS = Conversation(engine=None)
_REPLACED = re.compile("(" + "|".join(re.escape("{" + name + "}") for name in REPLACED_VARIABLES) + ")")


def _exact(word: str) -> Callable[[str], bool]:
    def continues(answer: str) -> bool:
        return answer == word
    continues.__doc__ = f"GraphRAG's `!= {word!r}`: only the exact answer {word!r} goes on."
    return continues


def _never(answer: str) -> bool:
    """fnllm's output object compared with "YES": never equal."""
    return False


def _logit_bias(yes: str, no: str, encoding: str) -> dict[str, int]:
    """GraphRAG's `{encode(yes)[0]: 100, encode(no)[0]: 100}`: the first token of each word."""
    import tiktoken

    from .tokens import seed_cache

    seed_cache()
    tokens = tiktoken.get_encoding(encoding)
    return {str(tokens.encode(yes)[0]): 100, str(tokens.encode(no)[0]): 100}


def remove_think_tags(text: str) -> str:
    """LightRAG 1.4.0-1.4.13's `remove_think_tags`: a leading `<think>...</think>` (or anything up
    to a `</think>`) removed, then stripped; what it keeps of an answer and reads a loop answer from."""
    return re.sub(r"^(<think>.*?</think>|.*</think>)", "", text, flags=re.DOTALL).strip()


def remove_think_blocks(text: str) -> str:
    """LightRAG 1.4.14+'s `remove_think_tags`: an orphaned `...</think>` prefix, then every
    `<think>...</think>` block anywhere, removed; stripped."""
    text = re.sub(r"^((?!<think>).)*?</think>", "", text, flags=re.DOTALL)
    return re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL).strip()


def sanitize_v1(text: str) -> str:
    """LightRAG 1.4.8-1.4.9.x's `sanitize_text_for_encoding`, applied to every text it sends."""
    text = text.strip()
    if not text:
        return text
    text = "".join(c for c in text if not (0xD800 <= ord(c) <= 0xDFFF or ord(c) in (0xFFFE, 0xFFFF)))
    text = re.sub(r"[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]", "", text)
    text = html.unescape(text)
    text = re.sub(r"[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]", "", text)
    return text.strip()


def sanitize_v2(text: str) -> str:
    """LightRAG 1.4.10+'s `sanitize_text_for_encoding`: unescaped first, C1 controls kept."""
    text = text.strip()
    if not text:
        return text
    text = html.unescape(text)
    text = re.sub("[\ud800-\udfff\ufffe\uffff]", "", text)
    text = re.sub(r"[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]", "", text)
    return text.strip()


def _lightrag_reads_yes(kept: Callable[[str], str]) -> Callable[[str], bool]:
    def continues(answer: str) -> bool:
        return kept(answer).strip().strip('"').strip("'").lower() == "yes"
    continues.__doc__ = "LightRAG <= 1.4.7: another gleaning only after \"yes\" (space and quotes stripped, any case)."
    return continues


def _no_loop_question(answer: str) -> bool:
    """LightRAG 1.4.8+ ask no loop question (and glean once at most): nothing to go on after."""
    return False


def _identity(text: str) -> str:
    return text


def lightrag_conversation(release: EngineRelease) -> Conversation:
    """The gleaning conversation of one LightRAG release (table in the module's docstring)."""
    version = release.version
    assert version is not None
    label = release.label
    think = _identity if version < (1, 4) else remove_think_tags if version < (1, 4, 14) else remove_think_blocks
    if version < (1, 4, 8):
        return Conversation(
            engine=label, loop_bias=None, loop_max_tokens=None, continues=_lightrag_reads_yes(think),
            loop_question_in_history=False, loop_answer_in_history=False, gleaning_prompts="template",
            kept_answer=None if think is _identity else think)
    sanitize = sanitize_v1 if version < (1, 4, 10) else sanitize_v2
    return Conversation(
        engine=label, loop_bias=None, loop_max_tokens=None, continues=_no_loop_question,
        loop_question_in_history=False, loop_answer_in_history=False, gleaning_prompts="template",
        max_gleanings=1, sent=sanitize, kept_answer=lambda answer: sanitize(think(answer)))


def conversation_for(engine: str | None, *, encoding: str = DEFAULT_ENCODING) -> Conversation:
    """The conversation of the engine a suite names (None: the harness's own). `encoding`: the
    tokenizer of the project's `encoding_model`, whose tokens the loop call's logit bias names."""
    if engine is None:
        return HARNESS
    release = parse_engine_name(engine)
    if release.engine == "llamaindex":
        # its extractors send one request per chunk and never glean: the harness's own, capped at none
        return dataclasses.replace(HARNESS, max_gleanings=0)
    if release.engine == "lightrag":
        # plain `lightrag` names no release, so no conversation: the harness's own
        return HARNESS if release.version is None else lightrag_conversation(release)
    version = release.version
    assert version is not None
    label = release.label
    v01 = version < (0, 2, 1)
    bias: tuple[str, str] | None
    if version < (1, 1, 0):
        loop_prompt, bias = (_LOOP_V01 if v01 else _LOOP_V021), ("YES", "NO")
        continues = _never if version >= (0, 9, 0) else _exact("YES")
    elif version < (2, 2, 0):
        loop_prompt, bias, continues = _LOOP_V11, ("Y", "N"), _exact("Y")
    else:
        loop_prompt, bias, continues = LOOP_PROMPT, None, _exact("Y")
    keep_crlf = (0, 2, 0) <= version < (2, 0, 0)
    return Conversation(
        engine=label,
        continue_prompt=_CONTINUE_V01 if v01 else CONTINUE_PROMPT,
        loop_prompt=loop_prompt,
        loop_bias=bias,
        loop_max_tokens=1 if bias is not None else None,
        encoding=encoding,
        continues=continues,
        newlines="keep" if keep_crlf else "universal",
        keep_bom=True,
        continue_from_first=v01,
        loop_answer_in_history=version < (3, 0, 0),
        filling="replace" if version < (0, 9, 0) else "format",
        strips_chunk=True,
    )
