"""What actions/upload-artifact@v4 and actions/download-artifact@v4 do with files, for workflow tests.

Upload (actions/upload-artifact v4, src/shared/search.ts): every `path:` line is a glob whose search
path is its part before the first segment holding a wildcard (the whole path when it has none). With
one search path, that is the artifact's root (for a single plain file, the file's folder); with
several, their least common ancestor. Files are stored relative to the root, so a wildcard keeps the
folders after it: `shards/*/shard-1/` is stored as `<suite>/shard-1/...`. Hidden files are left out
(`include-hidden-files` defaults to false); `!` lines exclude.

Download (actions/download-artifact v4, src/download-artifact.ts): with `name:` or
`merge-multiple: true` every artifact is extracted into `path:`; otherwise (`pattern:` or nothing)
each one into `path/<artifact name>/`.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import shutil
from pathlib import Path

WILDCARDS = set("*?[")


def _search_path(pattern: str) -> str:
    parts = Path(pattern).parts
    kept: list[str] = []
    for part in parts:
        if WILDCARDS & set(part):
            break
        kept.append(part)
    return os.path.join(*kept) if kept else "."


def _lca(paths: list[str]) -> str:
    return os.path.commonpath([os.path.abspath(p) for p in paths])


def upload(workspace: Path, path_input: str) -> dict[str, bytes]:
    """The files of an artifact, by their path inside it, from the step's `path:` input."""
    lines = [line.strip() for line in path_input.splitlines() if line.strip()]
    includes = [line for line in lines if not line.startswith("!")]
    excludes = [line[1:] for line in lines if line.startswith("!")]
    cwd = os.getcwd()
    os.chdir(workspace)
    try:
        found: list[str] = []
        for pattern in includes:
            for match in sorted(glob.glob(pattern.rstrip("/") or ".", recursive=True)):
                if os.path.isdir(match):
                    found.extend(str(p) for p in sorted(Path(match).rglob("*")) if p.is_file())
                elif os.path.isfile(match):
                    found.append(match)
        search_paths = [_search_path(p.rstrip("/")) for p in includes]
        if len(search_paths) > 1:
            root = _lca(search_paths)
        elif len(found) == 1 and os.path.normpath(search_paths[0]) == os.path.normpath(found[0]):
            root = os.path.abspath(os.path.dirname(found[0]))
        else:
            root = os.path.abspath(search_paths[0])
        files: dict[str, bytes] = {}
        for name in found:
            rel = os.path.relpath(os.path.abspath(name), root)
            if any(part.startswith(".") for part in Path(rel).parts):
                continue  # hidden files are not uploaded by default
            if any(fnmatch.fnmatch(name, ex) or fnmatch.fnmatch(name, ex.rstrip("/") + "/*") for ex in excludes):
                continue
            files[rel] = Path(name).read_bytes()
        return files
    finally:
        os.chdir(cwd)


def download(workspace: Path, artifacts: dict[str, dict[str, bytes]], *, path: str = ".", name: str | None = None,
             pattern: str | None = None, merge_multiple: bool = False) -> None:
    """Extract artifacts into the workspace as download-artifact@v4 does."""
    target = workspace / path
    chosen = {name: artifacts[name]} if name else {
        n: files for n, files in artifacts.items() if pattern is None or fnmatch.fnmatchcase(n, pattern)}
    for artifact, files in chosen.items():
        into = target if (name or merge_multiple) else target / artifact
        for rel, data in files.items():
            dest = into / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)


def copy_checkout(src: Path, dest: Path, parts: tuple[str, ...] = ("suites", "prompts", "fixtures")) -> Path:
    """A fresh job's checkout: the project's committed folders only."""
    dest.mkdir(parents=True)
    for part in parts:
        if (src / part).exists():
            shutil.copytree(src / part, dest / part)
    return dest
