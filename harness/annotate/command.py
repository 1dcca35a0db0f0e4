"""`harness annotate SUITE`: propose gold from a run (`--from`), write the review page
(`--review`), apply a reviewed file (`--apply`), compare two reviewers (`--agreement`).
docs/annotate.md is the user's page; each step lives in its own module of this package."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import InputError

FromOpt = Annotated[Optional[Path], typer.Option("--from", help="Run folder whose answers are proposed as gold (with --apply: the run re-scored against the reviewed gold).")]
VariantOpt = Annotated[Optional[list[str]], typer.Option("--variant", help="Only these variants' answers (repeatable; default: every variant of the run).")]
CaseOpt = Annotated[Optional[list[str]], typer.Option("--case", help="Only these cases (repeatable).")]
RefreshOpt = Annotated[bool, typer.Option("--refresh", help="Propose for cases that already have gold too (they become pending, out of gold metrics, until reviewed).")]
ReviewOpt = Annotated[bool, typer.Option("--review", help="Write the review page of the pending proposals (one HTML file).")]
OutOpt = Annotated[Optional[Path], typer.Option("--out", help="Where --review writes the page (default: reports/annotate/<suite>.review.html).")]
ApplyOpt = Annotated[Optional[Path], typer.Option("--apply", help="Merge a reviewed gold file (the page's download) into the suite's gold.")]
AgreementOpt = Annotated[Optional[Path], typer.Option("--agreement", help="Entity and relationship F1 between the suite's gold and another reviewer's file.")]


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _side_path(suite) -> Path:
    from .gold_file import side_file_name

    if suite.spec.gold_file:
        return suite.resolve(suite.spec.gold_file)
    return suite.path.parent / side_file_name(suite.path)


def _write_gold(suite, gold) -> None:
    """The side file, and `gold_file:` appended to the suite when it has none; the suite must load
    after, otherwise both files are put back as they were."""
    from ..atomicfile import atomic_write
    from ..suites import load_suite
    from .gold_file import write_gold_file

    side = _side_path(suite)
    old_side = side.read_bytes() if side.exists() else None
    old_suite = suite.path.read_bytes()
    header = (f"# Gold of suite {suite.name}, kept by `harness annotate` (docs/annotate.md).\n"
              "# review: pending = proposed from a run, not gold until reviewed; done = reviewed.\n")
    write_gold_file(side, gold, header=header)
    if not suite.spec.gold_file:
        text = old_suite.decode("utf-8")
        line = f"gold_file: {side.name}  # gold kept by harness annotate\n"
        atomic_write(suite.path, text + ("" if text.endswith("\n") or not text else "\n") + line)
    try:
        load_suite(suite.path, allow_outside_chunks=suite.allow_outside_files)
    except InputError:
        atomic_write(suite.path, old_suite)
        if old_side is None:
            side.unlink()
        else:
            atomic_write(side, old_side)
        raise


def _run_reference(suite, run_dir: Path) -> str:
    """The run folder as the side file keeps it: relative to the project folder when inside it."""
    resolved, root = run_dir.resolve(), suite.root.resolve()
    return str(resolved.relative_to(root)) if resolved.is_relative_to(root) else str(resolved)


def _read_side(suite):
    from .gold_file import GoldSideFile, read_gold_file

    side = _side_path(suite)
    return read_gold_file(side) if side.exists() else GoldSideFile(suite=suite.name)


def _check_cases(suite, cases: list[str] | None) -> list[str]:
    ids = [case.id for case in suite.cases]
    unknown = [c for c in cases or [] if c not in ids]
    if unknown:
        raise InputError(f"--case: {', '.join(unknown)} not a case of suite '{suite.name}'")
    return [i for i in ids if not cases or i in cases]


def propose(suite, run_path: Path, variants: list[str] | None, cases: list[str] | None, refresh: bool) -> None:
    from ..runfolder import load_run
    from .gold_file import ProposedFrom
    from .proposals import graphs_by_case, propose_case

    if suite.spec.kind != "extract_graph":
        raise InputError(f"{suite.path}: annotate proposes extraction gold; suite '{suite.name}' is a {suite.spec.kind} suite")
    run = load_run(run_path, need_summary=False)
    if run.suite_name != suite.name:
        raise InputError(f"{run.run_dir}: a run of suite '{run.suite_name}', not '{suite.name}'")
    present = [v for v in suite.variant_names() if any(row.variant == v for row in run.rows)]
    unknown = [v for v in variants or [] if v not in present]
    if unknown:
        raise InputError(f"--variant: {', '.join(unknown)} not in run {run.run_dir} (it has {', '.join(present) or 'none'})")
    chosen = variants or present
    wanted = _check_cases(suite, cases)
    graphs = graphs_by_case(run.rows, chosen)
    side = _read_side(suite)
    proposed, skipped_gold, no_answer = [], [], []
    for case in suite.cases:
        if case.id not in wanted:
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
    gold = side.model_copy(update={
        "suite": suite.name,
        "proposed_from": ProposedFrom(run=_run_reference(suite, run.run_dir), variants=chosen, sample=0),
        "cases": [by_id[i] for i in order if i in by_id]})
    if proposed:
        _write_gold(suite, gold)
    if skipped_gold:
        typer.echo(f"left alone (they have gold; --refresh to propose anyway): {', '.join(skipped_gold)}")
    if no_answer:
        typer.echo(f"no answer in the run (or an error row): {', '.join(no_answer)}")
    typer.echo(f"{len(proposed)} case(s) proposed from {', '.join(chosen)} (sample 0) into {_side_path(suite)}: "
               "review: pending, excluded from gold metrics until reviewed. Next: harness annotate "
               f"{suite.path} --review")


def review_page(suite, out: Path | None, cases: list[str] | None) -> Path:
    import time

    from ..atomicfile import atomic_write
    from .page import page_data, render_page

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


def apply(suite, reviewed_path: Path, run_path: Path | None) -> None:
    from ..runfolder import read_rows, run_dir_of
    from ..suites import load_suite
    from .apply import merged, read_reviewed, recall_against, reviewed_cases

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
    run_given = run_path or (suite.root / side.proposed_from.run if side.proposed_from and side.proposed_from.run else None)
    if run_given is None or not run_given.exists():
        typer.echo(f"recall against the reviewed gold: give the run with --from RUN, or run: harness run {suite.path}")
        return
    rows = read_rows(run_dir_of(run_given))
    ids = {case.id for case in done}
    gold = [case for case in fresh.cases if case.id in ids]
    variants = [v for v in fresh.variant_names() if any(row.variant == v for row in rows)]
    typer.echo(f"each variant of {run_given} against the reviewed gold of {len(gold)} case(s) (micro):")
    for line in recall_against(gold, rows, variants, fresh.spec.matching, fresh.spec.ontology):
        typer.echo(f"  {line.variant}: entity recall {_fmt(line.entity_recall)}, precision {_fmt(line.entity_precision)}; "
                   f"relationship recall {_fmt(line.relationship_recall)}, precision {_fmt(line.relationship_precision)} "
                   f"({line.cases} case(s))")


def agreement_report(suite, other_path: Path) -> None:
    from .agreement import agreement
    from .apply import read_reviewed

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
    if agreement_file is not None and (from_run is not None or review or refresh):
        raise InputError("--agreement goes alone")
    if from_run is None and not review and apply_file is None and agreement_file is None:
        raise InputError("say what to do: --from RUN (propose), --review, --apply FILE or --agreement FILE")
    suite = load_suite(suite_path)
    if apply_file is not None:
        apply(suite, apply_file, from_run)
        return
    if agreement_file is not None:
        agreement_report(suite, agreement_file)
        return
    if from_run is not None:
        propose(suite, from_run, variant, case, refresh)
        suite = load_suite(suite_path)
    if review:
        review_page(suite, out, case)
