"""Entity fragmentation across a variant's union graph (docs/scoring.md, "Entity fragmentation").

GraphRAG merges entities across text units by exact title: `clean_str(name.upper())` in
`graphrag/index/operations/extract_graph/graph_extractor.py` (2.x; `clean_str`, in
`graphrag/index/utils/string.py`, strips, HTML-unescapes and removes control characters), then
`finalize_entities` keeps one row per title. So `Sherlock Holmes` and `SHERLOCK HOLMES` are one
node, and `SHERLOCK HOLMES`, `HOLMES` and `MR. HOLMES` are three. `graphrag_title` is that key.

Joining (what entity resolution by the scoring's rules would merge), over the node keys of the
entity records of every case, as one union-find, in this order:

1. **Normalisation**: node keys whose `normalize_name` is equal (`SHERLOCK-HOLMES`, `THE BANK`/`BANK`).
2. **Fuzzy**: normalised names whose `rapidfuzz.fuzz.ratio / 100` is at least the suite's
   `matching.fuzzy_threshold`, the rule `align.py` applies to gold names, except names that
   differ only in digits (`APOLLO 11`/`APOLLO 12`): alignment pairs one prediction with one gold
   entity, but joining is transitive, and numbered names would chain into one cluster.
3. **Honorifics**: names equal once leading honorifics (`HONORIFICS`) are removed (`MR. HOLMES`/
   `HOLMES`), unless both are typed and share no type. A person's name also loses leading ranks
   and titles (`RANKS`: `INSPECTOR MARSH`/`MARSH`); other names keep them (`GENERAL ELECTRIC`).
4. **Person containment**: a person's name (type `PERSON_TYPES`, through the suite's synonyms)
   whose tokens, honorifics and ranks removed, are the trailing tokens of exactly one other
   person's name cluster (`HOLMES` -> `SHERLOCK HOLMES`, `INSPECTOR MARSH` -> `ADELINE MARSH`), or
   match it with initials (`J. ASHWORTH` -> `JULIAN ASHWORTH`: same number of tokens, the same
   last token, each one-letter token the initial of the other's). Steps 1-3 do not join `HOLMES`
   with `SHERLOCK HOLMES` (ratio 0.57). Containment is kept to persons because for other types a
   trailing part names something else (`YORK`/`NEW YORK`, `ENGLAND`/`BANK OF ENGLAND`); a leading
   part is never joined (`PARIS`/`PARIS HILTON`, `BANK`/`BANK OF ENGLAND`); a surname two
   different persons end with (`SMITH` of `JOHN SMITH` and `JANE SMITH`) is ambiguous and stays
   alone, unless the short name's honorific or rank is carried by exactly one of them (`CAPTAIN
   ASHWORTH` -> `CAPTAIN JULIAN ASHWORTH`, not `LADY CECILY ASHWORTH`). Every step-4 decision is
   taken on the clusters of steps 1-3, so the result does not depend on the order of names.

With gold, each gold entity's identity across cases is its normalised name, joined with the
entities of other cases whose name is one of its aliases (alias to alias does not join: `Smith`
may be an alias of two people; within one case two gold entities are two things). The node keys
the alignment (`explain_case`'s, read alone through `entity_matches`) matched to it, with every
record of that case of the same normalised name, are its fragments.
B-cubed items are the distinct (node key, gold identity) pairs; each item's predicted cluster is
its node key (GraphRAG) or its node key's joined cluster, its gold cluster its gold identity.
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cdist

from ..artifacts import BCubed, Fragmentation, GoldFragmentation, NameCluster
from ..model import CaseResult, GoldCase, MatchingConfig
from .case_score import entity_matches
from .normalize import canonical_type, normalize_name, type_table

FRAGMENT_LIMIT = 20  # clusters and gold fragments listed per variant (20,000 cases stay small)
_CHUNK = 256  # names compared at once by the fuzzy rule (a block times its window of float32 scores)

HONORIFICS: frozenset[str] = frozenset({
    "mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "lord", "lady", "mme", "mlle",
})
# Ranks and titles that stand before a person's name; removed from persons' names only.
RANKS: frozenset[str] = frozenset({
    "inspector", "detective", "sergeant", "sgt", "constable", "officer", "superintendent", "chief",
    "captain", "capt", "colonel", "col", "major", "lieutenant", "lt", "general", "gen", "admiral", "commander",
    "judge", "justice", "senator", "sen", "president", "minister", "governor", "mayor", "ambassador",
    "father", "fr", "reverend", "rev", "bishop", "rabbi", "imam", "saint", "st",
    "king", "queen", "prince", "princess", "duke", "duchess", "earl", "count", "countess", "baron", "baroness",
})
PERSON_TYPES: frozenset[str] = frozenset({"person", "people", "persons", "character", "human", "individual", "per"})

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_DIGITS = re.compile(r"\d")


def graphrag_title(name: str) -> str:
    """GraphRAG's node key of an entity name: `clean_str(name.upper())` (module docstring)."""
    return _CONTROL.sub("", html.unescape(name.upper().strip()))


