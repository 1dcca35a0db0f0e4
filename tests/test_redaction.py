"""The redactor computes each key's forms once; what it redacts is what it redacted before."""

from __future__ import annotations

import base64

import pytest

from harness.redaction import REDACTED, Redactor

KEY = "sk-" + "0123456789" * 2  # built here so the repository holds no credential-like text
OTHER = "az" + "f" * 30


def test_a_key_and_its_encodings_are_redacted_and_a_short_value_is_not():
    encoded = base64.b64encode(KEY.encode()).decode()
    redactor = Redactor([KEY, "short"])
    out = redactor.redact(f"{KEY} {encoded} short")
    assert KEY not in out and encoded not in out and out.count(REDACTED) == 2 and out.endswith(" short")


def test_learning_a_key_again_changes_nothing():
    once = Redactor([KEY])
    again = Redactor([KEY])
    for _ in range(3):
        again.add([KEY, KEY])
    text = f"a {KEY} b {base64.b64encode(KEY.encode()).decode()} c"
    assert again.redact(text) == once.redact(text)
    assert again.find(text) and len(again.find(text)) == len(once.find(text))


def test_keys_learnt_later_are_redacted_as_if_given_at_once():
    later = Redactor([KEY])
    later.add([OTHER])
    at_once = Redactor([OTHER, KEY])
    text = f"{KEY} and {OTHER}"
    assert later.redact(text) == at_once.redact(text) == f"{REDACTED} and {REDACTED}"
    assert not Redactor([])


SPECIAL = 'pw"q\\r/s&t' + "<u>v%w+x=y'z-é"


def _encodings(key: str) -> dict[str, str]:
    import base64
    import html
    import json
    import re
    from urllib.parse import quote, quote_plus

    raw = key.encode()
    units = key.encode("utf-16-be")
    return {
        "json": json.dumps(key)[1:-1], "json-unicode": json.dumps(key, ensure_ascii=False)[1:-1],
        "json2": json.dumps(json.dumps(key)[1:-1])[1:-1], "url": quote(key, safe=""), "url-plus": quote_plus(key),
        "url-lower": re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(key, safe="")),
        "html": html.escape(key), "xml": html.escape(key, quote=False).replace('"', "&quot;"),
        "hex": raw.hex(), "HEX": raw.hex().upper(),
        "uescape": "".join(f"\\u{int.from_bytes(units[i:i + 2], 'big'):04x}" for i in range(0, len(units), 2)),
        "uescape-in-json": json.dumps("".join(f"\\u{ord(c):04x}" for c in key))[1:-1],
        "uescape-in-json2": json.dumps(json.dumps("".join(f"\\u{ord(c):04X}" for c in key))[1:-1])[1:-1],
        "b64": base64.b64encode(raw).decode(), "b64url": base64.urlsafe_b64encode(raw).decode().rstrip("="),
        "b64-basic": base64.b64encode(b"user:" + raw).decode(),
    }


@pytest.mark.parametrize("name", list(_encodings(SPECIAL)))
def test_every_common_encoding_of_a_key_with_awkward_characters_is_redacted(name: str):
    form = _encodings(SPECIAL)[name]
    redacted = Redactor([SPECIAL]).redact(f"<{form}>")
    if name.startswith("b64"):  # what encodes the bytes around the key (padding, "user:") is kept
        assert REDACTED in redacted and len(redacted) <= len(REDACTED) + 2 + 8
    else:
        assert redacted == f"<{REDACTED}>"


def test_a_key_cut_short_is_redacted_from_its_first_sixteen_characters():
    redactor = Redactor([KEY])
    assert redactor.redact(f"usage.prompt_tokens is implausible ({KEY[:17]})") == \
        f"usage.prompt_tokens is implausible ({REDACTED})"
    assert redactor.redact(f"({KEY[:15]})") == f"({KEY[:15]})"  # too little to tell it from text


def test_a_value_inside_the_mark_itself_is_no_key():
    """Redacting must not find a key in its own `[REDACTED]` (a second pass would grow it)."""
    redactor = Redactor(["REDACTED", "EDACTED]"])
    assert not redactor and redactor.redact("[REDACTED]") == "[REDACTED]"


@pytest.mark.parametrize("text", ["", "plain", f"x {KEY}", f"{KEY}", f"a {KEY[:10]}", f"{KEY} {KEY[:20]}"])
def test_redact_head_holds_back_only_what_may_still_become_a_key(text: str):
    redactor = Redactor([KEY])
    head, held = redactor.redact_head(text)
    assert head + redactor.redact(held) == redactor.redact(text)
    assert KEY not in head and REDACTED not in held  # the held tail is raw text, redacted at the end
