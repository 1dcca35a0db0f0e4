"""YAML loading that remembers where each value came from, so errors can name the line.

Every user YAML file (suites, gold files, prompt templates) is loaded here, and a hostile one
must end as one InputError, never a hang or a crash. The nesting depth is bounded on the text
before any parser reads it (harness.yaml_depth: libyaml reads ahead, and stops deep flow nesting
with a limit and wording of its own). Values are built in one linear pass over the parser's events
(libyaml's where it is there), without PyYAML's node tree, and the same pass bounds the nesting
depth again (PyYAML composes recursively: deep nesting raises RecursionError, and libyaml's
composer can overflow the C stack) and the number of values *after* alias expansion (nine levels
of nine aliases expand to 387 million) before building what crosses them.
Recursive aliases are refused, and a tagged scalar that does not construct (`!!int abc`) is an
error naming its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import yaml

from .errors import InputError
from .inputfiles import MAX_INPUT_BYTES, read_text
from .yaml_depth import line_deeper_than

Location = tuple[str | int, ...]

# Deepest nesting of mappings and sequences in a user YAML file (suites nest about 6 levels).
MAX_YAML_DEPTH = 64
# Most values a YAML file may stand for, counting every value an alias repeats (nine levels of nine
# aliases stand for 387 million). A copying load builds each of them, and its line.
MAX_YAML_NODES = 1_000_000
# A shared load (parse_yaml(shared=True): suites) builds an anchored value once, however many
# aliases repeat it; repeats cost only their validation. It may stand for MAX_YAML_NODES values or
# this many per character of its text, if more: growth linear in the file size (itself bounded,
# MAX_INPUT_BYTES), where an alias bomb grows exponentially. Written out, a value takes at least
# two characters (`a,`). A 20,000-case suite whose cases refer to one anchored gold of 99 values is
# about 2.1 million values in 1 to 2 MB of text.
MAX_SHARED_YAML_NODES_PER_CHAR = 4

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_LIBYAML = _Base is not yaml.SafeLoader
_STR_TAG = "tag:yaml.org,2002:str"


class _LineLoader(_Base):  # type: ignore[misc, valid-type]
    """The safe loader (never constructs Python objects, C-accelerated where libyaml is there);
    we build values from its events ourselves to record the line of every value."""


def node_limit(text: str, *, shared: bool = False) -> int:
    """Most values (aliases expanded) a YAML text may stand for, in a shared or a copying load."""
    return max(MAX_YAML_NODES, MAX_SHARED_YAML_NODES_PER_CHAR * len(text)) if shared else MAX_YAML_NODES


class AliasedLines:
    """The lines of a document whose aliases share their anchor's value (`parse_yaml(shared=True)`).

    Holds the line of every written value and, per alias, the location of its anchor, so the lines
    below an alias are looked up under the anchor instead of being copied once per alias: the same
    answers as the dict a copying load returns, in memory proportional to the text.
    """

    def __init__(self) -> None:
        self.direct: dict[Location, int] = {}
        self.links: dict[Location, Location] = {}  # alias location -> its anchor's location

    def _find(self, loc: Location) -> int | None:
        while True:
            line = self.direct.get(loc)
            if line is not None or not self.links:
                return line
            for end in range(len(loc) - 1, 0, -1):
                anchor = self.links.get(loc[:end])
                if anchor is not None:
                    loc = anchor + loc[end:]
                    break
            else:
                return None

    def __contains__(self, loc: object) -> bool:
        return isinstance(loc, tuple) and self._find(loc) is not None

    def __getitem__(self, loc: Location) -> int:
        line = self._find(loc)
        if line is None:
            raise KeyError(loc)
        return line

    def get(self, loc: Location, default: int | None = None) -> int | None:
        line = self._find(loc)
        return default if line is None else line


LineMap = dict[Location, int] | AliasedLines


class _ConstructError(Exception):
    """A scalar that cannot be built: carries the error the reader records (and raises once the
    rest of the stream is known to be in bounds and free of composer errors)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


