"""The metric registry: every per-case metric and every pooled count, declared once.

A family module (`entities.py`, `relationships.py`, `grounding.py`) calls `register_count` and
`register` at import time; `harness/metrics/__init__.py` imports the families, and that import is
the registration. Aggregation, summary.json, the gate, reports, JUnit, the pytest plugin and the
suite's `thresholds:` and `regression.metrics` iterate `metrics()` and `counts()`: no other module
keeps a list of metric names or labels.

Order is declaration order (the key order of summary.json); `headline_rank` orders the headline
figures (ratios to the baseline, suite thresholds), `report_rank` the rows of report tables.

A metric's `kind` says what its value is: a `rate` (a share in 0..1, shown as a percentage; its
micro average is a ratio of pooled counts) or a `count` (records per case, shown as a number; its
micro is the total over the cases that have a value, its macro the mean per case). A count a case
cannot give (no example text to find leaks in, no reference-free figures in an old row) is None
for that case, which then pools nothing for it: `Pooled.total` is None when no case pooled.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ..model import CaseScore

GoldKind = Literal["entities", "relationships"]
Direction = Literal[">=", "<="]
Kind = Literal["rate", "count"]


@dataclass(frozen=True)
class Count:
    """One per-case count pooled over a suite (summed into summary.json's `counts`)."""

    name: str
    # None: the case has no such count (no example text to find leaks in, no type list, a row
    # scored before reference-free figures existed) and pools nothing for it
    value: Callable[[CaseScore], int | None]
    # counts of a gold kind pool only the cases annotated for it (a case without gold adds
    # neither hits nor misses); None: every case that has a value pools
    gold: GoldKind | None


class Pooled(Mapping[str, int]):
    """The pooled counts a metric's micro formula reads: `c[name]` is the total (0 when no case
    pooled), `c.total(name)` the same but None when no case pooled, `c.cases(name)` how many did."""

    def __init__(self, totals: Mapping[str, int], cases: Mapping[str, int] | None = None) -> None:
        self._totals = dict(totals)
        # without per-count case numbers (one case's counts), a count pooled iff it is present
        self._cases = dict(cases) if cases is not None else {name: 1 for name in self._totals}

    def __getitem__(self, name: str) -> int:
        return self._totals[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._totals)

    def __len__(self) -> int:
        return len(self._totals)

    def cases(self, name: str) -> int:
        return self._cases.get(name, 0)

    def total(self, name: str) -> int | None:
        return self._totals[name] if self.cases(name) else None


@dataclass(frozen=True)
class Metric:
    """One metric: its per-case value, and how its micro average is computed from pooled counts."""

    name: str  # stable: suite files, baselines and summary.json use it
    label: str  # as a report row or plot title: "Entity recall"
    phrase: str  # inside a sentence (gate messages): "entity recall"
    value: Callable[[CaseScore], float | None]  # the per-case value (None: undefined on this case)
    micro: Callable[[Pooled], float | None]  # from the pooled counts
    pools: tuple[str, ...]  # the counts `micro` reads
    gold: GoldKind | None  # the gold it needs; None for a reference-free metric
    higher_is_better: bool = True
    # may be a suite threshold (`thresholds: {name: limit}`), met when `value <op> limit`; a
    # threshold also applies to each case's own value (junit.xml, the pytest plugin)
    threshold: Direction | None = None
    headline_rank: int | None = None  # ratio to the baseline in summary.json, in this order
    report_rank: int | None = None  # a row of the report tables, in this order
    bar_chart: bool = False  # a bar of the scores-per-variant plot
    # a key figure: a column of the console table, a panel of the per-case scatter plot, a property
    # of each case in junit.xml and the pytest plugin
    key_figure: bool = False
    short_label: str = ""  # the console column's heading, when `phrase` is too long
    # a metric only some suites can have (typed gold, an ontology): report tables leave its row
    # out when no column has a value, instead of a row of n/a in every suite without them
    only_where_defined: bool = False
    kind: Kind = "rate"  # a share (0..1, shown as a percentage) or a count (module docstring)
    # other names a suite may use for it (`thresholds:`, `regression.metrics`); normalised to `name`
    aliases: tuple[str, ...] = ()
    # a column of the console table besides the key figures: "always", or "without_gold" (only in
    # the compact reference-free set of a suite that has no gold at all)
    console: Literal["always", "without_gold"] | None = None
    # the suite kind whose figure it is (harness.model.SuiteKind): key figures, console columns,
    # plots and junit properties of a suite are its own kind's; a suite of another kind has None
    suite_kind: str = "extract_graph"

    @property
    def column_label(self) -> str:
        return self.short_label or self.phrase

    @property
    def is_count(self) -> bool:
        return self.kind == "count"

    def format(self, value: float | None, *, digits: int = 1) -> str:
        """A value of this metric as shown everywhere: a rate as a percentage ("87.5%"), a count as
        a number ("3", a mean per case "1.5"); None as "n/a"."""
        return format_value(self.kind, value, digits=digits)

    def format_change(self, delta: float | None) -> str:
        """A difference of two values: "+4.2 pt" for a rate, "+1.5" for a count; None as "—"."""
        if delta is None:
            return "—"
        if self.is_count:
            return f"{delta:+.{_count_digits(delta)}f}"
        return f"{delta * 100:+.1f} pt"

    def format_size(self, amount: float) -> str:
        """An unsigned amount of change (a tolerance, a drop): "5.0 pt" for a rate, "0.2" for a count."""
        if self.is_count:
            return f"{amount:.{_count_digits(amount)}f}"
        return f"{amount * 100:.1f} pt"

    def worse(self, before: float, after: float) -> float:
        """How much worse `after` is than `before` in this metric's direction (negative: better):
        a drop for a higher-is-better metric, a rise for a lower-is-better one."""
        return before - after if self.higher_is_better else after - before

    @property
    def axis_label(self) -> str:
        """The label on two lines, for plot axes."""
        return self.label.replace(" ", "\n", 1)


def _count_digits(value: float) -> int:
    """Whole numbers without decimals, others with two (a mean per case, a tolerance)."""
    return 0 if float(value).is_integer() else 2


def format_value(kind: Kind, value: float | None, *, digits: int = 1) -> str:
    """`Metric.format` for a kind (also for values whose metric is not at hand)."""
    if value is None:
        return "n/a"
    if kind == "count":
        return f"{value:,.{_count_digits(value)}f}"
    return f"{value:.{digits}%}"


_METRICS: dict[str, Metric] = {}
_COUNTS: dict[str, Count] = {}
_ALIASES: dict[str, str] = {}


def register_count(count: Count) -> Count:
    if count.name in _COUNTS:
        raise ValueError(f"count {count.name!r} is registered twice")
    _COUNTS[count.name] = count
    _fingerprint.cache_clear()
    return count


def register(metric: Metric) -> Metric:
    """Add a metric (its counts must be registered first); names are unique."""
    if metric.name in _METRICS or metric.name in _ALIASES:
        raise ValueError(f"metric {metric.name!r} is registered twice")
    unknown = [c for c in metric.pools if c not in _COUNTS]
    if unknown:
        raise ValueError(f"metric {metric.name!r} pools unregistered count(s) {', '.join(unknown)}")
    taken = [a for a in metric.aliases if a in _METRICS or a in _ALIASES]
    if taken:
        raise ValueError(f"metric {metric.name!r}: alias {', '.join(taken)} is already a metric or an alias")
    _METRICS[metric.name] = metric
    for alias in metric.aliases:
        _ALIASES[alias] = metric.name
    _thresholded.cache_clear()
    _fingerprint.cache_clear()
    return metric


_plugins_loaded = False


def register_entry(entry: object) -> None:
    """Register what a `kg_prompt_harness.metrics` entry point names: a `Metric` or a `Count` (a
    metric's counts first: entry points load by name), or a module whose import registered its
    metrics with `register_count` and `register`, as the built-in families do."""
    import types

    if isinstance(entry, Count):
        register_count(entry)
    elif isinstance(entry, Metric):
        register(entry)
    elif not isinstance(entry, types.ModuleType):
        raise TypeError(f"a metrics entry point names a Metric, a Count or a module, not {type(entry).__name__}")


def _loaded() -> dict[str, Metric]:
    """The metrics, plugins' included: the first reader loads the plugins' entry points, after the
    built-in families (importing this module imported `harness.metrics` first), so theirs come
    last in summary.json."""
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        from .. import plugins

        plugins.load("metrics", register_entry)
    return _METRICS


def register_prf(prefix: str, label: str, phrase: str, *, scores: Callable[[CaseScore], Any],
                 tp: str, pred: str, gold_count: str, gold: GoldKind,
                 precision: Mapping[str, Any], recall: Mapping[str, Any], f1: Mapping[str, Any]) -> None:
    """Register `<prefix>_precision`, `_recall` and `_f1` (in that order) of one family of matches:
    per case read from `scores(case)` (None: the case has none), micro from the pooled counts `tp`,
    `pred` and `gold_count`. `label`/`phrase` hold `{}` for the metric word ("Relationship {}
    (endpoints)"); `precision`, `recall` and `f1` are each metric's own flags (ranks, threshold...)."""
    from .ratios import f1 as f1_of
    from .ratios import precision as precision_of
    from .ratios import recall as recall_of

    def read(attr: str) -> Callable[[CaseScore], float | None]:
        return lambda s: None if (found := scores(s)) is None else getattr(found, attr)

    rows = (
        ("precision", "precision", lambda c: precision_of(c[tp], c[pred], c[gold_count]), (tp, pred, gold_count), precision),
        ("recall", "recall", lambda c: recall_of(c[tp], c[gold_count]), (tp, gold_count), recall),
        ("f1", "F1", lambda c: f1_of(c[tp], c[pred], c[gold_count]), (tp, pred, gold_count), f1),
    )
    for attr, word, micro, pools, flags in rows:
        register(Metric(f"{prefix}_{attr}", label.format(word), phrase.format(word), value=read(attr), micro=micro,
                        pools=pools, gold=gold, **flags))


def metrics() -> tuple[Metric, ...]:
    """Every metric in declaration order."""
    return tuple(_loaded().values())


def metric_names() -> tuple[str, ...]:
    return tuple(_loaded())


def counts() -> tuple[Count, ...]:
    _loaded()
    return tuple(_COUNTS.values())


def fingerprint() -> str:
    """A short name of the registered metrics and counts, in order: stored with each case's values
    (`model.CaseMetrics.registry`), so values computed against another set are told apart."""
    return _fingerprint()


@lru_cache(maxsize=1)
def _fingerprint() -> str:
    names = "\n".join([*_METRICS, "", *_COUNTS])
    return hashlib.sha256(names.encode("utf-8")).hexdigest()[:16]


def get(name: str) -> Metric | None:
    """A metric by its name or one of its aliases."""
    return _loaded().get(_ALIASES.get(name, name))


def canonical(name: str) -> str:
    """The registered name of a metric named by an alias (`grounded_rate` -> `grounding_rate`);
    any other name unchanged."""
    _loaded()
    return _ALIASES.get(name, name)


def aliases() -> dict[str, str]:
    """alias -> registered name."""
    _loaded()
    return dict(_ALIASES)


def format_metric(name: str, value: float | None, *, digits: int = 1) -> str:
    """A value of the named metric as `Metric.format` shows it (an unknown name as a rate)."""
    metric = get(name)
    return format_value("rate", value, digits=digits) if metric is None else metric.format(value, digits=digits)


def phrase(name: str) -> str:
    """A metric's name inside a sentence (any name: unknown ones are spelled out)."""
    metric = get(name)
    return metric.phrase if metric is not None else name.replace("_", " ")


def gold_kind(name: str) -> GoldKind | None:
    metric = get(name)
    return None if metric is None else metric.gold


def headline() -> tuple[Metric, ...]:
    """The headline metrics (ratios to the baseline), in headline order."""
    return tuple(sorted((m for m in _loaded().values() if m.headline_rank is not None), key=lambda m: m.headline_rank or 0))


def thresholded() -> tuple[Metric, ...]:
    """Metrics a suite may set a threshold on, in headline order (the order of `thresholds:`)."""
    return _thresholded()


@lru_cache(maxsize=1)
def _thresholded() -> tuple[Metric, ...]:
    """`thresholded`, sorted once per set of metrics (`register` clears it): reports ask per case."""
    ranked = sorted(_loaded().values(), key=lambda m: (m.headline_rank is None, m.headline_rank or 0))
    return tuple(m for m in ranked if m.threshold is not None)


def in_reports() -> tuple[Metric, ...]:
    """The rows of the report tables, in report order."""
    return tuple(sorted((m for m in _loaded().values() if m.report_rank is not None), key=lambda m: m.report_rank or 0))


def in_bar_chart() -> tuple[Metric, ...]:
    return tuple(m for m in in_reports() if m.bar_chart)


def key_figures(kind: str = "extract_graph") -> tuple[Metric, ...]:
    """The key figures of a suite kind (extraction: entity and relationship recall)."""
    return tuple(m for m in _loaded().values() if m.key_figure and m.suite_kind == kind)


def of_kind(kind: str, found: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """The metrics of `found` that are figures of a suite kind."""
    return tuple(m for m in found if m.suite_kind == kind)


def console_columns(*, gold: bool, kind: str = "extract_graph") -> tuple[Metric, ...]:
    """The metric columns of the console table: the kind's key figures then its metrics shown
    "always"; but where the key figures need gold (extraction's recalls) and the suite has none,
    every metric of the kind with a `console` setting, in declaration order. Decided from the
    metrics' own declarations, so a plugin kind is treated as a built-in one."""
    mine = of_kind(kind, tuple(_loaded().values()))
    keys = key_figures(kind)
    if gold or not any(m.gold for m in keys):
        return keys + tuple(m for m in mine if m.console == "always" and not m.key_figure)
    return tuple(m for m in mine if m.console is not None)