class _Joins:
    """Union-find over indices; the smaller index is the root, so results do not depend on order."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


@dataclass
class _Node:
    title: str
    key: str  # normalize_name
    types: set[str] = field(default_factory=set)  # canonical types of its records
    cases: set[str] = field(default_factory=set)


def _core(key: str, person: bool = False) -> tuple[str, ...]:
    return _titled(key, person)[0]


def _titled(key: str, person: bool) -> tuple[tuple[str, ...], frozenset[str]]:
    """The name without its leading honorifics (and, for a person, ranks), and what was removed."""
    tokens = key.split()
    strip = HONORIFICS | RANKS if person else HONORIFICS
    removed: set[str] = set()
    while len(tokens) > 1 and tokens[0] in strip:
        removed.add(tokens[0])
        tokens = tokens[1:]
    return tuple(tokens), frozenset(removed)


def _initials_of(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """`J ASHWORTH` of `JULIAN ASHWORTH`: same length, the same last token, and every other token
    equal or a one-letter initial of the other's (at least one initial)."""
    if len(short) != len(full) or len(short) < 2 or short == full or short[-1] != full[-1]:
        return False
    initial = False
    for s, f in zip(short[:-1], full[:-1]):
        if len(s) == 1 and len(f) > 1 and f.startswith(s):
            initial = True
        elif s != f:
            return False
    return initial


def _surname_key(core: tuple[str, ...]) -> tuple[int, str, str]:
    return len(core), core[-1], "".join(token[:1] for token in core[:-1])


def _compatible(a: set[str], b: set[str]) -> bool:
    return not a or not b or bool(a & b)


def _fuzzy_pairs(keys: list[str], threshold: float) -> list[tuple[int, int]]:
    """Pairs of indices of `keys` whose fuzz.ratio / 100 >= threshold. Only names whose lengths allow
    it are compared (ratio <= 2 * shorter / (shorter + longer)), a block of names at a time."""
    if threshold <= 0.0:  # every pair is a candidate, as in align
        return [(0, i) for i in range(1, len(keys))]
    order = sorted(range(len(keys)), key=lambda i: (len(keys[i]), i))
    lengths = np.array([len(keys[i]) for i in order])
    cutoff = threshold * 100.0 - 1e-9
    pairs: list[tuple[int, int]] = []
    for start in range(0, len(order), _CHUNK):
        block = order[start:start + _CHUNK]
        # ratio >= t needs longer <= shorter * (2 - t) / t
        stop = int(np.searchsorted(lengths, len(keys[block[-1]]) * (2.0 - threshold) / threshold, side="right"))
        window = order[start:stop]
        scores = cdist([keys[i] for i in block], [keys[j] for j in window], scorer=fuzz.ratio,
                       score_cutoff=cutoff, dtype=np.float32, workers=-1)
        for r, c in zip(*np.nonzero(scores >= cutoff)):
            if c > r:  # the window starts with the block: each pair once
                pairs.append((block[int(r)], window[int(c)]))
    return pairs


