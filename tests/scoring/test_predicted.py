"""The prediction both scorings start from: entities de-duplicated by normalised name, and grounding."""

from __future__ import annotations

from harness.model import Entity
from harness.scoring.predicted import grounded_in, predicted_entities


def test_duplicates_keep_the_first_name_and_the_first_non_empty_type() -> None:
    found = predicted_entities([
        Entity(name="Ana Ruiz"), Entity(name="  "), Entity(name="ANA RUIZ", type="person"),
        Entity(name="Lowbridge", type="geo"), Entity(name="ana ruiz", type="organization"),
    ])
    assert found.names == ["Ana Ruiz", "Lowbridge"]
    assert found.types == ["person", "geo"]  # the first record had none: the second's is kept
    assert found.duplicates == 2 and found.blanks == 1
    assert found.position == {found.keys[0]: 0, found.keys[1]: 1}


def test_grounding_is_by_whole_tokens_of_the_normalised_chunk() -> None:
    keys = predicted_entities([Entity(name="Ana Ruiz"), Entity(name="Low"), Entity(name="BRIDGE")]).keys
    assert grounded_in(keys, "The mayor, ANA  RUIZ, crossed the bridge to Lowbridge.") == [True, False, True]


def test_grounding_kept_for_recent_cases_is_recomputed_for_other_names_or_text() -> None:
    from harness.scoring.normalize import normalize_text, occurs_in
    from harness.scoring.predicted import grounded_in

    text = "Ana Ruiz met Bo in Lowbridge."
    for keys, chunk in [(["ana ruiz", "bo"], text), (["ana ruiz", "cy"], text), (["ana ruiz", "bo"], "Ana Ruiz alone."),
                        (["ana ruiz", "bo"], text)]:
        assert grounded_in(keys, chunk) == [occurs_in(key, normalize_text(chunk)) for key in keys]
