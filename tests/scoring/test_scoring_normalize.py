"""Name normalisation, type tables and grounding look-ups."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.scoring.normalize import (
    canonical_type,
    normalize_name,
    normalize_text,
    normalize_type,
    occurs_in,
    type_table,
)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("Velaprotin", "velaprotin"),
        ("VELAPROTIN", "velaprotin"),  # case-fold
        ("Straße", "strasse"),  # full case-fold, not lower()
        ("ＫＲＸ－７", "krx 7"),  # NFKC full-width, then punctuation to space
        ("Johnson &amp; Johnson", "johnson johnson"),  # HTML unescape, & is punctuation
        ('"Meridian Therapeutics"', "meridian therapeutics"),  # wrapping quotes
        ("“Meridian”", "meridian"),  # typographic quotes
        ("«Meridian»", "meridian"),
        ("Osei-Landry", "osei landry"),  # hyphen becomes a space ...
        ("Osei Landry", "osei landry"),  # ... so both spellings agree
        ("Alzheimer's disease", "alzheimers disease"),  # apostrophes vanish
        ("Alzheimer’s disease", "alzheimers disease"),
        ("C. lunaris", "c lunaris"),
        ("  Port   Halvard \n", "port halvard"),  # whitespace collapsed
        ("The Caldera Institute", "caldera institute"),  # English articles
        ("a Lab", "lab"),
        ("An Post", "post"),
        ("El Salvador", "salvador"),  # Spanish articles
        ("la Moncloa", "moncloa"),
        ("Los Ángeles", "ángeles"),  # accents are kept
        ("LAS Vegas", "vegas"),
        ("The The", "the"),  # only one leading article is dropped
        ("The", "the"),  # a lone article is a name, not an article
        ("Theodore", "theodore"),  # whole tokens only
        ("北京 大学", "北京大学"),  # spacing between CJK characters
        ("東京　大学", "東京大学"),  # ideographic space
        ("Tokyo 大学", "tokyo 大学"),  # only between two CJK characters
        ("C++", "c++"),  # symbols are kept
        ("...", "..."),  # only punctuation: fall back to the folded text
        ("", ""),
    ],
)
def test_normalize_name(raw: str, key: str) -> None:
    assert normalize_name(raw) == key


def test_normalize_text_keeps_articles() -> None:
    assert normalize_text("The  KRX-7 kinase,\n in «Port Halvard».") == "the krx 7 kinase in port halvard"


def test_type_table_maps_synonyms_to_canonical() -> None:
    table = type_table({"location": ["GEO", "place"], "Organization": ["company", "geo"]})
    assert normalize_type("  GEO ") == "geo"
    assert normalize_type("Medical_Condition") == "medical condition"
    assert canonical_type("geo", table) == "location"  # first listing wins
    assert canonical_type("Company", table) == "organization"
    assert canonical_type("ORGANIZATION", table) == "organization"
    assert canonical_type("person", table) == "person"  # unknown labels stand for themselves
    assert canonical_type("", table) == ""


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("krx 7", "the krx 7 kinase", True),
        ("krx 7 kinase", "the krx 7 kinase", True),  # at the end
        ("krx", "the krx7 kinase", False),  # token boundary on the right
        ("rx 7", "the krx 7 kinase", False),  # token boundary on the left
        ("kinase", "kinases kinase", True),  # second occurrence
        ("北京大学", "他在北京大学学习", True),  # CJK has no spaces
        ("vitalik", "老师提到vitalik 但他", True),  # a Latin name inside Chinese text, no spaces
        ("pos", "转向pos。此外", True),
        ("eth", "转向ethereum", False),  # still a boundary on the Latin side
        ("ethereum", "转向xethereum", False),
        ("", "anything", False),
    ],
)
def test_occurs_in(name: str, text: str, found: bool) -> None:
    assert occurs_in(name, text) is found


_MIXED = st.lists(st.sampled_from(list("ab Z-'.&;\t\n") + ["北", "京", "大", "학", "ア", "ｆ", "é", "\u3000", "amp", "The "]),
                  max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(_MIXED)
def test_cjk_gaps_are_closed_as_the_regex_closes_them(text: str) -> None:
    # ASCII text skips the CJK regex: the keys must be what applying it everywhere gives
    import importlib

    normalize = importlib.import_module("harness.scoring.normalize")
    spaced = " ".join(normalize._fold(text).translate(normalize._TABLE).split())
    assert normalize_text(text) == normalize._CJK_GAP.sub("", spaced)
    tokens = spaced.split()
    if len(tokens) > 1 and tokens[0] in normalize.ARTICLES:
        tokens = tokens[1:]
    key = normalize._CJK_GAP.sub("", " ".join(tokens)) or " ".join(normalize._fold(text).split())
    assert normalize_name(text) == key


def test_is_cjk_shortcut_below_u1100_agrees_with_the_pattern() -> None:
    import importlib

    normalize = importlib.import_module("harness.scoring.normalize")
    for code in [*range(0x1200), *range(0x2E00, 0x3200), 0x4E00, 0x9FFF, 0xAC00, 0xFF41, 0x20000, 0x2FA1F, 0x2FA20]:
        char = chr(code)
        assert normalize.is_cjk(char) == bool(normalize._CJK_CHAR.match(char)), hex(code)
