"""Where a case's cassette lives in a suite's cassette folder (one file per variant, case and sample)."""

from __future__ import annotations
from pathlib import Path
from ..suites import Suite


SAMPLE_FOLDER = "sample-{}"


def cassette_path(suite: Suite, variant: str, case_id: str, sample: int = 0) -> Path:
    """Where a case's cassette is: `<variant>/<case>.json` for sample 0 (the only one without
    `--repeat`), `<variant>/sample-<k>/<case>.json` for sample k >= 1. Case ids cannot hold '/',
    so a sample's folder never collides with a case's file."""
    folder = suite.cassette_dir() / variant
    if sample:
        folder = folder / SAMPLE_FOLDER.format(sample)
    return folder / f"{case_id}.json"
