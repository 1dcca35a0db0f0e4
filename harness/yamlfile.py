"""YAML loading that remembers where each value came from, so errors can name the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import InputError

Location = tuple[str | int, ...]


_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LineLoader(_Base):  # type: ignore[misc, valid-type]
    """The safe loader (never constructs Python objects, C-accelerated where libyaml is there);
    we compose nodes ourselves to record the line of every value."""


def _construct(loader: _LineLoader, node: yaml.Node, path: Location, lines: dict[Location, int]) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise InputError(f"line {key_node.start_mark.line + 1}: a mapping key must be a plain value")
            if key in result:
                raise InputError(f"line {key_node.start_mark.line + 1}: duplicate key '{key}'")
            result[key] = _construct(loader, value_node, (*path, key), lines)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_construct(loader, item, (*path, i), lines) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def load_yaml(path: Path) -> tuple[Any, dict[Location, int]]:
    """Load one YAML document; return the data and a map from location to 1-based line.

    Raises InputError naming the file and line on any syntax error.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from None
    return parse_yaml(text, str(path))


def parse_yaml(text: str, name: str) -> tuple[Any, dict[Location, int]]:
    loader = _LineLoader(text)
    lines: dict[Location, int] = {}
    try:
        node = loader.get_single_node()
        if node is None:
            return None, lines
        return _construct(loader, node, (), lines), lines
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}" if mark else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"{name}{where}: YAML error: {problem}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{name}: YAML error: {exc}") from None
    except InputError as exc:
        raise InputError(f"{name}:{exc.message.removeprefix('line ')}") from None
    finally:
        loader.dispose()


def line_of(lines: dict[Location, int], loc: Location) -> int | None:
    """The line of the deepest known location on the way to `loc`."""
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def format_loc(loc: Location) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