def join_names(nodes: list[_Node], matching: MatchingConfig) -> _Joins:
    """The union-find of the four joining rules (module docstring) over `nodes`."""
    joins = _Joins(len(nodes))
    by_key: dict[str, int] = {}
    for i, node in enumerate(nodes):
        first = by_key.setdefault(node.key, i)
        joins.union(first, i)
    keys = list(by_key)
    for a, b in _fuzzy_pairs(keys, matching.fuzzy_threshold):
        if _DIGITS.sub("", keys[a]) != _DIGITS.sub("", keys[b]):  # APOLLO 11 / APOLLO 12 stay apart
            joins.union(by_key[keys[a]], by_key[keys[b]])
    persons = [i for i, node in enumerate(nodes) if node.types & PERSON_TYPES]
    person_set = set(persons)
    by_core: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, node in enumerate(nodes):
        by_core[_core(node.key, i in person_set)].append(i)
    for members in by_core.values():  # a handful of titles each: every compatible pair
        for n, i in enumerate(members):
            for j in members[n + 1:]:
                if _compatible(nodes[i].types, nodes[j].types):
                    joins.union(i, j)
    titled = {i: _titled(nodes[i].key, True) for i in persons}
    longer: dict[tuple[str, ...], list[int]] = defaultdict(list)  # trailing tokens -> longer names
    # (tokens, last token, first letters of the others) -> names: blocks of the names `_initials_of`
    # can pair (it needs all three equal), so persons sharing a surname are not compared pairwise
    by_surname: dict[tuple[int, str, str], list[int]] = defaultdict(list)
    for i in persons:
        core = titled[i][0]
        for k in range(1, len(core)):
            longer[core[k:]].append(i)
        by_surname[_surname_key(core)].append(i)
    found: dict[int, set[int]] = {}
    for i in persons:
        core, titles = titled[i]
        initials = [j for j in by_surname[_surname_key(core)] if _initials_of(core, titled[j][0])] \
            if any(len(token) == 1 for token in core[:-1]) else []  # no initial: `_initials_of` is False
        candidates = longer.get(core, []) + initials
        roots = {joins.find(j) for j in candidates}
        if len(roots) > 1 and titles:  # a surname of two people: the one who shares the title
            roots = {joins.find(j) for j in candidates if titled[j][1] & titles} or roots
        found[i] = roots
    for i, roots in found.items():
        if len(roots) == 1:
            joins.union(i, roots.pop())
    return joins


def _order(titles: Iterable[str], cases: Mapping[str, set[str]]) -> list[str]:
    return sorted(titles, key=lambda t: (-len(cases[t]), t))


def _bcubed(items: list[tuple[str, int]], cluster_of: Mapping[str, int]) -> BCubed:
    """B-cubed of items (node key, gold identity), predicted cluster `cluster_of[node key]`."""
    if not items:
        return BCubed(precision=None, recall=None, f1=None)
    together = Counter((cluster_of[title], gold) for title, gold in items)
    predicted = Counter(cluster_of[title] for title, _ in items)
    gold_sizes = Counter(gold for _, gold in items)
    # each of the n items of a (cluster, gold) cell has n correct items in both its clusters
    p = sum(n * n / predicted[c] for (c, _), n in together.items()) / len(items)
    r = sum(n * n / gold_sizes[g] for (_, g), n in together.items()) / len(items)
    return BCubed(precision=round(p, 6), recall=round(r, 6), f1=round(2 * p * r / (p + r), 6) if p + r else 0.0)


def _gold_identities(cases: list[GoldCase]) -> tuple[dict[tuple[str, int], int], list[str]]:
    """(case id, gold index) -> identity, and each identity's label (its first name)."""
    members = [(case.id, i) for case in cases for i in range(len(case.entities))]
    entity = {(case.id, i): ent for case in cases for i, ent in enumerate(case.entities)}
    joins = _Joins(len(members))
    by_name: dict[str, list[int]] = defaultdict(list)
    for m, ref in enumerate(members):
        by_name[normalize_name(entity[ref].name)].append(m)
    for group in by_name.values():
        for m in group[1:]:
            joins.union(group[0], m)
    for m, ref in enumerate(members):
        for alias in entity[ref].aliases:
            for other in by_name.get(normalize_name(alias), []):
                if members[other][0] != ref[0]:  # two gold entities of one case are two things
                    joins.union(m, other)
    roots: dict[int, int] = {}
    labels: list[str] = []
    identity: dict[tuple[str, int], int] = {}
    for m, ref in enumerate(members):
        root = joins.find(m)
        if root not in roots:
            roots[root] = len(labels)
            labels.append(entity[members[root]].name)
        identity[ref] = roots[root]
    return identity, labels


