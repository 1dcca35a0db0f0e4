"""Entity fragmentation (issue 15): GraphRAG's node key, the joining rules, gold fragments and
B-cubed, every number worked out by hand (docs/scoring.md, "Entity fragmentation")."""

from __future__ import annotations

import random

import pytest
from rapidfuzz import fuzz

from harness.model import CaseResult, Entity, ExtractedGraph, GoldCase, GoldEntity, MatchingConfig
from harness.scoring import score_case
from harness.scoring.fragmentation import FUZZY_WINDOW, FRAGMENT_LIMIT, _fuzzy_pairs, fragmentation, graphrag_title


def row(case_id: str, *entities: tuple[str, str], gold: GoldCase | None = None) -> CaseResult:
    graph = ExtractedGraph(entities=[Entity(name=name, type=kind) for name, kind in entities])
    score = score_case(gold, graph) if gold is not None else None
    return CaseResult(suite="s", variant="v", case_id=case_id, graph=graph, score=score)


def gold_case(case_id: str, *entities: GoldEntity) -> GoldCase:
    return GoldCase(id=case_id, text="(chunk)", entities=list(entities))


def test_graphrag_title_is_upper_cased_stripped_unescaped_without_control_characters():
    assert graphrag_title("  Sherlock Holmes ") == "SHERLOCK HOLMES"
    assert graphrag_title("José Núñez") == "JOSÉ NÚÑEZ"  # accents kept
    assert graphrag_title("AT&amp;T") == "AT&T"
    assert graphrag_title("Bell\x07 Labs") == "BELL LABS"
    assert graphrag_title("Straße") == "STRASSE"  # str.upper, as GraphRAG calls it


# Without gold: 14 titles.
#   THE BANK, BANK               -> one cluster (normalisation drops the article)
#   MR. HOLMES, HOLMES           -> one cluster (honorific), joined with SHERLOCK HOLMES (person containment)
#   SMITH                        -> alone: JOHN SMITH and JANE SMITH both end with it (ambiguous)
#   ENGLAND / BANK OF ENGLAND, PARIS / PARIS HILTON -> apart (not persons; a leading part)
#   JOSÉ NÚÑEZ (two spellings of case, one title) and JOSE NUNEZ -> apart (accents kept, ratio 0.7)
# clusters = 14 - 2 (three Holmes titles become one) - 1 (the bank) = 11; surplus = 3 / 14
NO_GOLD = [
    row("c1", ("Sherlock Holmes", "person"), ("Bank of England", "organization"), ("England", "geo"),
        ("José Núñez", "person")),
    row("c2", ("Holmes", "PERSON"), ("Mr. Holmes", "person"), ("JOSÉ NÚÑEZ", "person"), ("Jose Nunez", "person")),
    row("c3", ("Paris", "geo"), ("Paris Hilton", "person"), ("John Smith", "person"), ("Jane Smith", "person"),
        ("Smith", "person"), ("The Bank", "organization"), ("Bank", "organization")),
]


def test_clusters_without_gold():
    frag = fragmentation(NO_GOLD)
    assert frag.nodes == 14
    assert frag.clusters == 11
    assert frag.joined_clusters == 2
    assert frag.fragmentation_rate == pytest.approx(3 / 14, abs=1e-6)
    assert [c.names for c in frag.top] == [["HOLMES", "MR. HOLMES", "SHERLOCK HOLMES"], ["BANK", "THE BANK"]]
    assert [c.cases for c in frag.top] == [2, 1]  # c1 and c2; c3
    assert frag.gold is None


def test_containment_needs_a_person_type_through_the_synonyms():
    rows = [row("c1", ("Sherlock Holmes", "figure"), ("Holmes", "figure"))]
    assert fragmentation(rows).joined_clusters == 0  # "figure" is no person type
    synonyms = MatchingConfig(type_synonyms={"person": ["figure"]})
    assert [c.names for c in fragmentation(rows, matching=synonyms).top] == [["HOLMES", "SHERLOCK HOLMES"]]


