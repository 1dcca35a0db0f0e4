"""Text2KGBench's conventions (its src/evaluation/run_eval.py), each rule on a hand-worked example."""

from __future__ import annotations

import pytest

from harness.scoring.conventions import text2kgbench as t2k

CONCEPTS = ["Person", "City"]
RELATIONS = ["birthPlace", "alma mater"]


def test_triples_compare_lower_cased_without_spaces_or_underscores():
    assert t2k.normalize_triple("Alan_Bean", "birth Place", "Wheeler,  Texas") == "alanbeanbirthplacewheeler,texas"
    # quotes are kept: a gold object written "\"1974-08-01\"" does not match 1974-08-01
    assert t2k.normalize_triple("A", "r", '"1974"') != t2k.normalize_triple("A", "r", "1974")


def test_precision_recall_f1():
    assert t2k.precision_recall_f1({"a", "b"}, set()) == (0.0, 0.0, 0.0)  # nothing predicted: 0, not n/a
    # 1 hit of 2 predicted and 4 gold: P 1/2, R 1/4, F1 2 * (1/8) / (3/4) = 1/3
    p, r, f1 = t2k.precision_recall_f1({"a", "b", "c", "d"}, {"a", "x"})
    assert (p, r) == (0.5, 0.25) and f1 == pytest.approx(1 / 3)
    assert t2k.precision_recall_f1({"a"}, {"x"}) == (0.0, 0.0, 0.0)


def test_ontology_conformance_writes_spaces_as_underscores_and_is_case_sensitive():
    assert t2k.ontology_conformance(RELATIONS, []) == (1.0, 0.0)
    triples = [("A", "birthPlace", "B"), ("A", "alma_mater", "C"), ("A", "birthplace", "B"), ("A", "spouse", "D")]
    # birthPlace and alma_mater conform, birthplace (case) and spouse do not: 2/4; hallucination 1 - 1/2
    assert t2k.ontology_conformance(RELATIONS, triples) == (0.5, 0.5)


def test_stemming_is_nltk_porter_in_its_default_mode():
    # NLTK_EXTENSIONS (the default, as run_eval.py builds it): "dying" -> "die"; ORIGINAL_ALGORITHM gives "dy"
    assert t2k.stemmed("dying") == "die"
    # universities -> universiti (ies) -> universive (iviti) -> univers (ive); 's is its own token
    assert t2k.stemmed("Italy's universities") == "itali'sunivers"


def test_split_sentences_stands_in_for_punkt():
    text = "Lake Placid, N.Y. is served. It was built. John F. Kennedy spoke in the U.S. Asian Americans live there."
    assert t2k.split_sentences(text) == ["Lake Placid, N.Y. is served.", "It was built.",
                                         "John F. Kennedy spoke in the U.S. Asian Americans live there."]
    # a sentence's final period is split off its word only where a sentence ends, and that changes the
    # stem: "Italy." inside one sentence stays "italy.", at a sentence end it is "itali" + "."
    assert "itali." in t2k.stemmed("Born in Italy. He left.")
    assert "italy." in t2k.stemmed("Born in N.Y. Italy.He left")


def test_hallucinations_against_the_stemmed_sentence_and_concept_labels():
    sentence = "Alan Bean was born in Wheeler, Texas."
    triples = [("Alan Bean", "birthPlace", "Wheeler, Texas"),  # both found
               ("Alan_Bean", "birthPlace", "City"),  # "city" is a concept label: found
               ("Buzz Aldrin", "birthPlace", "Houston"),  # neither found
               ("Texas.Person", "birthPlace", "01 January 1932")]  # label glued after the period: found
    # subjects: 1 of 4 missing -> 0.25; objects: Houston and "1932" (01 January removed: "01januari"
    # is dropped from the key, "1932" is not in the sentence) -> 2/4 = 0.5
    assert t2k.hallucinations(sentence, CONCEPTS, triples) == (0.25, 0.5)
    assert t2k.hallucinations(sentence, CONCEPTS, []) == (0.0, 0.0)


def test_sentence_figures_and_average_over_all_sentences():
    gold = [("Alan_Bean", "birthPlace", "Wheeler,_Texas"), ("Alan_Bean", "alma mater", "UT_Austin")]
    predicted = [("Alan Bean", "birthPlace", "Wheeler, Texas"), ("Alan Bean", "spouse", "Sue")]
    figures = t2k.sentence_figures("Alan Bean was born in Wheeler, Texas.", gold, predicted,
                                   relations=RELATIONS, concepts=CONCEPTS)
    # spouse is set aside (not a gold relation): P 1/1, R 1/2, F1 2/3; conformance 1/2 (spouse not
    # in the ontology); subjects found; "sue" not in the sentence: 1/2
    assert figures.as_dict() == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "onto_conf": 0.5,
                                               "rel_halluc": 0.5, "sub_halluc": 0.0, "obj_halluc": 0.5})
    assert t2k.sentence_figures("x", gold, None, relations=RELATIONS, concepts=CONCEPTS) == t2k.NO_OUTPUT
    empty = t2k.sentence_figures("x", gold, [], relations=RELATIONS, concepts=CONCEPTS)
    assert empty.as_dict() == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "onto_conf": 1.0, "rel_halluc": 0.0,
                               "sub_halluc": 0.0, "obj_halluc": 0.0}
    # averaged over 3 test sentences, one without output: P (1+0+0)/3, onto_conf (0.5+1+0)/3 = 0.5
    averaged = t2k.average([figures, empty, t2k.NO_OUTPUT], 3)
    assert averaged["precision"] == pytest.approx(1 / 3) and averaged["onto_conf"] == pytest.approx(0.5)
    assert t2k.average([], 0)["f1"] is None
