"""Writes the global-search map contexts of the podcast-global-map suite in GraphRAG's layout.

The community reports below were written by hand by the harness team from the podcast-reports
suite's communities (fixtures/chunks/podcast-reports); this script only lays each batch out as
GraphRAG's global search does (graphrag/query/context_builder/community_context.py, v1.x-v3.x,
with the query factory's settings: community weight included and normalised, rank included,
full content rather than summary): pandas' `to_csv(index=False, sep="|")` of
`id|title|occurrence weight|content|rank`, rows sorted by weight then rank (descending), with no
"-----Reports-----" line (global search builds its batches with `single_batch=False`, and only a
single batch gets one). Run: .venv/bin/python scripts/make_map_contexts.py
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "chunks" / "podcast-global-map"

# community id -> (title, summary, [(finding summary, explanation)], rank, occurrence weight before normalising)
REPORTS: dict[str, tuple[str, str, list[tuple[str, str]], float, int]] = {
    "3": ("Corvid Systems and the Tessellate acquisition",
          "Corvid Systems is buying Tessellate, the maker of TessDB, for 1.1 billion dollars; the Competition "
          "Bureau of Lindmark will review the deal.",
          [("Corvid Systems is buying Tessellate", "Corvid Systems is acquiring Tessellate for 1.1 billion dollars."),
           ("A regulator will review the deal", "The Competition Bureau of Lindmark will review the acquisition, since "
            "Corvid already dominates enterprise databases in Lindmark."),
           ("Tessellate's founder joins Corvid", "Renata Solberg-Okafor will run an AI data division inside Corvid.")],
          8.0, 6),
    "5": ("Stratocore outage",
          "Stratocore lost its Eastmarch region when its Switchyard load balancer failed and took DNS down with it.",
          [("Switchyard caused the outage", "Switchyard dropped health-check traffic after a configuration change."),
           ("Customers went down", "Zipwheel and Harcastle Bank lost their apps during the outage."),
           ("Service credits", "Stratocore will pay service credits to affected customers.")],
          7.0, 5),
    "8": ("Pennant Mobile fined",
          "The Digital Markets Commission of Estrava fined Pennant Mobile 400 million dollars for blocking rival "
          "payment systems in the Pennant Store.",
          [("The fine", "Pennant Mobile was fined 400 million dollars and must allow other payment providers within "
            "ninety days."),
           ("Two complaints", "Foxglove Games and Ferrovia Pay filed the complaints."),
           ("An appeal", "Augustin Reyland says Pennant will appeal to the High Court of Estrava.")],
          7.5, 4),
    "11": ("Quillstack Series A",
           "Quillstack raised a 24 million dollar Series A led by Brightwater Ventures.",
           [("Brightwater Ventures led the round", "Brightwater Ventures led the round; Calder and Finch Capital "
             "joined it."),
            ("A second office", "Quillstack will open a second office in Port Sedley.")],
           5.0, 3),
    "14": ("Vireo Labs launches the Kestrel One",
           "Vireo Labs unveiled the Kestrel One headset at Vireo Horizon; it goes on sale in October.",
           [("Sunmere Displays supplies the panels", "Sunmere Displays supplies the two micro-OLED panels."),
            ("Raymond Achterberg unveiled it", "Raymond Achterberg, Vireo's chief executive, unveiled the headset.")],
           6.0, 2),
}

# case -> the reports of its batch
BATCHES: dict[str, list[str]] = {
    "regulators": ["3", "5", "8"],
    "funding": ["11", "14", "3"],
    "outage": ["5", "14"],
}


def full_content(title: str, summary: str, findings: list[tuple[str, str]]) -> str:
    """A report's full_content as GraphRAG writes it (index/.../community_reports_extractor.py)."""
    parts = [f"# {title}", summary, *(f"## {s}\n\n{e}" for s, e in findings)]
    return "\n\n".join(parts)


def batch(ids: list[str]) -> str:
    top = max(REPORTS[i][4] for i in ids)
    rows = [[i, REPORTS[i][0], REPORTS[i][4] / top, full_content(*REPORTS[i][:3]), REPORTS[i][3]] for i in ids]
    frame = pd.DataFrame(rows, columns=["id", "title", "occurrence weight", "content", "rank"])
    frame = frame.sort_values(by=["occurrence weight", "rank"], ascending=False)
    return str(frame.to_csv(index=False, sep="|"))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for case, ids in BATCHES.items():
        (OUT / f"{case}.txt").write_text(batch(ids), encoding="utf-8")


if __name__ == "__main__":
    main()