def test_a_trailing_part_of_another_type_is_not_joined():
    rows = [row("c1", ("New York", "geo"), ("York", "geo"), ("Desmethyl montanine", "compound"),
                ("Montanine", "compound"))]
    assert fragmentation(rows).clusters == 4


def test_honorifics_do_not_join_names_typed_apart():
    rows = [row("c1", ("Dr. Pepper", "product"), ("Pepper", "person"))]
    assert fragmentation(rows).clusters == 2
    rows = [row("c1", ("Dr. Watson", "person"), ("Watson", ""))]  # an untyped record does not conflict
    assert fragmentation(rows).clusters == 1


def test_fuzzy_joins_follow_the_suite_threshold():
    # ratio("acme corporation", "acme corporations") = 2 * 16 / (16 + 17) = 0.9697
    rows = [row("c1", ("Acme Corporation", "organization")), row("c2", ("Acme Corporations", "organization"))]
    assert fragmentation(rows, matching=MatchingConfig(fuzzy_threshold=0.9)).clusters == 1
    assert fragmentation(rows, matching=MatchingConfig(fuzzy_threshold=0.98)).clusters == 2


def brute_fuzzy_pairs(keys: list[str], threshold: float = 0.9) -> set[tuple[int, int]]:
    return {(i, j) for i in range(len(keys)) for j in range(i + 1, len(keys))
            if fuzz.ratio(keys[i], keys[j]) >= threshold * 100 - 1e-9}


def found_pairs(keys: list[str], window: int | None = None) -> set[tuple[int, int]]:
    a, b = _fuzzy_pairs(keys, 0.9, window)
    return {(min(i, j), max(i, j)) for i, j in zip(a.tolist(), b.tolist())}


def test_fuzzy_pairs_match_a_brute_force_comparison_across_blocks():
    rng = random.Random(7)
    keys = sorted({"".join(rng.choice("abc ") for _ in range(rng.randint(3, 9))).strip() or "a" for _ in range(1500)})
    assert len(keys) > 4 * 64  # several blocks
    assert found_pairs(keys, window=len(keys)) == brute_fuzzy_pairs(keys)


def test_up_to_the_window_every_pair_is_compared():
    rng = random.Random(8)
    keys = list({"".join(rng.choice("ab ") for _ in range(rng.randint(3, 7))).strip() or "a" for _ in range(200)})
    keys = keys[:FUZZY_WINDOW + 1]
    assert found_pairs(keys) == brute_fuzzy_pairs(keys)


def test_beyond_the_window_names_alike_at_their_start_or_end_are_still_joined():
    """The sorted neighbourhood: 3,000 names, pairs differing in their last or first letters are
    next to each other in one of the two orders; every pair found is a brute-force pair."""
    keys = [f"company number {i:05d}" for i in range(1500)] + [f"{i:05d} holdings limited" for i in range(1500)]
    typos = ["company number 00042x", "x00042 holdings limited"]
    found = found_pairs(keys + typos)
    assert (42, 3000) in found and (1542, 3001) in found
    assert found <= brute_fuzzy_pairs(keys + typos)


def test_an_empty_variant_has_no_rate():
    frag = fragmentation([row("c1")])
    assert (frag.nodes, frag.clusters, frag.fragmentation_rate, frag.top) == (0, 0, None, [])


def test_the_listed_clusters_are_bounded():
    rows = [row(f"c{i}", (f"Person{i:03d} Surname{i:03d}", "person"), (f"Surname{i:03d}", "person"))
            for i in range(FRAGMENT_LIMIT + 5)]
    frag = fragmentation(rows)
    assert frag.joined_clusters == FRAGMENT_LIMIT + 5
    assert len(frag.top) == FRAGMENT_LIMIT


