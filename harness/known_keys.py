"""The keys this process knows, and the one redaction of them applied to what reaches disk or screen.

Every writer (`atomicfile.atomic_write`, the results appender of `runfolder`), the screen
(`scrubbed_output`: stdout, stderr and the `harness` loggers) and every `HarnessError` message pass
their text through `scrub`, so no path (a batch state, an imported suite, an evaluated answer, an
endpoint's error text in a warning) has to remember to. What counts as a key:

- the values of the variables keys are read from: every provider's (`DEFAULT_KEY_ENVS`), each
  loaded suite's `model.api_key_env`, each model client's, and any variable a settings file names
  as a key (learnt with `learn_key_envs`);
- the values of variables whose name says they hold a secret (`*_API_KEY`, `*_KEY`, `*_TOKEN`,
  `*_SECRET`, `*_PASSWORD`), as CI systems mask them, when the value looks like a credential (one
  word of 16 characters or more, not a path or a URL: `SOME_TOKEN=disabled` must not hide the word
  "disabled" in every report);
- values learnt from elsewhere (`learn_keys`): a project's `.env` file, the credential headers of a
  recorded request.

Values are read from the environment each time they are asked for (a test or a command may set
them late): the scan of the environment is redone whenever the environment or the learnt variable
names changed since the last one, and only then (recording asks twice a call); the forms of each
value and the pattern over them are cached in redaction.py.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Iterator, Mapping

from .redaction import DEFAULT_KEY_ENVS, MIN_SECRET_LENGTH, Redactor

_SECRET_NAME = re.compile(r"(?:^|_)(?:[A-Z0-9]*APIKEY|API_KEY|KEY|TOKEN|SECRET|SECRET_KEY|PASSWORD|PASSWD)$",
                          re.IGNORECASE)
CHUNK_CHARS = 1 << 16  # written text is scanned in pieces of at least this many characters
NAMED_SECRET_MIN = 16  # a value taken for a key from its variable's name alone is at least this long

_learnt_envs: dict[str, None] = {}  # insertion-ordered set of variable names
_learnt_values: dict[str, None] = {}
_learnt_generation = 0  # bumped when the learnt variable names change: the environment scan is stale
# the last scan of the environment: (a copy of what it read, the learnt generation, the key values found)
_last_scan: tuple[dict[object, object], int, list[str]] | None = None


@functools.lru_cache(maxsize=4096)
def looks_secret(name: str) -> bool:
    """Whether a variable's name says it holds a secret (HF_TOKEN, GRAPHRAG_API_KEY, DB_PASSWORD)."""
    return bool(_SECRET_NAME.search(name))


def is_key_env(name: str) -> bool:
    """Whether the harness treats variable `name` as holding a key (never writes its value)."""
    return name in DEFAULT_KEY_ENVS or name in _learnt_envs or looks_secret(name)


def learn_key_envs(names: Iterable[str | None]) -> None:
    """Variables that hold a key (a suite's `api_key_env`, a settings file's `api_key: ${VAR}`)."""
    global _learnt_generation
    for name in names:
        if name and name not in _learnt_envs:
            _learnt_envs[name] = None
            _learnt_generation += 1


def learn_keys(values: Iterable[str]) -> None:
    """Key values that are not in this process's environment (a project's `.env`, a header)."""
    for value in values:
        value = value.strip()
        if len(value) >= MIN_SECRET_LENGTH:
            _learnt_values[value] = None


def learn_keys_of(env: Mapping[str, str]) -> None:
    """The key values of a mapping of variables (a project's `.env` merged with the environment)."""
    learn_keys(value for name, value in env.items() if _holds_key(name, value))


def forget() -> None:
    """Forget what was learnt (tests: each starts from the environment alone)."""
    global _learnt_generation
    _learnt_envs.clear()
    _learnt_generation += 1
    _learnt_values.clear()


def _holds_key(name: str, value: str) -> bool:
    if name in DEFAULT_KEY_ENVS or name in _learnt_envs:
        return True
    if not looks_secret(name):
        return False
    # named like a secret: taken for one only if it looks like one (a path or an address is not
    # worth hiding, and hiding it would rewrite every path under it)
    value = value.strip()
    return (len(value) >= NAMED_SECRET_MIN and not any(c.isspace() for c in value)
            and not value.startswith(("/", "~", "http://", "https://", "file:")))


def key_values() -> list[str]:
    """Every key value known now: the environment's key variables, then what was learnt."""
    return _environment_keys() + list(_learnt_values)


def _environment_keys() -> list[str]:
    """The key values of the environment now; the last scan's when neither the environment nor the
    learnt names changed since (os.environ keeps what it holds in `_data`; comparing a copy of it is
    one C-level dict comparison, where a scan decodes and checks every variable)."""
    global _last_scan
    data: dict[object, object] | None = getattr(os.environ, "_data", None)
    if _last_scan is not None and data is not None and _last_scan[1] == _learnt_generation and _last_scan[0] == data:
        return _last_scan[2]
    found = [value for name, value in os.environ.items() if _holds_key(name, value)]
    values = [value.strip() for value in found if value.strip()]
    if data is not None:
        _last_scan = (dict(data), _learnt_generation, values)
    return values


def redactor(extra: Iterable[str] = ()) -> Redactor:
    """A redactor of every key known now (and of `extra`): a new one, the caller may teach it more."""
    return Redactor([*key_values(), *extra])


def scrub(text: str) -> str:
    """`text` with every form of every known key replaced by `[REDACTED]`."""
    known = redactor()
    return known.redact(text) if known else text


def scrub_data(value: object) -> object:
    """A copy of JSON-like data with every string scrubbed (keys too)."""
    known = redactor()
    return known.redact_data(value) if known else value


def scrub_chunks(chunks: Iterable[str]) -> Iterator[str]:
    """The chunks of a text scrubbed as one text: a key split across two chunks is still found.

    Chunks are joined into pieces of CHUNK_CHARS or more before scanning; the tail of a piece that
    may begin a key waits for the next one."""
    known = redactor()
    if not known:
        yield from chunks
        return
    held = ""
    pending: list[str] = []
    size = 0
    for chunk in chunks:
        pending.append(chunk)
        size += len(chunk)
        if size >= CHUNK_CHARS:
            head, held = known.redact_head(held + "".join(pending))
            pending, size = [], 0
            if head:
                yield head
    tail = known.redact(held + "".join(pending))
    if tail:
        yield tail
