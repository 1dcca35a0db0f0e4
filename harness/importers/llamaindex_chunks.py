"""LlamaIndex's default chunker, `SentenceSplitter`, ported so that a LlamaIndex import's cases are
the nodes LlamaIndex builds (llama-index-core 0.14, `node_parser/text/sentence.py`, MIT;
checked against its own output in tests/fixtures/engine_captures/llamaindex-0.14.25/chunks.json).

Tokens are tiktoken's cl100k_base with every special token allowed (`get_tokenizer()`:
`encoding_for_model("gpt-3.5-turbo")`, seeded offline here). A text over the size is split, in
this order, until each piece fits: on the paragraph separator `\\n\\n\\n` (kept), into sentences by
nltk's untrained `PunktSentenceTokenizer` (each sentence runs to the next one's start), by the
regex `[^,.;。？！]+[,.;。？！]?|[,.;。？！]`, on spaces (kept), into characters. Pieces are then
merged greedily up to the size, each chunk starting with up to `chunk_overlap` tokens of the
previous chunk's last pieces, and every chunk stripped (blank ones dropped).

This is `split_text`: a document's metadata (SimpleDirectoryReader's `file_path`, which LlamaIndex
subtracts from the size and prepends to `{text}`) is not modelled.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_CHUNK_SIZE = 1024
DEFAULT_CHUNK_OVERLAP = 200
PARAGRAPH_SEPARATOR = "\n\n\n"
CHUNKING_REGEX = "[^,.;。？！]+[,.;。？！]?|[,.;。？！]"
TOKENIZER_ENCODING = "cl100k_base"


@dataclass(frozen=True, slots=True)
class _Split:
    text: str
    is_sentence: bool
    token_size: int


def _keep_separator(text: str, separator: str) -> list[str]:
    parts = text.split(separator)
    return [s for s in ([parts[0]] + [separator + p for p in parts[1:]]) if s]


@functools.cache
def _punkt() -> object:
    from nltk.tokenize import PunktSentenceTokenizer  # lazy: only this importer needs it

    return PunktSentenceTokenizer()


def _sentences(text: str) -> list[str]:
    """Sentences as LlamaIndex cuts them: from one span's start to the next span's start."""
    starts = [start for start, _ in _punkt().span_tokenize(text)]  # type: ignore[attr-defined]
    return [text[start: starts[i + 1] if i + 1 < len(starts) else len(text)] for i, start in enumerate(starts)]


@functools.cache
def _token_counter() -> Callable[[str], int]:
    from ..llm.tokens import encoding_named

    encoding = encoding_named(TOKENIZER_ENCODING)
    return lambda text: len(encoding.encode(text, allowed_special="all"))


class SentenceSplitter:
    """`SentenceSplitter(chunk_size, chunk_overlap).split_text` with LlamaIndex's other defaults."""

    def __init__(self, chunk_size: int = DEFAULT_CHUNK_SIZE, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP) -> None:
        if chunk_size <= 0 or chunk_overlap < 0:
            raise ValueError("the chunk size must be positive and the overlap not negative")
        if chunk_overlap > chunk_size:
            raise ValueError(f"the overlap ({chunk_overlap}) is larger than the chunk size ({chunk_size})")
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self._tokens = _token_counter()
        self._split_fns: list[Callable[[str], list[str]]] = [
            lambda t: _keep_separator(t, PARAGRAPH_SEPARATOR), _sentences]
        self._sub_split_fns: list[Callable[[str], list[str]]] = [
            lambda t: re.findall(CHUNKING_REGEX, t), lambda t: _keep_separator(t, " "), list]

    def split_text(self, text: str) -> list[str]:
        if text == "":
            return [text]
        return self._merge(self._split(text))

    def _splits_by_fns(self, text: str) -> tuple[list[str], bool]:
        for fn in self._split_fns:
            splits = fn(text)
            if len(splits) > 1:
                return splits, True
        for fn in self._sub_split_fns:
            splits = fn(text)
            if len(splits) > 1:
                break
        return splits, False

    def _split(self, text: str) -> list[_Split]:
        size = self._tokens(text)
        if size <= self.chunk_size:
            return [_Split(text, True, size)]
        pieces, is_sentence = self._splits_by_fns(text)
        out: list[_Split] = []
        for piece in pieces:
            size = self._tokens(piece)
            if size <= self.chunk_size or len(pieces) == 1:
                out.append(_Split(piece, is_sentence, size))
            else:
                out.extend(self._split(piece))
        return out

    def _merge(self, splits: list[_Split]) -> list[str]:
        chunks: list[str] = []
        current: list[tuple[str, int]] = []
        length = 0
        new_chunk = True

        def close() -> None:
            nonlocal current, length, new_chunk
            chunks.append("".join(text for text, _ in current))
            last, current, length, new_chunk = current, [], 0, True
            index = len(last) - 1
            while index >= 0 and length + last[index][1] <= self.chunk_overlap:
                length += last[index][1]
                current.insert(0, last[index])
                index -= 1

        i = 0
        while i < len(splits):
            split = splits[i]
            if split.token_size > self.chunk_size:
                raise ValueError("a single token is longer than the chunk size")
            if length + split.token_size > self.chunk_size and not new_chunk:
                close()
                continue
            if new_chunk and length + split.token_size > self.chunk_size:
                while current and length + split.token_size > self.chunk_size:
                    length -= current.pop(0)[1]
            if split.is_sentence or length + split.token_size <= self.chunk_size or new_chunk:
                length += split.token_size
                current.append((split.text, split.token_size))
                i += 1
                new_chunk = False
            else:
                close()
        if not new_chunk:
            chunks.append("".join(text for text, _ in current))
        return [chunk.strip() for chunk in chunks if chunk.strip()]
