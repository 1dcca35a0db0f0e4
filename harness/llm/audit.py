"""`harness cassettes audit`: credentials, orphaned cassettes, and cassettes that no longer match."""

from __future__ import annotations

import re
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import InputError
from ..suites import Suite

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
class Finding:
    kind: str  # credential, orphan, stale, missing, corrupt
    path: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def scan_credentials(path: Path) -> list[Finding]:
    text = path.read_text(encoding="utf-8", errors="replace")
    findings = []
    for name, pattern in SECRET_PATTERNS:
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            shown = match.group(0)[:12] + "…"
            findings.append(Finding("credential", f"{path}:{line}", f"{name}: {shown}"))
    return findings


def audit_suites(suites: list[Suite]) -> list[Finding]:
    from ..runner import RunOptions, run_suite

    findings: list[Finding] = []
    for suite in suites:
        folder = suite.cassette_dir()
        expected = {folder / v / f"{c.id}.json" for v in suite.variant_names() for c in suite.cases}
        present = set(folder.rglob("*.json")) if folder.exists() else set()
        for path in sorted(present):
            findings.extend(scan_credentials(path))
        tuning = folder / "tune"  # written by `harness tune`, one cassette per tuning step
        for path in sorted(p for p in present - expected if tuning not in p.parents):
            findings.append(Finding("orphan", str(path), "no case of the suite uses this cassette"))
        with tempfile.TemporaryDirectory() as scratch:
            try:
                outcome = run_suite(suite, RunOptions(record_mode="none", reports_dir=Path(scratch), fresh=True))
            except InputError as exc:  # a corrupt cassette
                findings.append(Finding("corrupt", str(folder), exc.message))
                continue
        for variant, case, why in sorted(outcome.missing):
            path = folder / variant / f"{case}.json"
            detail = "no longer matches the case's current requests" if why == "stale" else "not recorded"
            findings.append(Finding(why, str(path), detail))
    return findings
