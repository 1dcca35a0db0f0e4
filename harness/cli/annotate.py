"""`harness annotate SUITE`: propose gold from a run (`--from`), write the review page
(`--review`), apply a reviewed file (`--apply`), compare two reviewers (`--agreement`).
docs/annotate.md is the user's page; each step lives in its own module of harness/annotate/."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..errors import InputError
from .options import CaseOpt

if TYPE_CHECKING:
    from ..annotate.gold_file import GoldSideFile
    from ..runfolder import RunData
    from ..suites import Suite

FromOpt = Annotated[Optional[list[Path]], typer.Option("--from", help="Run folder whose answers are proposed as gold (repeatable: the runs' answers are merged into one proposal per case; with --apply: the runs re-scored against the reviewed gold).")]
VariantOpt = Annotated[Optional[list[str]], typer.Option("--variant", help="Only these variants' answers (repeatable; default: every variant of the run).")]
RefreshOpt = Annotated[bool, typer.Option("--refresh", help="Propose also for cases whose gold is the suite's own (they become pending, out of gold metrics, until reviewed; the suite file keeps their gold). Reviewed cases are never re-proposed.")]
ReviewOpt = Annotated[bool, typer.Option("--review", help="Write the review page of the pending proposals (one HTML file).")]
OutOpt = Annotated[Optional[Path], typer.Option("--out", help="Where --review writes the page (default: reports/annotate/<suite>.review.html).")]
ApplyOpt = Annotated[Optional[Path], typer.Option("--apply", help="Merge a reviewed gold file (the page's download) into the suite's gold.")]
AgreementOpt = Annotated[Optional[Path], typer.Option("--agreement", help="Entity and relationship F1 between the suite's gold and another reviewer's file.")]


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _side_path(suite: Suite) -> Path:
    from ..annotate.gold_file import side_file_name

    if suite.spec.gold_file:
        return suite.resolve(suite.spec.gold_file)
    return suite.path.parent / side_file_name(suite.path)


def _backup_path(side: Path) -> Path:
    """`podcast.gold.yaml.bak`, else the first free `.bak2`, `.bak3`, ...: an earlier backup is never overwritten."""
    candidate, number = side.with_name(side.name + ".bak"), 1
    while candidate.exists():
        number += 1
        candidate = side.with_name(f"{side.name}.bak{number}")
    return candidate


def _replaced_reviews(old: GoldSideFile, new: GoldSideFile) -> list[str]:
    """The reviewed cases of the side file `old` whose gold `new` changes or drops."""
    kept = {case.id: case for case in new.cases}
    return [case.id for case in old.cases if case.review == "done" and kept.get(case.id) != case]


def _write_gold(suite: Suite, gold: GoldSideFile) -> None:
    """The side file, and `gold_file:` appended to the suite when it has none; the suite must load
    after, otherwise both files are put back as they were. When the new file changes or drops a
    reviewed case, the old file is first copied to a backup, and the console says where."""
    from ..atomicfile import atomic_write
    from ..inputfiles import read_bytes
    from ..suites import load_suite
    from ..annotate.gold_file import write_gold_file

    side = _side_path(suite)
    roots = (suite.root,)  # no write through a link out of the suite's project (harness/confined.py)
    old_side = read_bytes(side, what="gold file") if side.exists() else None
    old_suite = read_bytes(suite.path, what="suite")
    replaced = _replaced_reviews(_read_side(suite), gold) if old_side is not None else []
    if replaced:
        backup = _backup_path(side)
        assert old_side is not None  # replaced reviews come only from an existing side file
        atomic_write(backup, old_side, roots=roots)
        typer.echo(f"reviewed gold replaced for {', '.join(replaced)}: the previous {side.name} is kept in {backup}")
    header = (f"# Gold of suite {suite.name}, kept by `harness annotate` (docs/annotate.md).\n"
              "# review: pending = proposed from a run, not gold until reviewed; done = reviewed.\n")
    write_gold_file(side, gold, header=header, roots=roots)
    if not suite.spec.gold_file:
        atomic_write(suite.path, with_gold_file(old_suite.decode("utf-8"), side.name), roots=roots)
    try:
        load_suite(suite.path, allow_outside_chunks=suite.allow_outside_files)
    except InputError:
        atomic_write(suite.path, old_suite, roots=roots)
        if old_side is None:
            side.unlink()
        else:
            atomic_write(side, old_side, roots=roots)
        raise


def with_gold_file(text: str, name: str) -> str:
    """The suite's text with `gold_file: NAME` added and nothing else changed: one line appended to
    a block mapping (comments and layout kept), or one more entry before the closing brace of a
    suite written in flow style (JSON), where a line after the brace would not be YAML."""
    import json

    import yaml

    end = None
    try:
        events = list(yaml.parse(text, Loader=yaml.SafeLoader))  # marks in characters (libyaml's may not be)
    except yaml.YAMLError:
        events = []
    starts = [e for e in events if isinstance(e, yaml.MappingStartEvent)]
    if starts and starts[0].flow_style:
        depth, keys = 0, 0
        for event in events:
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
                if depth == 0 and event.start_mark is not None:  # a parsed event always has its mark
                    end = event.start_mark.index
                    break
            elif depth == 1 and isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                keys += 1
    if end is not None:
        head = text[:end].rstrip()
        entry = f'{"," if keys and not head.endswith(",") else ""}\n "gold_file": {json.dumps(name)}\n'
        return head + entry + text[end:]
    line = f"gold_file: {name}  # gold kept by harness annotate\n"
    return text + ("" if text.endswith("\n") or not text else "\n") + line


def _run_reference(suite: Suite, run_dir: Path) -> str:
    """The run folder as the side file keeps it: relative to the project folder when inside it."""
    resolved, root = run_dir.resolve(), suite.root.resolve()
    return str(resolved.relative_to(root)) if resolved.is_relative_to(root) else str(resolved)


def _read_side(suite: Suite) -> GoldSideFile:
    """The suite's side file (named by `gold_file:`, else the default name beside the suite), refused
    when it is another suite's: its gold would be merged into this suite's and written back."""
    from ..annotate.gold_file import GoldSideFile, gold_file_problem, read_gold_file

    side = _side_path(suite)
    if not side.exists():
        return GoldSideFile(suite=suite.name)
    gold = read_gold_file(side)
    problem = gold_file_problem(gold, suite.name, [case.id for case in suite.cases])
    if problem is not None:
        raise InputError(f"{side}: {problem}")
    return gold


def _check_cases(suite: Suite, cases: list[str] | None) -> list[str]:
    ids = [case.id for case in suite.cases]
    unknown = [c for c in cases or [] if c not in ids]
    if unknown:
        raise InputError(f"--case: {', '.join(unknown)} not a case of suite '{suite.name}'")
    return [i for i in ids if not cases or i in cases]


def _load_runs(suite: Suite, run_paths: list[Path]) -> list[RunData]:
    """Each run given once (the same folder twice is one run), every one a run of this suite."""
    from ..runfolder import load_run

    runs: list[RunData] = []
    seen: set[Path] = set()
    for path in run_paths:
        run = load_run(path, need_summary=False)
        if run.suite_name != suite.name:
            raise InputError(f"{run.run_dir}: a run of suite '{run.suite_name}', not '{suite.name}'")
        if run.run_dir.resolve() not in seen:
            seen.add(run.run_dir.resolve())
            runs.append(run)
    return runs


def _run_names(suite: Suite, runs: list[RunData]) -> list[str]:
    """A short name per run for `found_by`: its folder's name, or its path when two share a name."""
    names = [run.run_dir.name for run in runs]
    return [name if names.count(name) == 1 else _run_reference(suite, run.run_dir) for name, run in zip(names, runs)]


