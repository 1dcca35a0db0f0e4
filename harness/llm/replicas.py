"""Replicas of one model (`model.base_urls`): which endpoint each call goes to, and the one
origin every cassette names whichever replica answered.

Each replica has its own adaptive limit (limiter.py): a replica that refuses (429) slows only
itself. A call, and each retry of it, goes to the replica with the most free slots (the first of
equals); when none is free it waits on the one least full. Cassettes match on method, path and
the body's hash (cassettes.MATCHERS), none of which names a host, and the recorded URI is
rewritten to the first replica's origin (`canonical_uri`), so a cassette's bytes do not say
which replica answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .limiter import AdaptiveLimiter

# (scheme, host:port) of a replica -> that of its model's first replica; learnt by each client
# made with replicas, read when a recorded request is scrubbed (a process records one suite's
# models at a time, and two models never share a replica's origin)
_CANONICAL: dict[tuple[str, str], tuple[str, str]] = {}


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc.rsplit("@", 1)[-1].lower()


def learn_replicas(base_urls: tuple[str, ...]) -> None:
    """Every replica's origin stands for the first's in recorded cassettes."""
    first = _origin(base_urls[0])
    for url in base_urls[1:]:
        _CANONICAL[_origin(url)] = first


def canonical_uri(uri: str) -> str:
    """`uri` with a replica's origin replaced by its first replica's (others unchanged)."""
    parts = urlsplit(uri)
    first = _CANONICAL.get((parts.scheme, parts.netloc.rsplit("@", 1)[-1].lower()))
    if first is None:
        return uri
    return urlunsplit((first[0], first[1], parts.path, parts.query, parts.fragment))


@dataclass
class Replica:
    """One endpoint of a model: its URL, its own limit, and its SDK client (made on first use)."""

    base_url: str | None  # None: the provider's own default (a model without base_urls)
    limiter: AdaptiveLimiter
    sdk: Any = field(default=None, repr=False)


def pick(replicas: list[Replica]) -> Replica:
    """The replica a call goes to: the most free slots, else the least full (the first of equals)."""
    if len(replicas) == 1:
        return replicas[0]
    return max(replicas, key=lambda r: (r.limiter.limit - r.limiter.in_flight, -r.limiter.in_flight / r.limiter.limit))


__all__ = ["Replica", "canonical_uri", "learn_replicas", "pick"]
