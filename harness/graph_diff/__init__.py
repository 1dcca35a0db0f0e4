"""`harness diff A B`: what changed between two knowledge graphs (docs/diff.md).

Each side is read into one `graph.Graph` (`read.read_side`: a GraphRAG output folder, a LightRAG
working folder, or one variant of a suite's run), the two are matched (`match`: the same node key,
or one cluster of the fragmentation rules), the differences are one `diff.GraphDiff` value
(`diff.diff_graphs`), and `render` prints it; `--json` writes the value (its shape is documented
in docs/diff.md and kept stable for `harness view`). The command is harness/cli/diff.py."""