def propose(suite: Suite, run_paths: list[Path], variants: list[str] | None, cases: list[str] | None, refresh: bool) -> None:
    from ..annotate.gold_file import ProposedFrom
    from ..annotate.proposals import graphs_of_runs, propose_case
    from ..kinds.registry import get_kind

    if "entities" not in get_kind(suite.spec.kind).gold:  # a kind whose cases take entity/relationship gold
        raise InputError(f"{suite.path}: annotate proposes extraction gold; suite '{suite.name}' is a {suite.spec.kind} suite")
    runs = _load_runs(suite, run_paths)
    present = [v for v in suite.variant_names() if any(row.variant == v for run in runs for row in run.rows)]
    unknown = [v for v in variants or [] if v not in present]
    if unknown:
        given = ("run " if len(runs) == 1 else "runs ") + ", ".join(str(run.run_dir) for run in runs)
        held = "it has" if len(runs) == 1 else "they have"
        raise InputError(f"--variant: {', '.join(unknown)} not in {given} ({held} {', '.join(present) or 'none'})")
    chosen = variants or present
    wanted = _check_cases(suite, cases)
    graphs = graphs_of_runs([(name, run.rows) for name, run in zip(_run_names(suite, runs), runs)], chosen)
    side = _read_side(suite)
    proposed, skipped_gold, reviewed, no_answer = [], [], [], []
    for case in suite.cases:
        if case.id not in wanted:
            continue
        if case.review == "done":  # reviewed work is never replaced by a proposal, --refresh or not
            reviewed.append(case.id)
            continue
        if (case.has_entity_gold or case.has_relationship_gold) and not refresh:
            skipped_gold.append(case.id)
            continue
        if case.id not in graphs:
            no_answer.append(case.id)
            continue
        proposal = propose_case(case, graphs[case.id], suite.spec.matching)
        proposed.append(proposal)
        ents = proposal.case.entities
        typer.echo(f"{case.id}: {len(ents)} entities ({sum(1 for e in ents if e.grounded)} grounded), "
                   f"{len(proposal.case.relationships)} relationships"
                   + (f"; left out: {proposal.dangling} with an undeclared endpoint" if proposal.dangling else "")
                   + (f", {proposal.self_loops} self-loops" if proposal.self_loops else ""))
    by_id = {case.id: case for case in side.cases}
    by_id.update({p.case.id: p.case for p in proposed})
    order = [case.id for case in suite.cases]
    references = [_run_reference(suite, run.run_dir) for run in runs]
    gold = side.model_copy(update={
        "suite": suite.name,
        "proposed_from": ProposedFrom(run=references[0], other_runs=references[1:] or None, variants=chosen, sample=0),
        "cases": [by_id[i] for i in order if i in by_id]})
    if proposed:
        _write_gold(suite, gold)
    if reviewed:
        typer.echo(f"kept as reviewed (a reviewed case is never re-proposed; --apply a new review to change it): "
                   f"{', '.join(reviewed)}")
    if skipped_gold:
        typer.echo(f"left alone (they have gold; --refresh to propose anyway): {', '.join(skipped_gold)}")
    if no_answer:
        typer.echo(f"no answer in the run (or an error row): {', '.join(no_answer)}")
    source = "" if len(runs) == 1 else f" of {len(runs)} runs"
    typer.echo(f"{len(proposed)} case(s) proposed from {', '.join(chosen)}{source} (sample 0) into {_side_path(suite)}: "
               "review: pending, excluded from gold metrics until reviewed. Next: harness annotate "
               f"{suite.path} --review")


