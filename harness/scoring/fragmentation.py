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
   entity, but joining is transitive, and numbered names would chain into one cluster. Each name
   is compared with the `FUZZY_WINDOW` names next to it in alphabetical order and the
   `FUZZY_WINDOW` next to it in the order of names read backwards (the sorted neighbourhood of
   record linkage): names that alike share a long start or a long end, so they sort close in one
   of the two orders. Up to `FUZZY_WINDOW + 1` names every pair is compared; beyond, the work
   grows with the number of names, not its square (40,000 names of one answer).
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
   Trailing tokens are looked up in a trie of names read backwards, and initials in an index of
   each name's initialled forms (names of at most `MAX_INITIALLED_TOKENS` tokens), so one name of
   32,000 tokens costs its length and not its square.

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
FUZZY_WINDOW = 64  # names each name is compared with, after it in each of the two orders (step 2)
MAX_INITIALLED_TOKENS = 6  # longest name matched by initials (step 4): 31 initialled forms at most

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
    start = 0
    while start < len(tokens) - 1 and tokens[start] in strip:
        start += 1
    return tuple(tokens[start:]), frozenset(tokens[:start])


def _initialled(core: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every form of `core` with one or more of its first tokens (not the last) cut to their
    initial: the short names `_initials_of` pairs with it (`J ASHWORTH` of `JULIAN ASHWORTH`)."""
    if not 2 <= len(core) <= MAX_INITIALLED_TOKENS:
        return []
    cuttable = [k for k, token in enumerate(core[:-1]) if len(token) > 1]
    forms = []
    for mask in range(1, 1 << len(cuttable)):
        form = list(core)
        for bit, k in enumerate(cuttable):
            if mask >> bit & 1:
                form[k] = core[k][0]
        forms.append(tuple(form))
    return forms


def _initials_of(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """`J ASHWORTH` of `JULIAN ASHWORTH`: same length, the same last token, and every other token
    equal or a one-letter initial of the other's (at least one initial). Names matched this way
    are found through `_initialled`; this is its definition, kept for the tests."""
    if len(short) != len(full) or len(short) < 2 or short == full or short[-1] != full[-1]:
        return False
    initial = False
    for s, f in zip(short[:-1], full[:-1]):
        if len(s) == 1 and len(f) > 1 and f.startswith(s):
            initial = True
        elif s != f:
            return False
    return initial


def _compatible(a: set[str], b: set[str]) -> bool:
    return not a or not b or bool(a & b)


def _fuzzy_pairs(keys: list[str], threshold: float, window: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (two index arrays) of `keys` whose fuzz.ratio / 100 >= threshold, among each key and
    the `window` (default FUZZY_WINDOW) keys after it in alphabetical order and in the order of
    keys read backwards."""
    n = len(keys)
    window = window or FUZZY_WINDOW
    if threshold <= 0.0:  # every pair is a candidate, as in align
        return np.zeros(max(0, n - 1), dtype=np.int64), np.arange(1, n, dtype=np.int64)
    cutoff = threshold * 100.0 - 1e-9
    firsts: list[np.ndarray] = []
    seconds: list[np.ndarray] = []
    for order in (sorted(range(n), key=keys.__getitem__), sorted(range(n), key=lambda i: keys[i][::-1])):
        ids = np.array(order, dtype=np.int64)
        for start in range(0, n, window):
            block = order[start:start + window]
            ahead = order[start:start + 2 * window]
            scores = cdist([keys[i] for i in block], [keys[j] for j in ahead], scorer=fuzz.ratio,
                           score_cutoff=cutoff, dtype=np.float32, workers=-1)
            r, c = np.nonzero(scores >= cutoff)
            keep = (c > r) & (c - r <= window)  # each pair once, and only within the window
            firsts.append(ids[start + r[keep]])
            seconds.append(ids[start + c[keep]])
    if not firsts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(firsts), np.concatenate(seconds)


def _join_components(joins: _Joins, members: np.ndarray, a: np.ndarray, b: np.ndarray, size: int) -> None:
    """Join the ends of every edge (a[k], b[k]) over `size` points, each point standing for node
    `members[point]`: connected components first (scipy), then one union per node."""
    if not len(a):
        return
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(size, size))
    _, labels = connected_components(graph, directed=False)
    first: dict[int, int] = {}
    for point, label in enumerate(labels.tolist()):
        leader = first.setdefault(label, point)
        if leader != point:
            joins.union(int(members[leader]), int(members[point]))


def _few(box: list[int], root: int) -> None:
    """Keep at most two distinct roots: a step-4 decision only asks "none, one or several"."""
    if len(box) < 2 and root not in box:
        box.append(root)


