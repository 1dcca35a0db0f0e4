"""Writes the community contexts of the podcast-reports suite in GraphRAG's layout.

The records below were written by hand by the harness team from the podcast suite's chunks
(fixtures/chunks/podcast); this script only lays them out as GraphRAG 1.x-3.x does
(graphrag/index/operations/summarize_communities/graph_context/sort_context.py): edges sorted by
combined degree (descending) then id; each edge brings in its source and target entity rows and
their claims; tables "-----Entities-----", "-----Claims-----", "-----Relationships-----" written
by pandas' `to_csv(index=False, sep=",")` (minimal quoting, "\\n" line ends), joined by blank lines.
Degrees are counted over the community's own edges. Run: python staging/make_contexts.py
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

OUT = Path(__file__).parent / "fixtures" / "chunks" / "podcast-reports"

# case -> (first entity id, entities [(title, description)], first relationship id,
#          relationships [(source, target, description)], first claim id, claims [(subject, type, status, description)])
CASES: dict[str, tuple[int, list[tuple[str, str]], int, list[tuple[str, str, str]], int, list[tuple[str, str, str, str]]]] = {
    "corvid-tessellate": (
        12,
        [
            ("CORVID SYSTEMS", "Enterprise software company headquartered in Fallowmere that is buying Tessellate for 1.1 billion dollars"),
            ("TESSELLATE", "Company that makes TessDB, an open-core database for vector search; being acquired by Corvid Systems"),
            ("TESSDB", "Open-core database for vector search made by Tessellate, run by many chatbot startups"),
            ("GIDEON MARWICK", "Chief executive of Corvid Systems who announced the deal at Corvid Connect"),
            ("RENATA SOLBERG-OKAFOR", "Founder of Tessellate who will run a new AI data division inside Corvid and report to Gideon Marwick"),
            ("HOLLINS STREET PARTNERS", "Tessellate's biggest investor, which gets roughly a seven-times return"),
            ("COMPETITION BUREAU OF LINDMARK", "Regulator that will review the acquisition"),
            ("LINDMARK", "Country where Corvid already dominates enterprise databases"),
            ("CORVID CONNECT", "Corvid's customer conference, where the acquisition was announced"),
            ("FALLOWMERE", "City where Corvid Systems is headquartered"),
        ],
        30,
        [
            ("CORVID SYSTEMS", "TESSELLATE", "Corvid Systems is acquiring Tessellate for 1.1 billion dollars"),
            ("TESSELLATE", "TESSDB", "Tessellate makes TessDB"),
            ("GIDEON MARWICK", "CORVID SYSTEMS", "Gideon Marwick is the chief executive of Corvid Systems"),
            ("RENATA SOLBERG-OKAFOR", "TESSELLATE", "Renata Solberg-Okafor founded Tessellate"),
            ("RENATA SOLBERG-OKAFOR", "CORVID SYSTEMS", "Renata Solberg-Okafor will run a new AI data division inside Corvid"),
            ("HOLLINS STREET PARTNERS", "TESSELLATE", "Hollins Street Partners is Tessellate's biggest investor and gets roughly a seven-times return"),
            ("COMPETITION BUREAU OF LINDMARK", "CORVID SYSTEMS", "The Competition Bureau of Lindmark will review Corvid's acquisition of Tessellate"),
            ("COMPETITION BUREAU OF LINDMARK", "LINDMARK", "The Competition Bureau is Lindmark's competition regulator"),
            ("GIDEON MARWICK", "CORVID CONNECT", "Gideon Marwick announced the deal on stage at Corvid Connect"),
            ("CORVID SYSTEMS", "FALLOWMERE", "Corvid Systems is headquartered in Fallowmere"),
            ("CORVID SYSTEMS", "LINDMARK", "Corvid already dominates enterprise databases in Lindmark"),
        ],
        3,
        [
            ("CORVID SYSTEMS", "ACQUISITION", "TRUE", "Corvid Systems is buying Tessellate for 1.1 billion dollars, announced at Corvid Connect"),
            ("CORVID SYSTEMS", "MARKET DOMINANCE", "SUSPECTED", "The Competition Bureau of Lindmark will review the deal because Corvid already dominates enterprise databases in Lindmark"),
        ],
    ),
    "stratocore-outage": (
        140,
        [
            ("STRATOCORE", "Cloud provider that lost its Eastmarch region for six hours after a bad configuration change"),
            ("EASTMARCH", "Region of Stratocore's cloud that went down"),
            ("EASTMARCH OUTAGE", "Six-hour outage of Stratocore's Eastmarch region that took down apps and websites"),
            ("SWITCHYARD", "Stratocore's internal load balancer; a configuration change made it drop health-check traffic"),
            ("DNS", "Stratocore's DNS servers for the region, which sit behind Switchyard and stopped resolving names"),
            ("ZIPWHEEL", "Ride-hailing company whose app went down in the outage; now testing a second region"),
            ("HARCASTLE BANK", "Bank whose mobile banking went down in the outage; pushing for more than service credits"),
            ("MIREILLE TANAKA-BRANDT", "Stratocore's vice president of reliability, who signed the post-mortem"),
            ("CANARY RELEASES", "Release practice Stratocore had for Switchyard but skipped for a change marked low risk"),
        ],
        160,
        [
            ("STRATOCORE", "EASTMARCH", "Stratocore runs its Eastmarch region"),
            ("EASTMARCH OUTAGE", "STRATOCORE", "The outage was Stratocore's loss of its Eastmarch region"),
            ("STRATOCORE", "SWITCHYARD", "Stratocore pushed a configuration change to Switchyard across the whole region at once"),
            ("SWITCHYARD", "EASTMARCH OUTAGE", "Switchyard dropping health-check traffic caused the outage"),
            ("SWITCHYARD", "DNS", "The region's DNS servers sit behind Switchyard and failed with it"),
            ("ZIPWHEEL", "EASTMARCH OUTAGE", "Zipwheel's ride-hailing app went down in the outage"),
            ("HARCASTLE BANK", "EASTMARCH OUTAGE", "Harcastle Bank's mobile banking went down in the outage"),
            ("MIREILLE TANAKA-BRANDT", "STRATOCORE", "Mireille Tanaka-Brandt is Stratocore's vice president of reliability"),
            ("STRATOCORE", "CANARY RELEASES", "Stratocore skipped its canary process for the change"),
        ],
        20,
        [
            ("STRATOCORE", "SERVICE CREDITS", "TRUE", "Stratocore will pay service credits to customers affected by the outage"),
            ("HARCASTLE BANK", "COMPENSATION DEMAND", "SUSPECTED", "Harcastle Bank is reportedly pushing for more than service credits"),
        ],
    ),
    "pennant-fine": (
        210,
        [
            ("DIGITAL MARKETS COMMISSION OF ESTRAVA", "Regulator that fined Pennant Mobile 400 million dollars for blocking rival payment systems"),
            ("PENNANT MOBILE", "Company that runs the Pennant Store and was fined for forcing developers to use its own checkout"),
            ("PENNANT STORE", "Pennant's app store, where developers selling digital goods had to use Pennant's checkout and pay a thirty percent cut"),
            ("FOXGLOVE GAMES", "Game studio that complained after it was removed from the Pennant Store for adding its own checkout"),
            ("FERROVIA PAY", "Payments company that complained it could not sell its wallet to app developers"),
            ("HALIMA STRAND-KOVACS", "Commissioner who led the investigation and read the decision in Velgrad"),
            ("AUGUSTIN REYLAND", "Pennant's chief executive, who says the company will appeal"),
            ("HIGH COURT OF ESTRAVA", "Court to which Pennant will appeal"),
            ("ESTRAVA", "Country whose app developers are covered by the decision"),
        ],
        300,
        [
            ("DIGITAL MARKETS COMMISSION OF ESTRAVA", "PENNANT MOBILE", "The commission fined Pennant Mobile 400 million dollars and gave it ninety days to allow other payment providers"),
            ("PENNANT MOBILE", "PENNANT STORE", "Pennant Mobile runs the Pennant Store"),
            ("FOXGLOVE GAMES", "PENNANT MOBILE", "Foxglove Games filed one of the two complaints against Pennant"),
            ("FERROVIA PAY", "PENNANT MOBILE", "Ferrovia Pay filed the other complaint against Pennant"),
            ("HALIMA STRAND-KOVACS", "DIGITAL MARKETS COMMISSION OF ESTRAVA", "Halima Strand-Kovacs is the commissioner who led the investigation"),
            ("AUGUSTIN REYLAND", "PENNANT MOBILE", "Augustin Reyland is Pennant's chief executive"),
            ("PENNANT MOBILE", "HIGH COURT OF ESTRAVA", "Pennant will appeal the ruling to the High Court of Estrava"),
            ("FOXGLOVE GAMES", "PENNANT STORE", "Foxglove Games was removed from the Pennant Store for a month"),
            ("DIGITAL MARKETS COMMISSION OF ESTRAVA", "ESTRAVA", "The commission regulates digital markets in Estrava"),
        ],
        40,
        [
            ("PENNANT MOBILE", "ANTI-COMPETITIVE PRACTICES", "TRUE", "Pennant forced developers to use its own checkout and took a thirty percent cut; fined 400 million dollars"),
            ("PENNANT MOBILE", "APPEAL", "SUSPECTED", "Pennant says it will appeal to the High Court of Estrava"),
        ],
    ),
    "quillstack-round": (
        75,
        [
            ("QUILLSTACK", "Data-observability startup based in Merrow Falls that raised a 24 million dollar Series A"),
            ("BRIGHTWATER VENTURES", "Investor that led Quillstack's Series A"),
            ("CALDER AND FINCH CAPITAL", "Investor that joined Quillstack's Series A"),
            ("AMARA DELACROIX-NWOSU", "Co-founder and chief executive of Quillstack, formerly at Ferrovia Pay"),
            ("TOBIAH RENFREW", "Co-founder of Quillstack who runs engineering, formerly at Ferrovia Pay"),
            ("LUCINDA HARGREAVE", "Partner at Brightwater Ventures who led the deal and joins Quillstack's board"),
            ("QUILLSTACK OBSERVE", "Quillstack's product, which traces column-level lineage across the warehouse"),
            ("TALLOWGATE", "Competitor that added a lineage feature to its monitoring suite"),
            ("PORT SEDLEY", "Where Quillstack will open a second office to be closer to European customers"),
        ],
        95,
        [
            ("BRIGHTWATER VENTURES", "QUILLSTACK", "Brightwater Ventures led Quillstack's 24 million dollar Series A"),
            ("CALDER AND FINCH CAPITAL", "QUILLSTACK", "Calder and Finch Capital joined the round"),
            ("AMARA DELACROIX-NWOSU", "QUILLSTACK", "Amara Delacroix-Nwosu co-founded Quillstack and is its chief executive"),
            ("TOBIAH RENFREW", "QUILLSTACK", "Tobiah Renfrew co-founded Quillstack and runs engineering"),
            ("LUCINDA HARGREAVE", "BRIGHTWATER VENTURES", "Lucinda Hargreave is a partner at Brightwater Ventures"),
            ("LUCINDA HARGREAVE", "QUILLSTACK", "Lucinda Hargreave joins Quillstack's board"),
            ("QUILLSTACK", "QUILLSTACK OBSERVE", "Quillstack makes Quillstack Observe"),
            ("TALLOWGATE", "QUILLSTACK", "Tallowgate competes with Quillstack on lineage"),
            ("QUILLSTACK", "PORT SEDLEY", "Quillstack will open a second office in Port Sedley"),
        ],
        0,
        [],
    ),
    "kestrel-launch": (
        180,
        [
            ("VIREO LABS", "Company that unveiled the Kestrel One mixed-reality headset"),
            ("KESTREL ONE", "Vireo's mixed-reality headset, on sale in October at 1,900 dollars"),
            ("RAYMOND ACHTERBERG", "Vireo's chief executive, who unveiled the headset"),
            ("VIREO HORIZON", "Vireo's launch event in Alder Point"),
            ("ALDER POINT", "Where the Vireo Horizon event took place"),
            ("SUNMERE DISPLAYS", "Supplier of the headset's micro-OLED panels, building a second display line for Vireo"),
            ("CASSIA FERNHOUT", "Senior reviewer at Pixel Ledger who tried the device for thirty minutes"),
            ("PIXEL LEDGER", "Publication where Cassia Fernhout is senior reviewer"),
            ("LATTICE OS", "Vireo's own operating system, which the headset runs"),
        ],
        240,
        [
            ("VIREO LABS", "KESTREL ONE", "Vireo Labs makes the Kestrel One"),
            ("RAYMOND ACHTERBERG", "VIREO LABS", "Raymond Achterberg is Vireo's chief executive"),
            ("KESTREL ONE", "VIREO HORIZON", "The Kestrel One was unveiled at Vireo Horizon"),
            ("VIREO HORIZON", "ALDER POINT", "Vireo Horizon took place in Alder Point"),
            ("SUNMERE DISPLAYS", "KESTREL ONE", "Sunmere Displays supplies the headset's two micro-OLED panels"),
            ("CASSIA FERNHOUT", "KESTREL ONE", "Cassia Fernhout tried the Kestrel One for thirty minutes"),
            ("CASSIA FERNHOUT", "PIXEL LEDGER", "Cassia Fernhout is senior reviewer at Pixel Ledger"),
            ("KESTREL ONE", "LATTICE OS", "The Kestrel One runs Lattice OS"),
        ],
        0,
        [],
    ),
}


def _csv(rows: list[dict[str, object]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def context(case: str) -> str:
    first_entity, entities, first_edge, edges, first_claim, claims = CASES[case]
    degree = {title: 0 for title, _ in entities}
    for source, target, _ in edges:
        degree[source] += 1
        degree[target] += 1
    nodes = {title: {"human_readable_id": first_entity + k, "title": title, "description": text, "degree": degree[title]}
             for k, (title, text) in enumerate(entities)}
    edge_rows = [{"human_readable_id": first_edge + k, "source": s, "target": t, "description": d,
                  "combined_degree": degree[s] + degree[t]} for k, (s, t, d) in enumerate(edges)]
    claim_rows: dict[str, list[dict[str, object]]] = {}
    for k, (subject, kind, status, text) in enumerate(claims):
        claim_rows.setdefault(subject, []).append({"human_readable_id": first_claim + k, "subject_id": subject,
                                                   "type": kind, "status": status, "description": text})
    edge_rows.sort(key=lambda e: (-int(e["combined_degree"]), int(e["human_readable_id"])))  # type: ignore[call-overload]
    sorted_nodes: list[dict[str, object]] = []
    sorted_claims: list[dict[str, object]] = []
    for e in edge_rows:
        for end in (e["source"], e["target"]):
            if nodes[str(end)] not in sorted_nodes:
                sorted_nodes.append(nodes[str(end)])
        for end in (e["source"], e["target"]):
            for c in claim_rows.get(str(end), []):
                if c not in sorted_claims:
                    sorted_claims.append(c)
    parts = [f"-----{label}-----\n{_csv(data)}" for label, data in
             (("Entities", sorted_nodes), ("Claims", sorted_claims), ("Relationships", edge_rows)) if data]
    return "\n\n".join(parts)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        (OUT / f"{name}.txt").write_text(context(name), encoding="utf-8")
        print(OUT / f"{name}.txt")