def _gold_part(rows: list[CaseResult], gold: Mapping[str, GoldCase], matching: MatchingConfig,
               cluster_of: Mapping[str, int]) -> GoldFragmentation | None:
    annotated = [(row, gold[row.case_id]) for row in rows
                 if row.score is not None and row.case_id in gold and gold[row.case_id].has_entity_gold]
    if not annotated:
        return None
    identity, labels = _gold_identities([case for _, case in annotated])
    fragments: dict[int, set[str]] = defaultdict(set)
    found_in: dict[int, set[str]] = defaultdict(set)
    title_cases: dict[str, set[str]] = defaultdict(set)
    for row, case in annotated:
        first_index = {}
        for i, ent in enumerate(case.entities):
            first_index.setdefault(ent.name, i)
        titles: dict[str, set[str]] = defaultdict(set)
        for ent in row.graph.entities:
            title = graphrag_title(ent.name)
            if ent.name.strip() and title:
                titles[normalize_name(ent.name)].add(title)
        for gold_name, pred_name, _, _ in entity_matches(case, row.graph, matching):
            who = identity[(case.id, first_index[gold_name])]
            found_in[who].add(case.id)
            for title in titles[normalize_name(pred_name)]:
                fragments[who].add(title)
                title_cases[title].add(case.id)
    items = sorted((title, who) for who, titles in fragments.items() for title in titles)
    as_graphrag = {title: i for i, title in enumerate(sorted({title for title, _ in items}))}
    worst = sorted(fragments, key=lambda who: (-len(fragments[who]), -len(found_in[who]), labels[who]))
    return GoldFragmentation(
        gold_entities=len(labels),
        found=len(fragments),
        fragmented=sum(1 for titles in fragments.values() if len(titles) >= 2),
        mean_names=round(sum(len(t) for t in fragments.values()) / len(fragments), 6) if fragments else None,
        items=len(items),
        graphrag=_bcubed(items, as_graphrag),
        joined=_bcubed(items, cluster_of),
        worst=[NameCluster(names=_order(fragments[who], title_cases), cases=len(found_in[who]), gold=labels[who])
               for who in worst if len(fragments[who]) >= 2][:FRAGMENT_LIMIT],
    )


def fragmentation(rows: list[CaseResult], gold: Mapping[str, GoldCase] | None = None,
                  matching: MatchingConfig | None = None) -> Fragmentation:
    """Fragmentation of one variant's union graph (module docstring); the gold part only over
    cases annotated with entities."""
    cfg = matching or MatchingConfig()
    types = type_table(cfg.type_synonyms)
    nodes: dict[str, _Node] = {}
    for row in rows:
        for ent in row.graph.entities:
            title = graphrag_title(ent.name)
            if not ent.name.strip() or not title:
                continue
            node = nodes.setdefault(title, _Node(title, normalize_name(ent.name)))
            kind = canonical_type(ent.type, types)
            if kind:
                node.types.add(kind)
            node.cases.add(row.case_id)
    listed = sorted(nodes.values(), key=lambda n: n.title)
    joins = join_names(listed, cfg)
    cluster_of = {node.title: joins.find(i) for i, node in enumerate(listed)}
    clusters: dict[int, list[_Node]] = defaultdict(list)
    for i, node in enumerate(listed):
        clusters[joins.find(i)].append(node)
    joined = []
    for members in clusters.values():
        if len(members) >= 2:
            cases = {title.title: title.cases for title in members}
            joined.append(NameCluster(names=_order(cases, cases), cases=len(set().union(*cases.values()))))
    joined.sort(key=lambda c: (-len(c.names), -c.cases, c.names[0]))
    return Fragmentation(
        nodes=len(listed),
        clusters=len(clusters),
        joined_clusters=len(joined),
        fragmentation_rate=round((len(listed) - len(clusters)) / len(listed), 6) if listed else None,
        top=joined[:FRAGMENT_LIMIT],
        gold=_gold_part(rows, gold or {}, cfg, cluster_of),
    )