class _PersonIndex:
    """The persons a person's name may be the short form of (step 4), as at most two distinct
    clusters of steps 1-3, overall and per title: names it is the trailing tokens of (a trie of
    names read backwards, one node per distinct suffix) and names it is an initialled form of."""

    def __init__(self) -> None:
        self.children: list[dict[str, int]] = [{}]
        self.below: list[list[int]] = [[]]  # longer names ending with the node's tokens
        self.below_titled: dict[tuple[int, str], list[int]] = {}
        self.end: dict[int, int] = {}  # person -> the node of its whole name
        self.initialled: dict[tuple[str, ...], list[int]] = {}
        self.initialled_titled: dict[tuple[tuple[str, ...], str], list[int]] = {}

    def add(self, person: int, core: tuple[str, ...], titles: frozenset[str], root: int) -> None:
        node = 0
        for depth, token in enumerate(reversed(core), 1):
            child = self.children[node].get(token)
            if child is None:
                child = len(self.children)
                self.children[node][token] = child
                self.children.append({})
                self.below.append([])
            node = child
            if depth < len(core):  # a proper suffix of this name
                _few(self.below[node], root)
                for title in titles:
                    _few(self.below_titled.setdefault((node, title), []), root)
        self.end[person] = node
        for form in _initialled(core):
            _few(self.initialled.setdefault(form, []), root)
            for title in titles:
                _few(self.initialled_titled.setdefault((form, title), []), root)

    def longer(self, person: int, core: tuple[str, ...], titles: frozenset[str]) -> list[int]:
        """The clusters (at most two) this person's name may be a short form of; of several, those
        that share one of its titles when there are any (module docstring)."""
        node = self.end[person]
        found: list[int] = []
        for root in [*self.below[node], *self.initialled.get(core, [])]:
            _few(found, root)
        if len(found) > 1 and titles:
            titled: list[int] = []
            for title in titles:
                for root in [*self.below_titled.get((node, title), []),
                             *self.initialled_titled.get((core, title), [])]:
                    _few(titled, root)
            return titled or found
        return found


def join_names(nodes: list[_Node], matching: MatchingConfig) -> _Joins:
    """The union-find of the four joining rules (module docstring) over `nodes`."""
    joins = _Joins(len(nodes))
    by_key: dict[str, int] = {}
    for i, node in enumerate(nodes):
        first = by_key.setdefault(node.key, i)
        joins.union(first, i)
    keys = list(by_key)
    a, b = _fuzzy_pairs(keys, matching.fuzzy_threshold)
    if len(a):  # APOLLO 11 / APOLLO 12 stay apart: compared without digits, once per name
        undigited: dict[str, int] = {}
        plain = np.array([undigited.setdefault(_DIGITS.sub("", key), len(undigited)) for key in keys], dtype=np.int64)
        differ = plain[a] != plain[b]
        _join_components(joins, np.array([by_key[key] for key in keys], dtype=np.int64), a[differ], b[differ],
                         len(keys))
    persons = [i for i, node in enumerate(nodes) if node.types & PERSON_TYPES]
    person_set = set(persons)
    by_core: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, node in enumerate(nodes):
        by_core[_core(node.key, i in person_set)].append(i)
    for members in by_core.values():  # compatible titles of one name: the pairs' components
        untyped = [i for i in members if not nodes[i].types]
        if untyped:  # compatible with every other: one cluster
            for i in members[1:]:
                joins.union(members[0], i)
            continue
        holder: dict[str, int] = {}
        for i in members:
            for kind in nodes[i].types:
                joins.union(holder.setdefault(kind, i), i)
    titled = {i: _titled(nodes[i].key, True) for i in persons}
    index = _PersonIndex()
    for i in persons:
        index.add(i, *titled[i], joins.find(i))
    found = {i: index.longer(i, *titled[i]) for i in persons}
    for i, roots in found.items():
        if len(roots) == 1:
            joins.union(i, roots[0])
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
        first_index: dict[str, int] = {}
        for i, gold_ent in enumerate(case.entities):
            first_index.setdefault(gold_ent.name, i)
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


def name_clusters(titles: Mapping[str, Iterable[str]], matching: MatchingConfig | None = None) -> dict[str, int]:
    """The joined cluster of each node key of `titles` (node key -> the types written for it), by
    the four joining rules above: what `harness diff` reads as one thing named differently in two
    graphs (harness/graph_diff/match.py). Cluster numbers are the smallest index of a member in the
    sorted node keys, so they do not depend on the order of `titles`."""
    cfg = matching or MatchingConfig.model_validate({})
    types = type_table(cfg.type_synonyms)
    listed = []
    for title in sorted(titles):
        node = _Node(title, normalize_name(title))
        node.types = {kind for kind in (canonical_type(t, types) for t in titles[title]) if kind}
        listed.append(node)
    joins = join_names(listed, cfg)
    return {node.title: joins.find(i) for i, node in enumerate(listed)}
