"""`harness estimate`: a suite, its recorded run, the corpus and (when there is one) the project's
cache in; every variant's projection out, with the lines the console prints and the JSON `--json`
writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..llm.pricing import load_prices
from ..suites import Suite
from .cache_profile import CacheProfile, read_profile
from .corpus import Corpus, chunker_for, corpus_from_counts, corpus_from_folder
from .projection import INTERVAL_METHOD, VariantProjection, project_variant
from .sample import latest_run, read_samples, with_chunk_tokens

# the suite kinds that are an indexing stage, and the stage each is
KIND_STAGES = {"extract_graph": "extraction", "extract_claims": "claims", "summarize_descriptions": "summary",
               "community_report": "report"}


@dataclass
class Estimate:
    suite: str
    run: str
    corpus: Corpus
    cache: CacheProfile | None
    concurrency: int
    variants: list[VariantProjection]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        cache = None if self.cache is None else {
            "source": self.cache.source, "model": self.cache.model, "chunks": self.cache.chunks,
            "chunks_source": self.cache.chunks_source,
            "calls": {kind: calls.calls for kind, calls in self.cache.kinds.items()},
        }
        return {
            "suite": self.suite, "run": self.run,
            "corpus": {"chunks": self.corpus.chunks, "documents": self.corpus.documents,
                       "tokens": self.corpus.tokens, "encoding": self.corpus.encoding, "source": self.corpus.source},
            "cache": cache, "concurrency": self.concurrency, "interval": INTERVAL_METHOD,
            "variants": [v.to_json() for v in self.variants], "notes": list(self.notes),
        }


def _cache_of(project: Path | None) -> Path | None:
    """A GraphRAG project's cache folder, when it has one."""
    if project is None:
        return None
    from ..importers.graphrag import read_graphrag_project
    from ..importers.graphrag_cache import cache_folder

    folder = cache_folder(read_graphrag_project(project).settings, project)
    return folder if folder.is_dir() else None


def estimate(suite: Suite, *, run: Path | None, reports: Path, corpus_dir: Path | None, documents: int | None,
             tokens: int | None, cache: Path | None, concurrency: int | None,
             variants: list[str] | None = None) -> Estimate:
    stage = KIND_STAGES.get(suite.spec.kind)
    if stage is None:
        raise InputError(f"{suite.path}: a suite of kind {suite.spec.kind} is no indexing stage: `harness estimate` projects "
                         f"the suites of {', '.join(KIND_STAGES)}")
    if (corpus_dir is None) == (documents is None and tokens is None):
        raise InputError("give --corpus DIR, or --documents N with --tokens T")
    if corpus_dir is None and (documents is None or tokens is None):
        raise InputError("--documents and --tokens go together")
    chunker = chunker_for(suite.spec.engine)
    corpus = corpus_from_folder(corpus_dir, chunker) if corpus_dir is not None else \
        corpus_from_counts(documents or 0, tokens or 0, chunker)
    # the model each variant calls: its own `model:`, else its matrix cell's or the suite's (as the summary)
    models = {name: spec.model or suite.model_settings(name).name for name, spec in suite.spec.variants.items()}
    if variants:
        unknown = [v for v in variants if v not in models]
        if unknown:
            raise InputError(f"--variant {unknown[0]}: not a variant of suite {suite.name} ({', '.join(models)})")
        models = {v: models[v] for v in variants}
    run_dir = run if run is not None else latest_run(reports, suite.name)
    data, samples = read_samples(run_dir, suite.name, models)
    if stage in ("extraction", "claims"):
        texts = {case.id: case.text for case in suite.cases}
        samples = [with_chunk_tokens(sample, texts, corpus.encoding) for sample in samples]
    cache_dir = cache if cache is not None else _cache_of(corpus.project)
    own_cache = cache is None or (corpus.project is not None and cache.resolve().is_relative_to(corpus.project.resolve()))
    prices = load_prices(suite.root, suite.spec.prices)  # the suite's own prices too, as its runs use
    workers = concurrency or suite.spec.model.concurrency
    projections: list[VariantProjection] = []
    profile: CacheProfile | None = None
    notes = list(corpus.warnings)
    for sample in samples:
        if cache_dir is not None:
            try:
                profile = read_profile(cache_dir, model=sample.model,
                                       corpus_chunks=corpus.chunks if own_cache and corpus.project is not None else None)
            except InputError as exc:
                if cache is not None:  # the cache the user named: its problem is the answer
                    raise
                notes.append(f"the project's cache is not used: {exc.message.removeprefix('--cache ')}")
                cache_dir = profile = None
        projection = project_variant(sample, kind_stage=stage, corpus=corpus, profile=profile, prices=prices,
                                     concurrency=workers)
        if profile is not None and profile.model_note:
            projection.notes.append(profile.model_note)
        projections.append(projection)
    return Estimate(suite.name, str(data.run_dir), corpus, profile, workers, projections, notes)
