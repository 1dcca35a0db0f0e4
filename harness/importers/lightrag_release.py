"""The LightRAG release a project runs, for the suite's `engine:` (so a run sends that release's
extraction conversation, llm/engine_conversation.py) and for the release-dependent settings.

Told, first to last: `--lightrag-version`; an exact pin of `lightrag-hku` in the project's
requirements files (`requirements*.txt`, `pyproject.toml` (PEP 621 and Poetry), `Pipfile`,
`uv.lock`, `poetry.lock`, `Pipfile.lock`); the working folder's cached extraction prompts, when they
are one shipped release's stock prompt (lightrag_workdir; the stores name no version, so this tells
the release whose prompt they are); else the newest shipped release of the project's prompt
generation, said to be assumed. A range (`>=1.4`) names no release and is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..engine_names import parse_engine_name
from ..errors import InputError
from ..inputfiles import loads, read_text

PACKAGE = re.compile(r"lightrag[-_.]hku", re.IGNORECASE)
VERSION = r"(\d+(?:\.\d+){1,3})"
_REQUIREMENT = re.compile(rf"^\s*lightrag[-_.]hku\s*(?:\[[^\]]*\])?\s*===?\s*{VERSION}\s*(?:[;#].*)?$", re.IGNORECASE)
_QUOTED_PIN = re.compile(rf"""["']lightrag[-_.]hku\s*(?:\[[^\]]*\])?\s*===?\s*{VERSION}\s*["']""", re.IGNORECASE)
_TABLE_PIN = re.compile(rf"""^\s*["']?lightrag[-_.]hku["']?\s*=\s*(?:\{{[^}}]*version\s*=\s*)?["']={{0,2}}{VERSION}["']""",
                        re.IGNORECASE)
PIN_FILES = ("requirements.txt", "requirements.in", "requirements-lock.txt", "pyproject.toml", "Pipfile",
             "uv.lock", "poetry.lock", "Pipfile.lock")


@dataclass(frozen=True)
class Release:
    """A LightRAG release and how it was told; `assumed` when nothing in the project says it."""

    version: tuple[int, ...]
    source: str
    assumed: bool = False

    @property
    def label(self) -> str:
        return ".".join(map(str, self.version))

    @property
    def engine(self) -> str:
        return f"lightrag-{self.label}"


def parse_release(text: str, what: str) -> tuple[int, ...]:
    """`1.4.6` or `1.4.9.11` as a tuple; InputError naming `what` unless the harness models it."""
    match = re.fullmatch(rf"v?{VERSION}", text.strip())
    if match is None:
        raise InputError(f"{what}: '{text}' is not a LightRAG version (write it as 1.4.6)")
    try:
        release = parse_engine_name(f"lightrag-{match[1]}")
    except InputError:
        raise InputError(f"{what}: LightRAG {match[1]} is not a release the harness models (1.0 to 1.5: its "
                         "extraction conversation would be guessed)") from None
    if release.version is None or match[1].count(".") < 2:  # `1.4` stands for a line's newest, not one release
        raise InputError(f"{what}: '{text}' names no single LightRAG release (write it as 1.4.6)")
    return release.version


def _lock_pin(path: Path, text: str) -> tuple[str, int] | None:
    """uv.lock / poetry.lock: `name = "lightrag-hku"` then `version = "X"`; Pipfile.lock: JSON."""
    if path.name == "Pipfile.lock":
        try:
            data = loads(text)  # the JSON policy
        except ValueError:
            return None
        for section in ("default", "develop"):
            entry = data.get(section, {}) if isinstance(data, dict) else {}
            for name, spec in entry.items() if isinstance(entry, dict) else ():
                if PACKAGE.fullmatch(name) and isinstance(spec, dict) and isinstance(spec.get("version"), str):
                    match = re.fullmatch(rf"==\s*{VERSION}", spec["version"].strip())
                    if match:
                        return match[1], 1
        return None
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if re.fullmatch(r"""\s*name\s*=\s*["']lightrag[-_.]hku["']\s*""", line, re.IGNORECASE):
            for later, following in enumerate(lines[number:number + 5], number + 1):
                match = re.fullmatch(rf"""\s*version\s*=\s*["']{VERSION}["']\s*""", following)
                if match:
                    return match[1], later
    return None


def pinned_release(root: Path) -> Release | None:
    """The release the project's requirement files pin exactly (the first file that pins one)."""
    candidates = [root / name for name in PIN_FILES] + sorted(root.glob("requirements*.txt"))
    for path in dict.fromkeys(candidates):
        if not path.is_file():
            continue
        try:  # bounded, regular files only (harness/inputfiles.py)
            text = read_text(path, what="requirements file", encoding="utf-8")
        except InputError:
            continue
        found: tuple[str, int] | None = None
        if path.suffix == ".lock":
            found = _lock_pin(path, text)
        else:
            for number, line in enumerate(text.splitlines(), 1):
                match = _REQUIREMENT.match(line) or _QUOTED_PIN.search(line) or _TABLE_PIN.match(line)
                if match:
                    found = (match[1], number)
                    break
        if found is not None:
            where = f"{path}:{found[1]}"
            return Release(parse_release(found[0], f"{where}: lightrag-hku"), f"{where} pins lightrag-hku=={found[0]}")
    return None
