"""The workload of issue 18, shared by `harness run` and the peers it is compared with.

N generated 300-word chunks (the text generator of bench/replay.py, padded to 300 words), one
fixed GraphRAG answer of about 1.6 KB for every call, and gold = that answer's 10 entities and
8 relationships, so every replayed call is parsed, aligned and scored in full.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from replay import make_case  # noqa: E402  (bench/replay.py: FASTREPLAY's, imported, not edited)

WORDS = 300
FILLER = "The minutes record each point raised and the answers given by the members present".split()

# (name, type, description): 5 people, 3 organisations, 2 places
ENTITIES: list[tuple[str, str, str]] = [
    ("Ana Ruiz", "person", "Treasurer of the Kestrel Trust, chair of the meeting"),
    ("Tomas Berg", "person", "Engineer who presented the audit findings"),
    ("Ida Moss", "person", "Archivist who kept the minutes"),
    ("Omar Haddad", "person", "Director of Harcastle Bank who approved the new loan"),
    ("Wen Li", "person", "Member of the Red Lantern Society who moved to Millbrook"),
    ("Kestrel Trust", "organization", "A charitable trust that funds river works"),
    ("Northgate Robotics", "organization", "A robotics firm that builds inspection drones"),
    ("Harcastle Bank", "organization", "A regional bank that lends to local trusts"),
    ("Lowbridge", "geo", "A river town where the annual meeting took place"),
    ("Millbrook", "geo", "A market town north of Lowbridge"),
]
# (source, target, description, strength)
RELATIONSHIPS: list[tuple[str, str, str, int]] = [
    ("Ana Ruiz", "Kestrel Trust", "Ana Ruiz is the treasurer of the Kestrel Trust", 9),
    ("Tomas Berg", "Northgate Robotics", "Tomas Berg works as an engineer at Northgate Robotics", 8),
    ("Omar Haddad", "Harcastle Bank", "Omar Haddad directs Harcastle Bank", 9),
    ("Harcastle Bank", "Kestrel Trust", "Harcastle Bank lent money to the Kestrel Trust", 7),
    ("Ana Ruiz", "Lowbridge", "Ana Ruiz chaired the meeting held in Lowbridge", 6),
    ("Wen Li", "Millbrook", "Wen Li moved to Millbrook last spring", 5),
    ("Ida Moss", "Tomas Berg", "Ida Moss recorded the findings Tomas Berg presented", 4),
    ("Kestrel Trust", "Lowbridge", "The Kestrel Trust funds river works in Lowbridge", 8),
]


def answer() -> str:
    """The fixed GraphRAG answer every call returns (default delimiters)."""
    records = [f'("entity"<|>{name.upper()}<|>{kind.upper()}<|>{text})' for name, kind, text in ENTITIES]
    records += [f'("relationship"<|>{s.upper()}<|>{t.upper()}<|>{text}<|>{w})' for s, t, text, w in RELATIONSHIPS]
    return "##\n".join(records) + "\n<|COMPLETE|>"


def gold() -> tuple[list[dict], list[dict]]:
    """The answer's entities and relationships as suite gold."""
    entities = [{"name": name, "type": kind} for name, kind, _ in ENTITIES]
    relationships = [{"source": s, "target": t} for s, t, _, _ in RELATIONSHIPS]
    return entities, relationships


def chunks(n: int, seed: int = 1234) -> list[str]:
    """N chunks of exactly 300 words: bench/replay.py's generated text, padded with filler."""
    rng = random.Random(seed)
    out = []
    for index in range(n):
        words = make_case(rng, index)[0]["text"].split()
        filler = iter(FILLER * (WORDS // len(FILLER) + 1))
        while len(words) < WORDS:
            words.append(next(filler))
        out.append(" ".join(words[:WORDS]))
    return out


def case_id(index: int) -> str:
    return f"case-{index:05d}"
