"""GraphRAG's `input.file_pattern` matched without backtracking: work linear in the path.

A project's settings are input, not code. GraphRAG hands its `file_pattern` to Python's `re`, a
backtracking matcher: `.*/(a|aa)+$` against a file name of 40 `a`s and a `!` tries about 10^8
ways before it fails, and a longer name never ends (ReDoS). The harness must read the same files
with the same groups GraphRAG does, so it matches the same regular expressions, but by simulating
their automaton instead of backtracking through it (Thompson's construction, run as a Pike VM):

- the pattern is parsed by Python's own regex parser (`re._parser`, the one `re.compile` uses),
  so it means what it means to GraphRAG, and compiled to at most `MAX_STATES` instructions;
- matching keeps, at each character of the path, at most one thread per instruction (a second
  thread reaching an instruction already reached is dropped: it could only repeat the first's
  future), so a path of n characters costs at most n x `MAX_STATES` steps, whatever the pattern;
- threads are kept in priority order (greedy before lazy, left alternative before right, earlier
  start before later), so the match found, and its groups, are the ones `re` finds.

What cannot be run this way is refused with one line: back-references and look-arounds (they
need backtracking) and patterns larger than `MAX_STATES` (a bounded repeat such as `a{5000}` is
that many copies). GraphRAG's defaults (`.*\\.txt$`) and patterns naming folders and groups run
as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from re import error as RegexError
from typing import Any

MAX_STATES = 2_000

_I, _M, _S, _A = sre.SRE_FLAG_IGNORECASE, sre.SRE_FLAG_MULTILINE, sre.SRE_FLAG_DOTALL, sre.SRE_FLAG_ASCII


class PatternRefused(ValueError):
    """A pattern this matcher does not run (the message says why, in the harness's words)."""


# ----------------------------------------------------------------------------- characters

def _word(ch: str, ascii_only: bool) -> bool:
    return ch == "_" or (ch.isascii() and ch.isalnum()) if ascii_only else ch == "_" or ch.isalnum()


def _category(name: Any, ascii_only: bool) -> Callable[[str], bool]:
    tests: dict[Any, Callable[[str], bool]] = {
        sre.CATEGORY_DIGIT: (lambda c: "0" <= c <= "9") if ascii_only else str.isdecimal,
        sre.CATEGORY_SPACE: (lambda c: c in " \t\n\r\f\v") if ascii_only else str.isspace,
        sre.CATEGORY_WORD: lambda c: _word(c, ascii_only),
    }
    negated = {sre.CATEGORY_NOT_DIGIT: sre.CATEGORY_DIGIT, sre.CATEGORY_NOT_SPACE: sre.CATEGORY_SPACE,
               sre.CATEGORY_NOT_WORD: sre.CATEGORY_WORD}
    if name in tests:
        return tests[name]
    if name in negated:
        test = tests[negated[name]]
        return lambda c: not test(c)
    raise PatternRefused(f"a character class the harness does not know ({name})")


def _variants(ch: str, flags: int) -> tuple[str, ...]:
    return (ch, ch.lower(), ch.upper()) if flags & _I else (ch,)


def _literal(code: int, flags: int) -> Callable[[str], bool]:
    want = chr(code)
    if flags & _I:
        folded = want.lower()
        return lambda c: c == want or c.lower() == folded
    return lambda c: c == want


def _set(items: list[Any], flags: int) -> Callable[[str], bool]:
    """An `[...]` class: literals, ranges and categories, possibly negated."""
    negate = False
    chars: set[str] = set()
    ranges: list[tuple[int, int]] = []
    tests: list[Callable[[str], bool]] = []
    for op, arg in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            chars.add(chr(arg))
        elif op is sre.RANGE:
            ranges.append(arg)
        elif op is sre.CATEGORY:
            tests.append(_category(arg, bool(flags & _A)))
        else:
            raise PatternRefused(f"a character class the harness does not know ({op})")

    def inside(c: str) -> bool:
        for v in _variants(c, flags):
            if v in chars or any(lo <= ord(v) <= hi for lo, hi in ranges) or any(t(v) for t in tests):
                return True
        return False

    if flags & _I:
        chars |= {c.lower() for c in chars} | {c.upper() for c in chars}
    return (lambda c: not inside(c)) if negate else inside


# ----------------------------------------------------------------------------- the program

@dataclass
class _Inst:
    op: str  # "char", "split", "jmp", "save", "assert", "match"
    test: Callable[[str], bool] | None = None
    x: int = 0
    y: int = 0
    at: Any = None  # the assertion
    flags: int = 0


class _Compiler:
    def __init__(self) -> None:
        self.prog: list[_Inst] = []

    def emit(self, inst: _Inst) -> int:
        if len(self.prog) >= MAX_STATES:
            raise PatternRefused(f"it is too large to match safely (more than {MAX_STATES} steps; "
                                 "a bounded repeat such as {5000} counts its copies)")
        self.prog.append(inst)
        return len(self.prog) - 1

    def sequence(self, items: list[Any], flags: int) -> None:
        for op, arg in items:
            self.item(op, arg, flags)

    def item(self, op: Any, arg: Any, flags: int) -> None:
        if op is sre.LITERAL:
            self.emit(_Inst("char", _literal(arg, flags)))
        elif op is sre.NOT_LITERAL:
            same = _literal(arg, flags)
            self.emit(_Inst("char", lambda c: not same(c)))
        elif op is sre.ANY:
            self.emit(_Inst("char", (lambda c: True) if flags & _S else (lambda c: c != "\n")))
        elif op is sre.IN:
            self.emit(_Inst("char", _set(arg, flags)))
        elif op is sre.AT:
            self.emit(_Inst("assert", at=arg, flags=flags))
        elif op is sre.SUBPATTERN:
            group, add, remove, body = arg
            inner = (flags | add) & ~remove
            if group is not None:
                self.emit(_Inst("save", x=2 * group))
            self.sequence(body, inner)
            if group is not None:
                self.emit(_Inst("save", x=2 * group + 1))
        elif op is sre.BRANCH:
            self.branch(arg[1], flags)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            low, high, body = arg
            self.repeat(low, high, body, flags, greedy=op is sre.MAX_REPEAT)
        elif op in (sre.GROUPREF, sre.GROUPREF_EXISTS):
            raise PatternRefused("it refers back to a group (\\1, (?(1)...)), which needs backtracking")
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            raise PatternRefused("it looks ahead or behind ((?=...), (?!...), (?<=...)), which needs backtracking")
        else:  # atomic groups, possessive repeats, anything newer
            raise PatternRefused(f"it uses {str(op).lower()}, which the harness does not run")

    def branch(self, alternatives: list[list[Any]], flags: int) -> None:
        ends: list[int] = []
        for k, alternative in enumerate(alternatives):
            if k < len(alternatives) - 1:
                split = self.emit(_Inst("split"))
                self.prog[split].x = split + 1
                self.sequence(alternative, flags)
                ends.append(self.emit(_Inst("jmp")))
                self.prog[split].y = len(self.prog)
            else:
                self.sequence(alternative, flags)
        for end in ends:
            self.prog[end].x = len(self.prog)

    def repeat(self, low: int, high: int, body: list[Any], flags: int, *, greedy: bool) -> None:
        for _ in range(low):
            self.sequence(body, flags)
        if high == sre.MAXREPEAT:
            split = self.emit(_Inst("split"))
            self.sequence(body, flags)
            back = self.emit(_Inst("jmp", x=split, at="loop"))
            self.prog[back].y = len(self.prog)  # where an iteration that matched nothing goes
            self._choose(split, split + 1, len(self.prog), greedy)
            return
        splits: list[int] = []
        for _ in range(high - low):
            splits.append(self.emit(_Inst("split")))
            self.sequence(body, flags)
        for split in splits:
            self._choose(split, split + 1, len(self.prog), greedy)

    def _choose(self, split: int, more: int, done: int, greedy: bool) -> None:
        self.prog[split].x, self.prog[split].y = (more, done) if greedy else (done, more)


# ----------------------------------------------------------------------------- matching

class FileMatch:
    """What `re.Match` offers that the importers read: the groups by name."""

    def __init__(self, text: str, slots: tuple[int, ...], names: dict[str, int]) -> None:
        self._text, self._slots, self._names = text, slots, names

    def group(self, index: int = 0) -> str | None:
        start, end = self._slots[2 * index], self._slots[2 * index + 1]
        return None if start < 0 or end < 0 else self._text[start:end]

    def groupdict(self) -> dict[str, str | None]:
        return {name: self.group(index) for name, index in self._names.items()}


class FilePattern:
    """A compiled pattern: `match` (anchored at the start, GraphRAG 0.x-2.x) and `search` (3.x)."""

    def __init__(self, pattern: str) -> None:
        try:
            parsed = _parser.parse(pattern)
        except RegexError as exc:
            where = f" at position {exc.pos}" if exc.pos is not None else ""
            raise PatternRefused(f"not a regular expression (it does not parse{where})") from None
        except RecursionError:
            raise PatternRefused("nested too deeply to read") from None
        self.pattern = pattern
        self.names: dict[str, int] = dict(parsed.state.groupdict)
        self.groups: int = parsed.state.groups  # group 0 included
        compiler = _Compiler()
        compiler.emit(_Inst("save", x=0))
        try:
            compiler.sequence(list(parsed), parsed.state.flags)
        except RecursionError:
            raise PatternRefused("nested too deeply to read") from None
        compiler.emit(_Inst("save", x=1))
        compiler.emit(_Inst("match"))
        self.prog = compiler.prog

    def match(self, text: str) -> FileMatch | None:
        return self._run(text, anywhere=False)

    def search(self, text: str) -> FileMatch | None:
        return self._run(text, anywhere=True)

    def _holds(self, inst: _Inst, text: str, pos: int) -> bool:
        at, n = inst.at, len(text)
        if at in (sre.AT_BEGINNING, sre.AT_BEGINNING_LINE):
            return pos == 0 or bool(inst.flags & _M) and text[pos - 1] == "\n"
        if at == sre.AT_BEGINNING_STRING:
            return pos == 0
        if at in (sre.AT_END, sre.AT_END_LINE):
            if inst.flags & _M:
                return pos == n or text[pos] == "\n"
            return pos == n or (pos == n - 1 and text[pos] == "\n")
        if at == sre.AT_END_STRING:
            return pos == n
        if at in (sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY):
            ascii_only = bool(inst.flags & _A)
            before = pos > 0 and _word(text[pos - 1], ascii_only)
            after = pos < n and _word(text[pos], ascii_only)
            return (before != after) == (at == sre.AT_BOUNDARY)
        raise PatternRefused(f"an anchor the harness does not know ({at})")

    def _follow(self, out: list[tuple[int, tuple[int, ...]]], seen: set[int], pc: int, slots: tuple[int, ...],
                text: str, pos: int) -> None:
        """Add the thread at `pc` to `out`, following jumps, splits, saves and anchors in priority
        order; each instruction at most once per position (`seen`)."""
        stack = [(pc, slots)]
        while stack:
            pc, slots = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            inst = self.prog[pc]
            if inst.op == "jmp":
                # an iteration of a loop that matched nothing ends the loop, its groups kept, as in re
                stack.append((inst.y if inst.at == "loop" and inst.x in seen else inst.x, slots))
            elif inst.op == "split":
                stack.append((inst.y, slots))
                stack.append((inst.x, slots))  # popped first: the preferred way
            elif inst.op == "save":
                stack.append((pc + 1, slots[:inst.x] + (pos,) + slots[inst.x + 1:]))
            elif inst.op == "assert":
                if self._holds(inst, text, pos):
                    stack.append((pc + 1, slots))
            else:  # "char" and "match" wait for the step
                out.append((pc, slots))

    def _run(self, text: str, *, anywhere: bool) -> FileMatch | None:
        empty = (-1,) * (2 * self.groups)
        threads: list[tuple[int, tuple[int, ...]]] = []
        self._follow(threads, set(), 0, empty, text, 0)
        found: tuple[int, ...] | None = None
        pos = 0
        while True:
            following: list[tuple[int, tuple[int, ...]]] = []
            seen: set[int] = set()
            char = text[pos] if pos < len(text) else None
            for pc, slots in threads:
                inst = self.prog[pc]
                if inst.op == "match":
                    found = slots
                    break  # the threads after it have a lower priority
                if char is not None and inst.test is not None and inst.test(char):
                    self._follow(following, seen, pc + 1, slots, text, pos + 1)
            if char is None:
                break
            pos += 1
            if anywhere and found is None:  # a match starting here ranks after every earlier start
                self._follow(following, seen, 0, empty, text, pos)
            threads = following
            if not threads and (found is not None or not anywhere):
                break
        return None if found is None else FileMatch(text, found, self.names)


def compile_file_pattern(pattern: str) -> FilePattern:
    """`pattern` ready to match file paths safely; PatternRefused (its message says why) otherwise."""
    return FilePattern(pattern)
