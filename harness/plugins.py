"""Plugins: suite kinds, output formats, metrics, providers and report sections from outside packages.

A package adds its own through Python entry points (docs/plugins.md), one group per registry:

    [project.entry-points."kg_prompt_harness.kinds"]      a `harness.kinds.spec.KindSpec`
    [project.entry-points."kg_prompt_harness.formats"]    an `OutputFormat` (instance or subclass)
    [project.entry-points."kg_prompt_harness.metrics"]    a `Metric` or `Count`, or a module whose import registers them
    [project.entry-points."kg_prompt_harness.providers"]  a `Provider` subclass
    [project.entry-points."kg_prompt_harness.report_sections"]  a `harness.reports.sections.ReportSection`

Each registry hands what an entry point names to the same registration function its built-ins
go through (`registry.register_kind`, `formats.register_format`, `metrics.registry.register_entry`,
`providers.registry.register_provider`, `reports.sections.register_plugin_section`). The built-ins call those functions directly rather than
through entry points: reading the installed packages' metadata costs about 50 ms, which light
commands (`parse`, `--help`) must not pay; a registry reads its group only when it is first asked
for the names it holds or for a name it does not know. This module imports no registry (each
registry imports it), so it sits below all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.metadata import EntryPoint, EntryPoints, entry_points
from typing import Protocol

from .errors import InputError

PREFIX = "kg_prompt_harness."
GROUPS = ("kinds", "formats", "metrics", "providers", "report_sections")

_loaded: set[str] = set()


class _Selectable(Protocol):
    """What `entry_points()` returns on every supported Python (SelectableGroups on 3.11)."""

    def select(self, *, group: str) -> EntryPoints: ...


@cache
def _all_entry_points() -> _Selectable:
    return entry_points()  # one scan of the installed packages' metadata for every group


def group_entry_points(group: str) -> tuple[EntryPoint, ...]:
    """The entry points of `kg_prompt_harness.<group>`, ordered by name (an order that does not
    depend on where packages are installed; registration order is listing order)."""
    if group not in GROUPS:
        raise ValueError(f"unknown plugin group {group!r}; expected one of {', '.join(GROUPS)}")
    return tuple(sorted(_all_entry_points().select(group=PREFIX + group), key=lambda ep: (ep.name, ep.value)))


def _where(ep: EntryPoint) -> str:
    dist = ep.dist.name if ep.dist is not None else "?"
    return f"plugin {dist}, entry point {ep.name} = {ep.value} ({PREFIX}{ep.group.removeprefix(PREFIX)})"


def load(group: str, register: Callable[[object], None]) -> None:
    """Hand every object the group's entry points name to `register`, once per process. A plugin
    that cannot be loaded or registered is one line naming it (InputError, exit 2)."""
    if group in _loaded:
        return
    _loaded.add(group)  # before loading: a plugin that asks the registry while loading must not recurse
    for ep in group_entry_points(group):
        try:
            found = ep.load()
        except Exception as exc:  # noqa: BLE001  a plugin's import can fail in any way; say which
            raise InputError(f"{_where(ep)}: cannot be loaded: {type(exc).__name__}: {exc}") from None
        try:
            register(found)
        except (TypeError, ValueError) as exc:
            raise InputError(f"{_where(ep)}: {exc}") from None


def loaded(group: str) -> bool:
    """Whether the group's plugins were loaded in this process."""
    return group in _loaded
