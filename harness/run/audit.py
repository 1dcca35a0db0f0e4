"""`harness cassettes audit`: credentials, orphaned cassettes, and cassettes that no longer match.

Whether a cassette matches is decided by request hashes, without running anything: each case's
requests are built as the runner builds them (run.requests.case_request, run.requests.converse) and answered
from the cassette store, never sent; a request the store has no recording for makes the cassette
`missing` (no file) or `stale`, and recordings no request asked for are `unused`.

Credentials are found by shape (`sk-...`, `Bearer ...`) and by value: every form of the keys the
environment configures (`OPENAI_API_KEY`, `AZURE_OPENAI_API_KEY`, the suite's `api_key_env`),
whatever their shape. Each file is read once and scanned once: audit time grows with its size.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import CassetteMissingError, InputError
from ..inputfiles import UnreadableFile, read_bytes, shown_path
from .cassette_paths import SAMPLE_FOLDER
from .requests import CaseRequest, case_request, clients_for, converse
from .plan import plan_variant
from ..suites import Suite
from ..llm.cassette_store import MAX_CASSETTE_BYTES, CassetteStore, replaying
from ..llm.client import ModelClient
from ..llm.providers.registry import get_provider
from ..redaction import Redactor, configured_secrets

SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("openai-key", re.compile(r"sk-[A-Za-z0-9_\-]{16,}")),
    ("bearer-token", re.compile(r"[Bb]earer\s+[A-Za-z0-9._\-]{12,}")),
    ("credential-header", re.compile(r'"(authorization|api-key|x-api-key|openai-organization|openai-project|cookie|set-cookie)"\s*:', re.I)),
    ("aws-key", re.compile(r"AKIA[0-9A-Z]{16}")),
    ("github-token", re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}")),
    ("google-key", re.compile(r"AIza[0-9A-Za-z_\-]{35}")),
    ("slack-token", re.compile(r"xox[abpr]-[A-Za-z0-9\-]{10,}")),
    ("query-key", re.compile(r"[?&](api[-_]?key|key|token)=[^&\"\s]{8,}", re.I)),
)


@dataclass
class CassetteAuditFinding:
    kind: str  # credential, orphan, stale, missing, unused, corrupt (the CLI exits 2 on corrupt)
    path: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def scan_credentials(
    path: Path, redactor: Redactor | None = None, text: str | None = None
) -> list[CassetteAuditFinding]:
    """Credential-shaped text, and any form of the keys `redactor` knows, with their line numbers."""
    if text is None:
        text = _text(path)
    matches = [(m.start(), name, m.group(0)) for name, pattern in SECRET_PATTERNS for m in pattern.finditer(text)]
    if redactor is not None:
        matches += [(m.start(), "configured-key", m.group(0)) for m in redactor.find(text)]
    findings = []
    line, counted_to = 1, 0
    for start, name, found in sorted(matches):
        line += text.count("\n", counted_to, start)  # count forward only: one pass over the text
        counted_to = start
        # a configured key is shown by its length alone: even a prefix of it is the secret
        shown = f"{len(found)} characters" if name == "configured-key" else found[:12] + "…"
        findings.append(CassetteAuditFinding("credential", f"{path}:{line}", f"{name}: {shown}"))
    return findings


def _text(path: Path) -> str:
    """A cassette's text for the credential scan, through the bounded reader (undecodable bytes replaced)."""
    return read_bytes(path, limit=MAX_CASSETTE_BYTES, what="cassette").decode("utf-8", "replace")


def _key_redactor(suite: Suite) -> Redactor:
    return Redactor(configured_secrets([variable for model in suite.model_blocks()
                                        for variable in (model.api_key_env, *get_provider(model.provider).key_envs)]))


def _check_file(path: Path, redactor: Redactor) -> list[CassetteAuditFinding]:
    """Credentials in one cassette, and whether it loads at all."""
    try:
        text = _text(path)
    except UnreadableFile as exc:  # a symlink loop, a folder named *.json, a FIFO, a 2 GB file
        return [CassetteAuditFinding("corrupt", str(path), f"{shown_path(path)}: corrupt cassette: {exc.detail}")]
    findings = scan_credentials(path, redactor, text)
    try:
        CassetteStore.load(path)
    except InputError as exc:
        findings.append(CassetteAuditFinding("corrupt", str(path), exc.message))
    return findings