def review_page(suite: Suite, out: Path | None, cases: list[str] | None) -> Path:
    import time

    from ..atomicfile import atomic_write
    from ..annotate.page import page_data, render_page

    wanted = set(_check_cases(suite, cases))
    side = _read_side(suite)
    proposals = {c.id: c for c in side.cases if c.review == "pending" and c.id in wanted}
    if not proposals:
        raise InputError(f"{suite.path}: no case pending review (propose first: harness annotate {suite.path} --from RUN)")
    start = time.perf_counter()
    page = render_page(page_data(suite.name, suite.cases, proposals, suite.spec.entity_types))
    target = out or Path("reports") / "annotate" / f"{suite.name}.review.html"
    atomic_write(target, page)
    typer.echo(f"review page of {len(proposals)} case(s): {target} ({len(page) / 1e6:.1f} MB, "
               f"{time.perf_counter() - start:.2f} s); open it in a browser, then --apply the download")
    return target


def apply(suite: Suite, reviewed_path: Path, run_paths: list[Path]) -> None:
    from ..runfolder import read_rows, run_dir_of
    from ..suites import load_suite
    from ..annotate.apply import merged, read_reviewed, recall_against, reviewed_cases

    reviewed = read_reviewed(reviewed_path)
    if reviewed.suite is not None and reviewed.suite != suite.name:
        raise InputError(f"{reviewed_path}: reviewed gold of suite '{reviewed.suite}', not '{suite.name}'")
    done = reviewed_cases(reviewed, [case.id for case in suite.cases], reviewed_path)
    if not done:
        raise InputError(f"{reviewed_path}: no case in the reviewed file")
    side = _read_side(suite)
    _write_gold(suite, merged(side, done, [case.id for case in suite.cases]).model_copy(update={"suite": suite.name}))
    fresh = load_suite(suite.path, allow_outside_chunks=suite.allow_outside_files)
    pending = sum(1 for case in fresh.cases if case.pending)
    typer.echo(f"{len(done)} case(s) reviewed into {_side_path(fresh)}; {pending} case(s) still pending")
    proposed_from = side.proposed_from
    kept = ([suite.root / run for run in [proposed_from.run, *(proposed_from.other_runs or [])] if run]
            if proposed_from is not None else [])
    runs_given = [run for run in (run_paths or kept) if run.exists()]
    if not runs_given:
        typer.echo(f"recall against the reviewed gold: give the run with --from RUN, or run: harness run {suite.path}")
        return
    ids = {case.id for case in done}
    gold = [case for case in fresh.cases if case.id in ids]
    for run_given in runs_given:
        rows = read_rows(run_dir_of(run_given))
        variants = [v for v in fresh.variant_names() if any(row.variant == v for row in rows)]
        typer.echo(f"each variant of {run_given} against the reviewed gold of {len(gold)} case(s) (micro):")
        for line in recall_against(gold, rows, variants, fresh.spec.matching, fresh.spec.ontology):
            typer.echo(f"  {line.variant}: entity recall {_fmt(line.entity_recall)}, precision {_fmt(line.entity_precision)}; "
                       f"relationship recall {_fmt(line.relationship_recall)}, precision {_fmt(line.relationship_precision)} "
                       f"({line.cases} case(s))")