_MERGE_TAG = "tag:yaml.org,2002:merge"


class _MergeKey:
    """The key `<<` of a YAML merge (`<<: *base`, `<<: [*a, *b]`) while its value is read: the
    value's lines are recorded under it (each `<<` of a mapping its own), then moved to the keys it
    gives when the mapping ends, and dropped from the lines of a copying load."""

    __slots__ = ("line",)

    def __init__(self, line: int) -> None:
        self.line = line

    def __repr__(self) -> str:
        return "<<"


def _first_line(event: yaml.Event) -> int:
    """The 1-based line an event starts on (the parser gives every event its marks)."""
    mark = event.start_mark
    assert mark is not None
    return mark.line + 1


class _Collection:
    """A mapping or sequence being read: its value, location, and the key awaiting its value;
    for a mapping, what its merges (`<<`) give it, applied when it ends."""

    __slots__ = ("value", "path", "key", "awaiting_key", "merges")

    def __init__(self, value: dict | list, path: Location) -> None:
        self.value = value
        self.path = path
        self.key: Any = None
        self.awaiting_key = isinstance(value, dict)
        self.merges: list[tuple[dict, Location]] = []  # (mapping, where its lines are), in PyYAML's order


class _DocumentReader:
    """Builds one document from parser events, in one pass and without a node tree.

    In the same pass it bounds the nesting depth and the number of values once aliases expand,
    each event checked before its value is built, so a hostile file costs at most the bounds (an
    alias is copied only when its expansion fits). Errors come in
    the order PyYAML's compose-then-construct would give them: a parser or bounds error wherever it
    is, else the first composer error (undefined alias, duplicate anchor, second document), else
    the first value that cannot be built (bad tagged scalar, bad or duplicate key).
    """

    def __init__(self, loader: _LineLoader, text: str, shared: bool) -> None:
        self.loader = loader
        self.limit = node_limit(text, shared=shared)
        self.aliased = AliasedLines() if shared else None  # the lines of a shared load
        self.direct: dict[Location, int] = self.aliased.direct if self.aliased is not None else {}
        self.anchor_marks: dict[str, yaml.Mark] = {}  # anchor -> where it is first defined
        # anchor -> (value, location, line, whether it is a scalar), while values are built
        self.anchors: dict[str, tuple[Any, Location, int, bool]] = {}
        self.composer_error: yaml.YAMLError | None = None
        self.construct_error: Exception | None = None
        self.result: Any = None
        self.merges = False  # a merge key was read: its lines are dropped at the end of a copying load

    def read(self) -> tuple[Any, LineMap]:
        loader = self.loader
        get_event = loader.get_event
        sizes: dict[str, int] = {}  # anchor -> expanded value count of the finished node
        open_anchors: list[str | None] = []  # anchors of the collections being read
        counts: list[int] = []  # expanded value count so far of each open collection
        stack: list[_Collection] = []
        total = 0
        limit = self.limit
        documents = 0
        composing = True  # false after a composer error: only the bounds are checked
        building = True  # false after a composer or construction error
        while True:
            event = get_event()
            kind = type(event)
            if kind is yaml.ScalarEvent or kind is yaml.AliasEvent:
                line = event.start_mark.line + 1
                if kind is yaml.AliasEvent:
                    if event.anchor in open_anchors:
                        raise InputError(f"line {line}: alias *{event.anchor} refers to a node that contains it")
                    added = sizes.get(event.anchor, 1)  # an unknown anchor is a composer error below
                else:
                    added = 1
                    if event.anchor:
                        sizes[event.anchor] = 1
                total += added
                if counts:
                    counts[-1] += added
                if total > limit:
                    raise InputError(f"line {line}: more than {limit} values once aliases are expanded")
                if composing:
                    composing = self._compose(event, kind is yaml.AliasEvent)
                    building = building and composing and self._value(event, kind is yaml.AliasEvent, stack)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                line = event.start_mark.line + 1
                if len(counts) >= MAX_YAML_DEPTH:
                    raise InputError(f"line {line}: nested deeper than {MAX_YAML_DEPTH} levels")
                open_anchors.append(event.anchor)
                counts.append(1)
                total += 1
                if total > limit:
                    raise InputError(f"line {line}: more than {limit} values once aliases are expanded")
                if composing:
                    composing = self._compose(event, False)
                    building = building and composing and self._start(event, kind is yaml.MappingStartEvent, stack)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                anchor, size = open_anchors.pop(), counts.pop()
                if anchor:
                    sizes[anchor] = size
                if counts:
                    counts[-1] += size
                if building:
                    building = self._end(stack)
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents == 2 and composing:
                    self.composer_error = yaml.composer.ComposerError(
                        "expected a single document in the stream", None, "but found another document", event.start_mark)
                    composing = building = False
            elif kind is yaml.StreamEndEvent:
                break
        if self.composer_error is not None:
            raise self.composer_error
        if self.construct_error is not None:
            raise self.construct_error
        if self.aliased is not None:
            return self.result, self.aliased
        if self.merges:  # the lines recorded under a `<<` were moved to the keys it gave
            self.direct = {loc: line for loc, line in self.direct.items()
                           if not any(isinstance(part, _MergeKey) for part in loc)}
        return self.result, self.direct

    def _compose(self, event: Any, alias: bool) -> bool:
        """What composing the node tree checks: aliases name an anchor defined before, and no
        anchor is defined twice. False (after recording the error) when the check fails."""
        anchor = event.anchor
        if alias:
            if anchor in self.anchor_marks:
                return True
            problem = "found undefined alias" if _LIBYAML else f"found undefined alias {anchor!r}"
            self.composer_error = yaml.composer.ComposerError(None, None, problem, event.start_mark)
            return False
        if anchor is None:
            return True
        if anchor in self.anchor_marks:
            context = "found duplicate anchor; first occurrence" if _LIBYAML else f"found duplicate anchor {anchor!r}; first occurrence"
            self.composer_error = yaml.composer.ComposerError(context, self.anchor_marks[anchor], "second occurrence",
                                                              event.start_mark)
            return False
        self.anchor_marks[anchor] = event.start_mark
        return True

    def _fail(self, error: Exception) -> bool:
        """Record a value that cannot be built; the caller stops building."""
        self.construct_error = error
        return False

    def _place(self, stack: list[_Collection], line: int) -> Location:
        """The location of the value about to be read, recording its line (callers have handled a
        key: a key has no location of its own)."""
        if not stack:
            self.direct[()] = line
            return ()
        parent = stack[-1]
        if isinstance(parent.value, list):
            path = (*parent.path, len(parent.value))
        else:
            path = (*parent.path, parent.key)
        self.direct[path] = line
        return path

    def _store(self, stack: list[_Collection], value: Any) -> bool:
        """Put a finished value in its place; False once a merge's value cannot be merged."""
        if not stack:
            self.result = value
            return True
        parent = stack[-1]
        if isinstance(parent.value, list):
            parent.value.append(value)
            return True
        parent.awaiting_key = True
        if isinstance(parent.key, _MergeKey):
            return self._add_merge(parent, value)
        parent.value[parent.key] = value
        return True

    def _add_merge(self, parent: _Collection, value: Any) -> bool:
        """A `<<: VALUE` of `parent`: a mapping, or a list of them."""
        where = (*parent.path, parent.key)
        if isinstance(value, dict):
            parent.merges.append((value, where))
            return True
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            parent.merges.extend((item, (*where, index)) for index, item in enumerate(value))
            return True
        return self._fail(InputError(f"line {parent.key.line}: a merge (<<) takes a mapping or a list of mappings"))

    def _apply_merges(self, collection: _Collection) -> None:
        """YAML's merge keys (yaml.org/type/merge.html), as PyYAML applies them: the keys merged come
        first, in the order the merges give them, then the keys written in the mapping. A key written
        in the mapping wins over a merged one; of two merges (two `<<`, or a list `<<: [*a, *b]`)
        the earlier wins. A merged key's lines are those of the mapping it came from."""
        mapping, path = collection.value, collection.path
        written = dict(mapping)
        winners: dict[Any, tuple[Any, Location | None]] = {}
        for source, where in collection.merges:
            for key, item in source.items():
                if key not in winners:
                    winners[key] = (item, (*where, key))
        for key, item in written.items():
            winners[key] = (item, None)
        mapping.clear()
        for key, (item, origin) in winners.items():
            mapping[key] = item
            if origin is not None:
                self._reline(item, origin, (*path, key))

    def _reline(self, value: Any, source: Location, target: Location) -> None:
        """Give `target` (and what lies below it) the lines of `source`."""
        if self.aliased is not None:  # a shared load: a link, as for an alias
            line = self.aliased.get(source)
            if line is not None:
                self.direct[target] = line
            self.aliased.links[target] = source
            return
        direct = self.direct
        direct[target] = direct[source]
        if isinstance(value, dict):
            for key, item in value.items():
                self._reline(item, (*source, key), (*target, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self._reline(item, (*source, index), (*target, index))

    def _key(self, parent: _Collection, key: Any, line: int, scalar: bool) -> bool:
        """Accept a mapping key; False (after recording the error) when it is not a usable one."""
        if not scalar:
            return self._fail(InputError(f"line {line}: a mapping key must be a plain value"))
        try:
            hash(key)
        except TypeError:
            return self._fail(InputError(f"line {line}: a mapping key must be a plain value"))
        if key in parent.value:
            return self._fail(InputError(f"line {line}: duplicate key '{shown_key(key)}'"))
        parent.key, parent.awaiting_key = key, False
        return True

    def _value(self, event: Any, alias: bool, stack: list[_Collection]) -> bool:
        """Build a scalar or an alias as a key or a value; False once a value cannot be built."""
        if alias:
            value, anchor_path, line, scalar = self.anchors[event.anchor]
        else:
            line = event.start_mark.line + 1
            scalar = True
            if stack and stack[-1].awaiting_key and self._is_merge(event):
                stack[-1].key, stack[-1].awaiting_key = _MergeKey(line), False
                self.merges = True
                return True
            try:
                value = self._scalar(event)
            except _ConstructError as exc:
                return self._fail(exc.error)
        if stack and stack[-1].awaiting_key:
            if not self._key(stack[-1], value, line, scalar):
                return False
            if not alias and event.anchor is not None:
                self.anchors[event.anchor] = (value, (), line, True)
            return True
        path = self._place(stack, line)
        if alias and not scalar:
            if self.aliased is not None:
                self.aliased.links[path] = anchor_path
            else:
                value = self._copy(value, anchor_path, path)
        if not alias and event.anchor is not None:
            self.anchors[event.anchor] = (value, path, line, True)
        return self._store(stack, value)

    def _copy(self, value: Any, source: Location, target: Location) -> Any:
        """A fresh copy of an anchored collection, with the lines of its values copied too."""
        direct = self.direct
        if isinstance(value, dict):
            copied: dict[Any, Any] = {}
            for key, item in value.items():
                direct[(*target, key)] = direct[(*source, key)]
                copied[key] = self._copy(item, (*source, key), (*target, key))
            return copied
        if isinstance(value, list):
            items = []
            for index, item in enumerate(value):
                direct[(*target, index)] = direct[(*source, index)]
                items.append(self._copy(item, (*source, index), (*target, index)))
            return items
        return value

    def _is_merge(self, event: yaml.ScalarEvent) -> bool:
        """Whether a mapping key is YAML's merge key: a plain `<<` (or one tagged !!merge)."""
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        return tag == _MERGE_TAG

    def _scalar(self, event: yaml.ScalarEvent) -> Any:
        """A plain value; a tagged scalar that cannot be what its tag says is an InputError."""
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _STR_TAG:
            return event.value
        # the marks of PyYAML's pure or C parser (the stubs name only the pure one's Mark)
        node = yaml.ScalarNode(tag, event.value, cast("yaml.Mark | None", event.start_mark),
                               cast("yaml.Mark | None", event.end_mark), style=event.style)
        loader = self.loader
        try:
            return loader.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise _ConstructError(exc) from None
        except (ValueError, TypeError, AttributeError, OverflowError, IndexError, KeyError):
            shown = event.value[:40] if isinstance(event.value, str) else "this value"
            message = f"line {_first_line(event)}: '{shown}' is not a valid {tag.rsplit(':', 1)[-1]}"
            raise _ConstructError(InputError(message)) from None
        finally:
            loader.constructed_objects.pop(node, None)

    def _start(self, event: yaml.CollectionStartEvent, mapping: bool, stack: list[_Collection]) -> bool:
        """Open a mapping or sequence; False when it stands where a key must be."""
        line = _first_line(event)
        if stack and stack[-1].awaiting_key:
            # recorded, not raised: a composer error further on comes first, as when composing first
            return self._fail(InputError(f"line {line}: a mapping key must be a plain value"))
        path = self._place(stack, line)
        collection = _Collection({} if mapping else [], path)
        if event.anchor is not None:
            self.anchors[event.anchor] = (collection.value, path, line, False)
        stack.append(collection)
        return True

    def _end(self, stack: list[_Collection]) -> bool:
        collection = stack.pop()
        if collection.merges:
            self._apply_merges(collection)
        return self._store(stack, collection.value)


def load_yaml(path: Path, *, shared: bool = False) -> tuple[Any, LineMap]:
    """Load one YAML document; return the data and a map from location to 1-based line.

    Raises InputError naming the file and line on any syntax error, on a file that is not a
    regular file of at most MAX_INPUT_BYTES, and on documents beyond the depth and size limits.
    `shared`: see parse_yaml.
    """
    text = read_text(path, limit=MAX_INPUT_BYTES, what="YAML file")
    return parse_yaml(text, str(path), shared=shared)


def parse_yaml(text: str, name: str, *, shared: bool = False) -> tuple[Any, LineMap]:
    """Parse one YAML document (see load_yaml).

    By default every alias is a fresh copy of its anchor's value, and the lines are a dict. With
    `shared`, an alias is its anchor's value itself (the caller must not change the data in place)
    and the lines an AliasedLines: a suite whose 20,000 cases refer to one anchored gold then holds
    that gold once while loading, instead of 20,000 copies.
    """
    # The harness's own bound, on the text, before any parser: libyaml reads ahead, and stops deep
    # flow nesting with its own error before the events below reach the limit.
    too_deep = line_deeper_than(text, MAX_YAML_DEPTH)
    if too_deep is not None:
        raise InputError(f"{name}:{too_deep}: nested deeper than {MAX_YAML_DEPTH} levels")
    loader = _LineLoader(text)
    try:
        return _DocumentReader(loader, text, shared).read()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}" if mark else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"{name}{where}: YAML error: {_one_line(problem)}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{name}: YAML error: {_one_line(str(exc))}") from None
    except InputError as exc:
        raise InputError(f"{name}:{exc.message.removeprefix('line ')}") from None
    except RecursionError:  # defence in depth: the depth is bounded before anything nests
        raise InputError(f"{name}: nested too deeply") from None
    finally:
        loader.dispose()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def line_of(lines: LineMap | Mapping[Location, int], loc: Location) -> int | None:
    """The line of the deepest known location on the way to `loc` (looked up, never copied: a
    template asks once per value)."""
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def shown_key(key: object) -> str:
    """A key as quoted in a one-line message: short, and without newlines or control characters."""
    text = str(key)
    if len(text) > 60:
        text = text[:40] + "..." + text[-10:]
    return text if text.isprintable() else repr(text)[1:-1]


def format_loc(loc: Location) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{shown_key(part)}" if out else shown_key(part))
    return out
