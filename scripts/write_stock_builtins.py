"""Write the built-in prompts that are GraphRAG's own stock extraction prompts, word for word, from
the copies in tests/fixtures/stock_prompts/ (read from GraphRAG's repository; see its README), so
that `harness import graphrag` can offer the version's real stock prompt as the `default` variant.

    .venv/bin/python scripts/write_stock_builtins.py

The prompt text is written as a YAML scalar by the YAML library (exact round trip, every space and
line end kept), under a header with the source and GraphRAG's MIT license notice.
"""

from __future__ import annotations

from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
STOCK = REPO / "tests" / "fixtures" / "stock_prompts"
OUT = REPO / "harness" / "builtin_prompts"

# builtin name -> (fixture file, versions, tag, commit, source file in GraphRAG)
STOCK_PROMPTS = {
    "stock_extract_graph_2x": (
        "graphrag-2/prompts/extract_graph.txt", "0.3-2.x", "v2.7.0", "fdb7e3835badc483f50605db476d8636aeea7156",
        "graphrag/prompts/index/extract_graph.py (GRAPH_EXTRACTION_PROMPT; the same text since v0.3, in "
        "graphrag/prompts/index/entity_extraction.py and index/graph/extractors/graph/prompts.py before v2)"),
    "stock_extract_graph_3x": (
        "graphrag-3/prompts/extract_graph.txt", "3.x", "v3.1.2", "243637c4eb94e34c3a5e5c7d871a725e8d6b77fc",
        "packages/graphrag/graphrag/prompts/index/extract_graph.py (GRAPH_EXTRACTION_PROMPT)"),
}

LICENSE = """\
# MIT License
# Copyright (c) Microsoft Corporation.
#
# Permission is hereby granted, free of charge, to any person obtaining a copy of this software
# and associated documentation files (the "Software"), to deal in the Software without
# restriction, including without limitation the rights to use, copy, modify, merge, publish,
# distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
# Software is furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in all copies or
# substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
# BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
# NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
# DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
# OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
"""


def render(name: str) -> str:
    fixture, versions, tag, commit, source = STOCK_PROMPTS[name]
    text = (STOCK / fixture).read_text(encoding="utf-8")
    header = (f"# Built-in: GraphRAG {versions}'s stock extraction prompt, word for word, as `graphrag init` writes it.\n"
              f"# Source: https://github.com/microsoft/graphrag, tag {tag} (commit {commit}),\n"
              f"# {source}. Written by scripts/write_stock_builtins.py; do not edit.\n#\n" + LICENSE)
    body = {
        "name": f"graphrag-{name.replace('_', '-')}",
        "version": "1",
        "description": (f"GraphRAG {versions}'s own stock extraction prompt (microsoft/graphrag {tag}; MIT License, "
                        "Copyright (c) Microsoft Corporation), unchanged: what a GraphRAG user who never tuned "
                        "the prompt sends."),
        "kind": "graphrag.extract_graph",
        "format": "graphrag",
        "user": text,
    }
    # GraphRAG fills no {language} in extraction (3.x: no delimiters either); the harness supplies them
    body = {**{k: v for k, v in body.items() if k != "user"}, "lint": {"ignore": ["variable-unused"]}, "user": text}
    if "{tuple_delimiter}" in text:  # 0.x-2.x fill the delimiters; 3.x writes them into the text
        body = {**{k: v for k, v in body.items() if k != "user"}, "tuple_delimiter": "<|>", "record_delimiter": "##",
                "completion_delimiter": "<|COMPLETE|>", "user": text}
    return header + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=1000)


def main() -> None:
    for name in STOCK_PROMPTS:
        path = OUT / f"graphrag.{name}.yaml"
        path.write_text(render(name), encoding="utf-8")
        print(f"wrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
