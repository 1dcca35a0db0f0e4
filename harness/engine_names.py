"""The engine a suite names (`engine: graphrag-1.2.0`), read once for every part that models it.

The suite's validator, the gleaning conversation (llm/engine_conversation.py) and the engine's
parser (cache_audit/engines.py) all take the release this returns, so a name is accepted, and
stands for a release, in one place. Imports nothing above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InputError

# the newest release of each GraphRAG major line, which `graphrag-<major>` stands for
GRAPHRAG_LATEST: dict[int, tuple[int, int, int]] = {0: (0, 9, 0), 1: (1, 2, 4), 2: (2, 7, 2), 3: (3, 3, 0)}
# the LightRAG lines the harness models (1.0-1.5), and the release each major.minor stands for
LIGHTRAG_LATEST: dict[tuple[int, int], tuple[int, ...]] = {
    (1, 0): (1, 0, 9), (1, 1): (1, 1, 7), (1, 2): (1, 2, 6), (1, 3): (1, 3, 9), (1, 4): (1, 4, 16), (1, 5): (1, 5, 7)}
# the LlamaIndex line whose property-graph extractors the harness models (llama-index-core 0.14)
LLAMAINDEX_LATEST: dict[tuple[int, int], tuple[int, int, int]] = {(0, 14): (0, 14, 25)}
NAMES = ("graphrag-0 ... graphrag-3 or one release such as graphrag-1.2.0; lightrag, lightrag-1.0 ... "
         "lightrag-1.5 or one release such as lightrag-1.4.6; llamaindex, llamaindex-0.14 or one release "
         "such as llamaindex-0.14.25")

_GRAPHRAG = re.compile(r"graphrag-(\d+)(?:\.(\d+))?(?:\.(\d+))?")
_LIGHTRAG = re.compile(r"lightrag(?:-(\d+)\.(\d+)(?:\.(\d+))?(?:\.(\d+))?)?")  # 1.4.9.11: four parts
_LLAMAINDEX = re.compile(r"llamaindex(?:-(\d+)\.(\d+)(?:\.(\d+))?)?")


@dataclass(frozen=True)
class EngineRelease:
    """`graphrag`, `lightrag` or `llamaindex`, and the release the name stands for (None: plain
    `lightrag`, which names no release)."""

    engine: str
    version: tuple[int, ...] | None

    @property
    def label(self) -> str:
        return self.engine if self.version is None else f"{self.engine}-" + ".".join(map(str, self.version))


def parse_engine_name(name: str) -> EngineRelease:
    """The release a suite's `engine:` names; InputError naming it when the harness models none."""
    text = name.strip().lower()
    match = _GRAPHRAG.fullmatch(text)
    if match is not None and int(match.group(1)) in GRAPHRAG_LATEST:
        major = int(match.group(1))
        if match.group(2) is None:
            return EngineRelease("graphrag", GRAPHRAG_LATEST[major])
        return EngineRelease("graphrag", (major, int(match.group(2)), int(match.group(3) or 0)))
    match = _LIGHTRAG.fullmatch(text)
    if match is not None:
        if match.group(1) is None:
            return EngineRelease("lightrag", None)
        parts = tuple(int(g) for g in match.groups() if g is not None)
        if (1, 0) <= parts[:2] <= max(LIGHTRAG_LATEST):
            return EngineRelease("lightrag", LIGHTRAG_LATEST.get(parts, parts) if len(parts) == 2 else parts)
    match = _LLAMAINDEX.fullmatch(text)
    if match is not None:
        if match.group(1) is None:
            return EngineRelease("llamaindex", max(LLAMAINDEX_LATEST.values()))
        line = (int(match.group(1)), int(match.group(2)))
        if line in LLAMAINDEX_LATEST:
            patch = match.group(3)
            return EngineRelease("llamaindex", LLAMAINDEX_LATEST[line] if patch is None else (*line, int(patch)))
    raise InputError(f"engine '{name}' is not an engine version the harness models ({NAMES})")
