"""Graph diffs `harness diff A B --json` wrote into `<reports>/diffs/*.json` (docs/diff.md,
format_version 1): the site lists them and shows each on demand. Only the keys the page reads are
checked; a file that is not such a diff is skipped with its reason, as a damaged run is."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import HarnessError
from ..inputfiles import load_json

DIFFS = "diffs"  # <reports>/diffs/<name>.json
FORMAT_VERSION = 1


@dataclass(frozen=True)
class FoundDiff:
    name: str  # the file's stem
    data: dict[str, Any]
    stamp: str


def _problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "not a harness diff --json document"
    if data.get("format_version") != FORMAT_VERSION:
        return f"format_version {data.get('format_version')!r}, this harness reads {FORMAT_VERSION}"
    for side in ("a", "b"):
        if not isinstance(data.get(side), dict):
            return f"no side `{side}`"
    for part in ("entities", "relationships"):
        block = data.get(part)
        if not isinstance(block, dict) or not all(isinstance(block.get(k), list) for k in ("added", "removed")):
            return f"`{part}` has no `added` and `removed` lists"
    return None


def find_diffs(reports: Path) -> tuple[list[FoundDiff], list[tuple[str, str]]]:
    """The diffs under `reports/diffs/`, by name, and the files skipped with their reasons."""
    found: list[FoundDiff] = []
    skipped: list[tuple[str, str]] = []
    folder = reports / DIFFS
    if not folder.is_dir():
        return found, skipped
    for path in sorted(folder.glob("*.json")):
        try:
            data = load_json(path, what="graph diff")
        except HarnessError as exc:
            skipped.append((str(path), str(exc)))
            continue
        problem = _problem(data)
        if problem is not None:
            skipped.append((str(path), problem))
            continue
        stat = path.stat()
        found.append(FoundDiff(path.stem, data, f"{stat.st_mtime_ns}:{stat.st_size}"))
    return found, skipped


def diff_entry(diff: FoundDiff) -> dict[str, Any]:
    """What the index holds of a diff: its sides' labels and counts (the lists load on demand)."""
    def count(part: str, side: str) -> Any:
        value = diff.data[part].get(f"count_{side}")
        return value if isinstance(value, int) else None

    return {"name": diff.name, "a": str(diff.data["a"].get("label", "")), "b": str(diff.data["b"].get("label", "")),
            "entities": [count("entities", "a"), count("entities", "b")],
            "relationships": [count("relationships", "a"), count("relationships", "b")]}