def agreement_report(suite: Suite, other_path: Path) -> None:
    from ..annotate.agreement import agreement
    from ..annotate.apply import read_reviewed

    other = read_reviewed(other_path)
    result = agreement(suite.cases, other.cases, suite.spec.matching)
    typer.echo(f"agreement of {other_path} with the gold of {suite.path} (F1, matched with the suite's matching):")
    for case in result.cases:
        typer.echo(f"  {case.case_id}: entities {_fmt(case.entity_f1)} ({case.entities[0]} shared of "
                   f"{case.entities[1]} / {case.entities[2]}), relationships {_fmt(case.relationship_f1)} "
                   f"({case.relationships[0]} shared of {case.relationships[1]} / {case.relationships[2]})")
    typer.echo(f"  overall ({len(result.cases)} case(s)): entities {_fmt(result.pooled('entities'))}, "
               f"relationships {_fmt(result.pooled('relationships'))}")
    if result.only_reference:
        typer.echo(f"  only in the suite's gold: {', '.join(result.only_reference)}")
    if result.only_other:
        typer.echo(f"  only in {other_path.name} (or without gold in the suite): {', '.join(result.only_other)}")


def annotate_command(
    suite_path: Annotated[Path, typer.Argument(help="The suite file.", show_default=False)],
    from_run: FromOpt = None,
    variant: VariantOpt = None,
    case: CaseOpt = None,
    refresh: RefreshOpt = False,
    review: ReviewOpt = False,
    out: OutOpt = None,
    apply_file: ApplyOpt = None,
    agreement_file: AgreementOpt = None,
) -> None:
    """Propose gold from a run, review it in a page, apply it, and measure reviewers' agreement."""
    from ..suites import load_suite

    if apply_file is not None and (agreement_file is not None or review or refresh):
        raise InputError("--apply goes alone (with --from RUN for the recall)")
    if agreement_file is not None and (from_run or review or refresh):
        raise InputError("--agreement goes alone")
    if not from_run and not review and apply_file is None and agreement_file is None:
        raise InputError("say what to do: --from RUN (propose), --review, --apply FILE or --agreement FILE")
    suite = load_suite(suite_path)
    if apply_file is not None:
        apply(suite, apply_file, from_run or [])
        return
    if agreement_file is not None:
        agreement_report(suite, agreement_file)
        return
    if from_run:
        propose(suite, from_run, variant, case, refresh)
        suite = load_suite(suite_path)
    if review:
        review_page(suite, out, case)