# With gold: one gold entity found as three names across three cases.
#   identities: Sherlock Holmes (c1, c3 by name; c2's "Holmes" is c1's alias), John Watson (c1, c3), Lestrade
HOLMES = GoldEntity(name="Sherlock Holmes", type="person", aliases=["Holmes", "Mr. Holmes"])
WATSON = GoldEntity(name="John Watson", type="person", aliases=["Watson", "Dr. Watson"])
GOLD = {
    "c1": gold_case("c1", HOLMES, WATSON),
    "c2": gold_case("c2", GoldEntity(name="Holmes", type="person"), GoldEntity(name="Lestrade", type="person")),
    "c3": gold_case("c3", GoldEntity(name="Sherlock Holmes", type="person", aliases=["Mr. Holmes"]),
                    GoldEntity(name="John Watson", type="person")),
}
WITH_GOLD = [
    row("c1", ("SHERLOCK HOLMES", "person"), ("Dr. Watson", "person"), gold=GOLD["c1"]),
    row("c2", ("Holmes", "person"), ("Lestrade", "person"), gold=GOLD["c2"]),
    row("c3", ("Mr. Holmes", "person"), ("John Watson", "person"), gold=GOLD["c3"]),
]


def test_a_gold_entity_found_as_three_names_in_three_cases():
    frag = fragmentation(WITH_GOLD, GOLD)
    gold = frag.gold
    assert gold is not None
    assert gold.gold_entities == 3  # Holmes, Watson, Lestrade
    assert gold.found == 3
    assert gold.fragmented == 2  # Holmes (3 titles), Watson (2)
    assert gold.mean_names == pytest.approx((3 + 2 + 1) / 3)
    assert gold.items == 6
    assert [(c.gold, c.names, c.cases) for c in gold.worst] == [
        ("Sherlock Holmes", ["HOLMES", "MR. HOLMES", "SHERLOCK HOLMES"], 3),
        ("John Watson", ["DR. WATSON", "JOHN WATSON"], 2),
    ]
    # GraphRAG: every title its own cluster, so every item is precise (P = 1); recall per item:
    # Holmes' three items 1/3 each, Watson's two 1/2 each, Lestrade 1: (1 + 1 + 1) / 6 = 0.5
    assert (gold.graphrag.precision, gold.graphrag.recall) == (1.0, 0.5)
    assert gold.graphrag.f1 == pytest.approx(2 * 1.0 * 0.5 / 1.5, abs=1e-6)
    # joined: {HOLMES, MR. HOLMES, SHERLOCK HOLMES}, {DR. WATSON, JOHN WATSON}, {LESTRADE}: all pure and complete
    assert (gold.joined.precision, gold.joined.recall, gold.joined.f1) == (1.0, 1.0, 1.0)
    assert (frag.nodes, frag.clusters) == (6, 3)


def test_bcubed_when_one_title_stands_for_two_gold_entities():
    # SMITH is John Smith's alias in c1 and Jane Smith's in c2 (alias to alias does not join them);
    # c3 finds John Smith by name. Items: (SMITH, John), (SMITH, Jane), (JOHN SMITH, John).
    gold = {
        "c1": gold_case("c1", GoldEntity(name="John Smith", type="person", aliases=["Smith"])),
        "c2": gold_case("c2", GoldEntity(name="Jane Smith", type="person", aliases=["Smith"])),
        "c3": gold_case("c3", GoldEntity(name="John Smith", type="person")),
    }
    rows = [row("c1", ("Smith", "person"), gold=gold["c1"]), row("c2", ("Smith", "person"), gold=gold["c2"]),
            row("c3", ("John Smith", "person"), gold=gold["c3"])]
    found = fragmentation(rows, gold).gold
    assert found is not None
    assert (found.gold_entities, found.found, found.fragmented, found.items) == (2, 2, 1, 3)
    assert found.mean_names == pytest.approx(1.5)  # John: SMITH, JOHN SMITH; Jane: SMITH
    # GraphRAG clusters {SMITH: 2 items}, {JOHN SMITH: 1}.
    # P = (1/2 + 1/2 + 1) / 3 = 2/3; R: John's two items 1/2 each, Jane's 1: (1/2 + 1/2 + 1) / 3 = 2/3
    assert found.graphrag.precision == pytest.approx(2 / 3, abs=1e-6)
    assert found.graphrag.recall == pytest.approx(2 / 3, abs=1e-6)
    assert found.graphrag.f1 == pytest.approx(2 / 3, abs=1e-6)
    # joined: SMITH ends only JOHN SMITH here, so one cluster of all three items.
    # P = (2/3 + 2/3 + 1/3) / 3 = 5/9; R = 1; F1 = 2 * 5/9 / (5/9 + 1) = 10/14
    assert found.joined.precision == pytest.approx(5 / 9, abs=1e-6)
    assert found.joined.recall == 1.0
    assert found.joined.f1 == pytest.approx(10 / 14, abs=1e-6)


