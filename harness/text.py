"""Text helpers for text that comes from outside the harness (model answers, files)."""

from __future__ import annotations

import re


def scrub_surrogates(text: str) -> str:
    """Replace lone UTF-16 surrogates, which no UTF-8 file can hold, with U+FFFD."""
    return re.sub(r"[\ud800-\udfff]", "\ufffd", text)
