"""`harness view`: a static site over every run of every suite in a reports folder (docs/view.md).
One module per step: `scan` (which runs and baselines there are), `figures` (what the index
holds of a run), `casedata` (a run's per-case data, loaded by the page on demand), `pairs` (the
paired statistics of two runs), `diffs` (`harness diff --json` files), `build` (the files written);
the command is harness/cli/view.py."""