def test_cases_without_entity_gold_have_no_gold_part():
    draft = GoldCase(id="c1", text="(chunk)", entities=[HOLMES], annotated=False)
    rows = [row("c1", ("Holmes", "person"), gold=draft)]
    assert fragmentation(rows, {"c1": draft}).gold is None
    # a case that failed (no score) is left out of the gold part too
    failed = CaseResult(suite="s", variant="v", case_id="c1", graph=ExtractedGraph(entities=[Entity(name="Holmes")]))
    assert fragmentation([failed], {"c1": GOLD["c1"]}).gold is None


def test_every_record_of_the_matched_name_is_a_fragment():
    # scoring de-duplicates "Sherlock-Holmes" and "Sherlock Holmes" (one normalised name); GraphRAG keeps two titles
    rows = [row("c1", ("Sherlock Holmes", "person"), ("Sherlock-Holmes", "person"), gold=GOLD["c1"])]
    found = fragmentation(rows, {"c1": GOLD["c1"]}).gold
    assert found is not None and found.worst[0].names == ["SHERLOCK HOLMES", "SHERLOCK-HOLMES"]


def test_names_that_differ_only_in_digits_are_not_joined():
    # ratio("apollo 11", "apollo 12") = 2 * 8 / 18 = 0.89; ("surname001", "surname002") = 2 * 9 / 20 = 0.9
    rows = [row("c1", ("Surname001", "person"), ("Surname002", "person"), ("Surname003", "person"))]
    assert fragmentation(rows, matching=MatchingConfig(fuzzy_threshold=0.9)).clusters == 3


def test_cluster_frame_lists_the_clusters():
    frame = fragmentation(NO_GOLD).cluster_frame()
    assert list(frame.columns) == ["names", "size", "cases"]
    assert frame.to_dict("records") == [
        {"names": "HOLMES / MR. HOLMES / SHERLOCK HOLMES", "size": 3, "cases": 2},
        {"names": "BANK / THE BANK", "size": 2, "cases": 1},
    ]


def test_honorific_joins_every_compatible_pair():
    # DR. PEPPER the product stays apart; MR. PEPPER and PEPPER, both persons, join
    rows = [row("c1", ("Dr. Pepper", "product"), ("Mr. Pepper", "person"), ("Pepper", "person"))]
    assert [c.names for c in fragmentation(rows).top] == [["MR. PEPPER", "PEPPER"]]


def test_an_alias_of_another_gold_entity_of_the_same_case_does_not_join_them():
    # Mycroft is gold apart from Sherlock in one case, though Sherlock lists "Holmes" and Mycroft is named so
    case = gold_case("c1", GoldEntity(name="Sherlock Holmes", type="person", aliases=["Holmes"]),
                     GoldEntity(name="Holmes", type="person"))
    rows = [row("c1", ("Sherlock Holmes", "person"), ("Holmes", "person"), gold=case)]
    found = fragmentation(rows, {"c1": case}).gold
    assert found is not None and (found.gold_entities, found.found, found.fragmented) == (2, 2, 0)


# --------------------------------------------------------------------------- ranks, titles, initials


