"""Pinned inputs: two sides' input fingerprints compared (`InputsCheck`), and the sentences the
gate and `harness compare` say about them.

Gold that changed between a run and what it is compared with makes a regression verdict
meaningless (a case "fell" because its gold grew): `gold_refusal` is the one line that refuses it,
unless `--allow-changed-gold`. A side without fingerprints (a summary written before they were
recorded) is unknown: said so, never taken for unchanged, and not refused (an upgrade must not
fail every gate against a baseline accepted before).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .artifacts import InputFingerprints, InputPart, InputsCheck
from .fingerprint import METHOD

SHOWN = 5  # case ids or variants named in a sentence; the count says how many in all


def _part(pairs: Iterable[tuple[str, str | None, str | None]]) -> InputPart:
    """A part from (name, a's fingerprint, b's fingerprint): compared where both have one."""
    compared, changed = 0, []
    for name, a, b in pairs:
        if a is None or b is None:
            continue
        compared += 1
        if a != b:
            changed.append(name)
    return InputPart(status="changed" if changed else "same", compared=compared, changed=changed)


def _keyed(a: Mapping[str, str], b: Mapping[str, str]) -> InputPart:
    """Per case, in b's order, over the cases both sides have."""
    return _part((key, a.get(key), value) for key, value in b.items())


def _whole(a: str, b: str) -> InputPart:
    return InputPart(status="same" if a == b else "changed", compared=1)


def check_inputs(a: InputFingerprints | None, b: InputFingerprints | None, *, against: str,
                 names: tuple[str, str] = ("baseline", "run"),
                 prompt_pairs: list[tuple[str, str]] | None = None) -> InputsCheck:
    """b's inputs against a's (a is the reference: the baseline, or `harness compare`'s RUN_A).
    `prompt_pairs`: the (a variant, b variant) pairs whose prompts are compared (default: every
    variant both have, each with itself); a pair of two variants is named `va..vb`."""
    unknown = [name for name, side in zip(names, (a, b)) if side is None or side.method != METHOD]
    if unknown or a is None or b is None:
        blank = InputPart(status="unknown")
        return InputsCheck(against=against, unknown=unknown, suite=blank, ontology=blank, prompts=blank,
                           gold=blank, chunks=blank)
    if prompt_pairs is None:
        prompt_pairs = [(name, name) for name in b.prompts if name in a.prompts]
    prompts = _part((va if va == vb else f"{va}..{vb}", a.prompts.get(va), b.prompts.get(vb))
                    for va, vb in prompt_pairs)
    if not prompts.compared:
        prompts = InputPart(status="unknown")  # no pair has both prompts known: nothing was compared
    return InputsCheck(against=against, suite=_whole(a.suite, b.suite), ontology=_whole(a.ontology, b.ontology),
                       prompts=prompts, gold=_keyed(a.gold, b.gold), chunks=_keyed(a.chunks, b.chunks))


def named(items: list[str]) -> str:
    """"a, b, c" or "a, b, c, d, e and 7 more"."""
    shown = ", ".join(items[:SHOWN])
    return shown + (f" and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def _cases(part: InputPart, what: str) -> str:
    return f"{what} changed for {len(part.changed)} of {part.compared} case(s) ({named(part.changed)})"


def gold_changes(check: InputsCheck) -> str:
    """"gold changed for 2 of 12 case(s) (a, b)"."""
    return _cases(check.gold, "gold")


def inputs_line(check: InputsCheck) -> str:
    """One sentence on the inputs of the two sides (a note of the verdict, a line of `compare`)."""
    head = f"inputs against the {check.against}"
    if check.unknown:
        sides = " and ".join(check.unknown)
        return (f"{head}: unknown — the {sides} summary records no input fingerprints (written before "
                f"they were recorded), so a change of gold, chunks, prompts or ontology cannot be seen")
    changed = []
    if check.gold.status == "changed":
        changed.append(gold_changes(check))
    if check.chunks.status == "changed":
        changed.append(_cases(check.chunks, "chunks"))
    if check.prompts.status == "changed":
        changed.append(f"prompt changed: {named(check.prompts.changed)}")
    if check.ontology.status == "changed":
        changed.append("ontology changed")
    if check.suite.status == "changed":
        changed.append("suite settings changed")
    same = [name for name in ("suite", "ontology", "prompts", "gold", "chunks")
            if getattr(check, name).status == "same"]
    unknown = [name for name in ("prompts",) if getattr(check, name).status == "unknown"]
    parts = changed + ([f"unchanged: {', '.join(same)}"] if same else []) + (
        [f"unknown: {', '.join(unknown)} (not recorded on both sides)"] if unknown else [])
    return f"{head}: {'; '.join(parts)}"


def gold_refusal(check: InputsCheck, where: str, *, verdict: str = "regression verdict") -> str:
    """The one line that refuses a verdict across changed gold (bad input: exit 2)."""
    fix = ("accept a new baseline (`harness baseline update RUN`) or pass --allow-changed-gold"
           if check.against == "baseline" else "pass --allow-changed-gold to compare anyway")
    return (f"{where}: {gold_changes(check)} since the {check.against} was scored: no {verdict} across "
            f"changed gold; {fix}")


def allowed_warning(check: InputsCheck, *, verdict: str = "verdict") -> str:
    """What a verdict given across changed gold says (`--allow-changed-gold`)."""
    return (f"warning: {verdict} given across changed gold (--allow-changed-gold): {gold_changes(check)}; "
            f"their differences mix the change of gold with the change under test")


__all__ = ["SHOWN", "allowed_warning", "check_inputs", "gold_changes", "gold_refusal", "inputs_line", "named"]
