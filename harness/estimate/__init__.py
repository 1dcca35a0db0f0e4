"""`harness estimate SUITE --corpus DIR`: what indexing a whole corpus would take, per variant
(docs/estimate.md).

`corpus` counts the chunks the engine would cut (the importers' chunkers), `sample` reads what the
suite's recorded run measured per case, `cache_profile` the ratios of the later stages from a
project's cache (through `harness.cache_audit`), `projection` scales and intervals them,
`estimate` ties them together and `render` prints it. The command is harness/cli/estimate.py."""