def audit_suites(suites: list[Suite]) -> list[CassetteAuditFinding]:
    findings: list[CassetteAuditFinding] = []
    for suite in suites:
        folder = suite.cassette_dir()
        present = set(folder.rglob("*.json")) if folder.exists() else set()
        samples = recorded_samples(suite, present)
        expected = {folder / v / f"{c.id}.json" for v, c in suite.pairs()}
        expected |= set(samples.values())
        redactor = _key_redactor(suite)
        corrupt: set[Path] = set()
        for path in sorted(present):
            found = _check_file(path, redactor)
            corrupt |= {path for f in found if f.kind == "corrupt"}
            findings.extend(found)
        tuning = folder / "tune"  # written by `harness tune`, one cassette per tuning step
        for path in sorted(p for p in present - expected if tuning not in p.parents):
            findings.append(CassetteAuditFinding("orphan", str(path), "no case of the suite uses this cassette"))
        findings.extend(asyncio.run(_match_requests(suite, corrupt, samples)))
    return findings


def recorded_samples(suite: Suite, present: set[Path]) -> dict[tuple[str, str, int], Path]:
    """The cassettes of samples 1.. (`--repeat`) that exist: (variant, case, sample) -> path.

    How many samples a suite is run with is a command-line choice, so the audit checks the
    samples recorded and reports no sample as missing."""
    folder = suite.cassette_dir()
    names = {f"{case.id}.json": case.id for case in suite.cases}
    folders = {folder / variant: variant for variant in suite.variant_names()}
    runs = {(variant, case.id) for variant, case in suite.pairs()}
    found: dict[tuple[str, str, int], Path] = {}
    for path in present:
        variant, case_id = folders.get(path.parent.parent), names.get(path.name)
        number = path.parent.name.removeprefix(SAMPLE_FOLDER.format(""))
        if variant is None or case_id is None or not number.isdigit() or (variant, case_id) not in runs:
            continue
        if SAMPLE_FOLDER.format(int(number)) == path.parent.name and int(number) >= 1:  # sample-1, not sample-01
            found[(variant, case_id, int(number))] = path
    return found


async def _match_requests(suite: Suite, corrupt: set[Path],
                          samples: dict[tuple[str, str, int], Path]) -> list[CassetteAuditFinding]:
    """Per variant, case and recorded sample: the requests the case sends, against the recorded ones."""
    plans = {name: plan_variant(suite, name) for name in suite.variant_names()}
    client_of = clients_for(plans, replay=True)
    findings: list[CassetteAuditFinding] = []
    for name, plan in plans.items():
        for case in suite.variant_cases(name):
            first = case_request(plan, client_of[name], case)
            numbers = sorted(k for (v, c, k) in samples if v == name and c == case.id)
            for request in [first, *(first.for_sample(k) for k in numbers)]:
                findings.extend(await _match_one(client_of[name], request, request.cassette_path(suite), corrupt))
    return findings


async def _match_one(client: ModelClient, request: CaseRequest, path: Path,
                     corrupt: set[Path]) -> list[CassetteAuditFinding]:
    """One cassette: stale, missing or with unused recordings (no finding when it matches)."""
    if path in corrupt:
        return []
    with replaying(path) as replay:
        try:
            await converse(client, request)
        except CassetteMissingError:
            if replay.store.exists:
                return [CassetteAuditFinding("stale", str(path), "no longer matches the case's current requests")]
            return [CassetteAuditFinding("missing", str(path), "not recorded")]
    unused = replay.unused()
    if unused:
        shown = ", ".join(f"interactions[{r.index}]" for r in unused[:3]) + (" ..." if len(unused) > 3 else "")
        return [CassetteAuditFinding("unused", str(path),
                                     f"{len(unused)} recording(s) no current request asks for ({shown})")]
    return []
