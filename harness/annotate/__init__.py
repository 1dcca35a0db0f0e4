"""`harness annotate`: gold proposed from a run, reviewed in a page, applied to the suite, and the
agreement of two reviewers (docs/annotate.md). One module per step: `gold_file` (the side file a
suite includes), `proposals`, `page`, `apply`, `agreement`; the command is harness/cli/annotate.py."""