def _clusters_of(*names: tuple[str, str]) -> list[list[str]]:
    """The joined clusters of two or more titles, from one case per (name, type)."""
    rows = [row(f"c{i}", (name, kind)) for i, (name, kind) in enumerate(names)]
    result = fragmentation(rows, None, MatchingConfig())
    assert result is not None
    return sorted(sorted(c.names) for c in result.top)


def test_a_rank_is_removed_from_a_persons_name_only():
    # INSPECTOR MARSH (a person) -> MARSH, which ends ADELINE MARSH: one cluster;
    # GENERAL ELECTRIC (an organization) keeps its first word: no join with ELECTRIC
    assert _clusters_of(("INSPECTOR MARSH", "person"), ("ADELINE MARSH", "person"),
                        ("GENERAL ELECTRIC", "organization"), ("ELECTRIC", "organization")) == [
        ["ADELINE MARSH", "INSPECTOR MARSH"]]


def test_a_shared_rank_settles_a_surname_two_persons_end_with():
    # ASHWORTH ends JULIAN and CECILY ASHWORTH: CAPTAIN ASHWORTH takes the one who is a captain; a
    # bare ASHWORTH is CAPTAIN ASHWORTH once the rank is removed (rule 3), so it follows it; MR. SMITH,
    # between JOHN and JANE SMITH, neither of them a mister, stays alone
    clusters = _clusters_of(("CAPTAIN ASHWORTH", "person"), ("CAPTAIN JULIAN ASHWORTH", "person"),
                            ("LADY CECILY ASHWORTH", "person"), ("ASHWORTH", "person"),
                            ("MR. SMITH", "person"), ("JOHN SMITH", "person"), ("JANE SMITH", "person"))
    assert clusters == [["ASHWORTH", "CAPTAIN ASHWORTH", "CAPTAIN JULIAN ASHWORTH"]]


def test_an_initial_joins_the_one_person_it_abbreviates():
    # J. ASHWORTH -> JULIAN ASHWORTH (j is julian's initial, not cecily's); J. SMITH stays alone
    # between JOHN and JANE SMITH; J. R. TOLKIEN -> JOHN RONALD TOLKIEN (two initials)
    clusters = _clusters_of(("J. ASHWORTH", "person"), ("JULIAN ASHWORTH", "person"),
                            ("CECILY ASHWORTH", "person"), ("J. SMITH", "person"), ("JOHN SMITH", "person"),
                            ("JANE SMITH", "person"), ("J. R. TOLKIEN", "person"), ("JOHN RONALD TOLKIEN", "person"))
    assert clusters == [["J. ASHWORTH", "JULIAN ASHWORTH"], ["J. R. TOLKIEN", "JOHN RONALD TOLKIEN"]]


def _generated_persons(cases: int, seed: int) -> list[CaseResult]:
    """Persons of few first names and surnames, spelled in full, with initials, honorifics and ranks:
    many names share a surname, which is where the initials rule compares names."""
    rng = random.Random(seed)
    first = ["JULIAN", "JOHN", "JANE", "CECILY", "CARL", "ADA", "ALAN", "RONALD", "ROSE", "MARY"]
    last = ["ASHWORTH", "SMITH", "TOLKIEN", "MARSH", "LOVELACE"]
    rows = []
    for c in range(cases):
        names = []
        for _ in range(4):
            given = rng.sample(first, rng.randint(1, 2))
            spelled = [g[0] + "." if rng.random() < 0.4 else g for g in given]
            prefix = rng.choice(["", "", "MR. ", "CAPTAIN ", "DR. "])
            names.append((prefix + " ".join(spelled + [rng.choice(last)]), "person"))
        rows.append(row(f"c{c}", *names))
    return rows


