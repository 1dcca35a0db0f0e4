"""Paths kept inside their project folder: where the harness writes, and what an importer copies.

A project folder is often someone else's repository, cloned and run. A symbolic link planted in
it (`reports -> ~/.config`, `fixtures/cassettes/suite -> /etc`) must not let a run, a recording or
an import write outside; a prompt or input file of an imported project that resolves outside it
(`/home/me/.ssh/id_rsa`, `../../.env`) must not be copied into the suite's fixtures, which are
committed.

The rule for writes: once a path has entered a project folder (the working folder, or a folder
the caller names: the project of the suite being recorded), no symbolic link on the rest of its
way may lead out of every project folder, nor to nothing (a dangling link, a loop). Links that
stay inside are followed, however they climb (`reports -> ../shared/reports`); a path that never
enters a project folder (`--reports /tmp/runs`, named on the command line) is taken as named, and
a link that leads *into* the project is fine. Checking is done on the names as they are walked,
one at a time, as the system resolves them (never `..` removed by hand first).

For reads: a file an importer copies must resolve, links followed, inside the imported project.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .errors import InputError
from .inputfiles import shown_path


class LinkOutside(InputError):
    """A link on a path's way leads out of the project folder (or to nothing)."""


def real_roots(roots: Iterable[Path | str] = ()) -> tuple[str, ...]:
    """The real paths of the project folders: the working folder and `roots`."""
    return tuple(dict.fromkeys(os.path.realpath(r) for r in (os.getcwd(), *roots)))


def within(real: str, roots: tuple[str, ...]) -> bool:
    """Whether the real path `real` is one of `roots` or below one."""
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def check_folder(folder: Path | str, roots: Iterable[Path | str] = ()) -> None:
    """Raise LinkOutside when a link on the way to `folder` (the folder itself included) leads out
    of the project folder the way had entered, or to nothing. Names that do not exist yet end the
    walk: what is created below them is created as real folders."""
    given = os.fspath(folder)
    projects = real_roots(roots)
    if os.path.isabs(given):
        real, names = os.sep, Path(given).parts[1:]
    else:
        real, names = os.getcwd(), Path(given).parts
    walked = Path(real)
    for name in names:
        walked = walked / name
        if name in ("", "."):
            continue
        if name == "..":
            real = os.path.dirname(real) or os.sep
            continue
        candidate = os.path.join(real, name)
        try:
            info = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            return  # not there yet: made as a real folder (or refused by the system, in one line)
        if not stat.S_ISLNK(info.st_mode):
            real = candidate
            continue
        target = os.path.realpath(candidate)
        inside = within(real, projects)
        if not os.path.isdir(target):
            problem = "a file" if os.path.exists(target) else "nothing (a dangling link or a loop)"
            raise LinkOutside(f"{shown_path(given)}: {shown_path(_shown(walked, given))} is a link to {problem}, "
                              "not a folder the harness can write into (remove the link)")
        if inside and not within(target, projects):
            raise LinkOutside(f"{shown_path(given)}: {shown_path(_shown(walked, given))} is a link to "
                              f"{shown_path(target)}, outside the project folder "
                              f"{shown_path(next(r for r in projects if within(real, (r,))))}; the harness does not "
                              "write through it (remove the link, or name a folder outside the project yourself)")
        real = target


def _shown(walked: Path, given: str) -> str:
    """The link as the user's path names it: relative when the path was."""
    if os.path.isabs(given):
        return str(walked)
    try:
        return os.path.relpath(walked, os.getcwd())
    except ValueError:
        return str(walked)


def make_folder(folder: Path, roots: Iterable[Path | str] = ()) -> None:
    """`folder.mkdir(parents=True, exist_ok=True)` after `check_folder`."""
    check_folder(folder, roots)
    folder.mkdir(parents=True, exist_ok=True)


def open_no_follow(path: Path, flags: int, mode: int = 0o644, roots: Iterable[Path | str] = ()) -> int:
    """`os.open(path, flags)` in a checked folder, refusing a link as the file itself (O_NOFOLLOW):
    a lock or an appended log opened through a planted link would create or grow its target."""
    check_folder(path.parent, roots)
    try:
        return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as exc:
        if path.is_symlink():
            raise LinkOutside(f"{shown_path(path)}: is a link; the harness does not write through links "
                              "(remove it)") from None
        raise


def resolves_inside(path: Path, root: Path) -> bool:
    """Whether `path` resolves, links followed, inside the folder `root` (itself resolved)."""
    return within(os.path.realpath(path), (os.path.realpath(root),))


def check_source(path: Path, root: Path, what: str) -> None:
    """Raise InputError when the file `path` an importer would copy resolves outside the project `root`."""
    if not resolves_inside(path, root):
        raise InputError(f"{shown_path(path)}: the {what} resolves to {shown_path(os.path.realpath(path))}, outside the "
                         f"project {shown_path(root)}; the importer copies nothing from outside the project it imports "
                         "(copy the file into the project)")