def pairwise_join_names(nodes, matching):  # type: ignore[no-untyped-def]
    """join_names as it was written before the index (issue 28.15): every pair of a name's
    titles, every longer name by its trailing tokens, every name of the same length and surname
    for initials; fuzzy on every pair. The reference the indexed version must equal."""
    import harness.scoring.fragmentation as frag

    joins = frag._Joins(len(nodes))
    by_key: dict = {}
    for i, node in enumerate(nodes):
        joins.union(by_key.setdefault(node.key, i), i)
    keys = list(by_key)
    for a, b in sorted(brute_fuzzy_pairs(keys, matching.fuzzy_threshold)):
        if frag._DIGITS.sub("", keys[a]) != frag._DIGITS.sub("", keys[b]):
            joins.union(by_key[keys[a]], by_key[keys[b]])
    persons = [i for i, node in enumerate(nodes) if node.types & frag.PERSON_TYPES]
    by_core: dict = {}
    for i, node in enumerate(nodes):
        by_core.setdefault(frag._core(node.key, i in set(persons)), []).append(i)
    for members in by_core.values():
        for n, i in enumerate(members):
            for j in members[n + 1:]:
                if frag._compatible(nodes[i].types, nodes[j].types):
                    joins.union(i, j)
    titled = {i: frag._titled(nodes[i].key, True) for i in persons}
    found = {}
    for i in persons:
        core, titles = titled[i]
        candidates = [j for j in persons if len(titled[j][0]) > len(core) and titled[j][0][-len(core):] == core]
        candidates += [j for j in persons if frag._initials_of(core, titled[j][0])]
        roots = {joins.find(j) for j in candidates}
        if len(roots) > 1 and titles:
            roots = {joins.find(j) for j in candidates if titled[j][1] & titles} or roots
        found[i] = roots
    for i, roots in found.items():
        if len(roots) == 1:
            joins.union(i, roots.pop())
    return joins


@pytest.mark.parametrize("seed", [5, 6])
def test_the_indexed_joins_give_the_clusters_of_comparing_every_pair(monkeypatch, seed):
    # titles, trailing tokens and initials are looked up in an index (a trie of names read
    # backwards, each name's initialled forms) instead of compared pairwise: the same clusters
    import harness.scoring.fragmentation as frag

    monkeypatch.setattr(frag, "FRAGMENT_LIMIT", 100_000)  # every joined cluster listed
    monkeypatch.setattr(frag, "FUZZY_WINDOW", 100_000)  # fuzzy on every pair too
    rows = _generated_persons(300, seed=seed)
    indexed = fragmentation(rows, None, MatchingConfig())
    monkeypatch.setattr(frag, "join_names", pairwise_join_names)
    pairwise = fragmentation(rows, None, MatchingConfig())
    assert indexed.joined_clusters > 5
    assert any(any("." in name for name in c.names) for c in indexed.top)  # initials are joined
    assert indexed == pairwise


def test_a_name_of_many_tokens_is_joined_by_its_trailing_tokens():
    long_name = " ".join(f"W{i}" for i in range(32_000)) + " HOLMES"
    frag = fragmentation([row("c1", (long_name, "person"), ("Holmes", "person"), ("MR " * 32_000 + "MARSH", "person"),
                              ("Marsh", "person"))])
    assert (frag.nodes, frag.clusters) == (4, 2)


def test_name_clusters_join_by_the_four_rules_in_any_order() -> None:
    from harness.scoring.fragmentation import name_clusters

    titles = {"OKAFOR": ["PERSON"], "AMARA OKAFOR": ["person"], "DOCK WORKERS' UNION": [], "DOCK WORKERS UNION": ["ORG"],
              "ROTTERDAM": ["GEO"], "VARGA": ["PERSON"], "TOMAS VARGA": ["PERSON"], "PARIS": ["GEO"], "PARIS HILTON": ["PERSON"]}
    clusters = name_clusters(titles)
    assert clusters == name_clusters(dict(reversed(list(titles.items()))))
    assert clusters["OKAFOR"] == clusters["AMARA OKAFOR"] and clusters["VARGA"] == clusters["TOMAS VARGA"]
    assert clusters["DOCK WORKERS' UNION"] == clusters["DOCK WORKERS UNION"]
    assert len({clusters["ROTTERDAM"], clusters["PARIS"], clusters["PARIS HILTON"], clusters["OKAFOR"]}) == 4
