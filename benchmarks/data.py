"""Deterministic synthetic facts for the benchmarks (fixed seed).

``n`` facts over ``n // 10`` subjects (out-degree about 10), objects drawn from the same entity
pool (so 2-hop neighbourhoods exist), 50 Zipf-distributed predicates of which the even-numbered
ones are single-valued (``cardinality="one"``: a new object supersedes the old), valid times
spread over 1990-2025 in random order (so contradiction resolution meets out-of-order arrivals).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator

UTC = dt.timezone.utc
N_PREDICATES = 50
BASE = dt.datetime(1990, 1, 1, tzinfo=UTC)
SPAN_DAYS = 35 * 365


def predicates() -> list[tuple[str, str]]:
    """Return ``(name, cardinality)`` of the benchmark predicates."""
    return [(f"p{i:02d}", "one" if i % 2 == 0 else "many") for i in range(N_PREDICATES)]


def facts(n: int, *, seed: int = 42, entities: int | None = None) -> Iterator[dict[str, object]]:
    """Yield ``n`` add_facts rows over ``entities`` entities (default ``n // 10``).

    Appends to a store of ``m`` facts draw from that store's ``m // 10`` entities with another
    seed: new facts about known subjects, some superseding stored ones.
    """
    rng = random.Random(seed)
    n_ent = max(n // 10, 10) if entities is None else entities
    weights = [1 / (k + 1) for k in range(N_PREDICATES)]
    names = [p for p, _ in predicates()]
    preds = rng.choices(names, weights, k=n)
    for i in range(n):
        s = rng.randrange(n_ent)
        # objects: a few per (subject, predicate) so single-valued predicates flip back and forth
        o = (s * 7919 + rng.randrange(4) * 104729 + int(preds[i][1:]) * 31) % n_ent
        vf = BASE + dt.timedelta(days=rng.randrange(SPAN_DAYS))
        row: dict[str, object] = {
            "subject": f"E{s}",
            "predicate": preds[i],
            "object": f"E{o}",
            "valid_from": vf,
        }
        if rng.random() < 0.1:
            row["valid_to"] = vf + dt.timedelta(days=1 + rng.randrange(3000))
        yield row


def single_writes(n: int, q: int, *, seed: int = 11) -> list[dict[str, object]]:
    """Return the ``q`` single writes made after a store of ``n`` facts is reopened.

    New facts about the store's subjects (``n // 10`` entities): adds, and supersessions where
    the predicate is single-valued. Every system writes the same rows in the same order.
    """
    rng = random.Random(seed)
    n_ent = max(n // 10, 10)
    return [
        {
            "subject": f"E{rng.randrange(n_ent)}",
            "predicate": f"p{rng.randrange(N_PREDICATES):02d}",
            "object": f"E{rng.randrange(n_ent)}",
            "valid_from": BASE + dt.timedelta(days=rng.randrange(SPAN_DAYS)),
        }
        for _ in range(q)
    ]


def remember_texts(q: int) -> list[str]:
    """Return ``q`` short first-person texts for the text-remember latency (moves and jobs)."""
    return [f"I live in City{i}." if i % 2 == 0 else f"I work at Company{i}." for i in range(q)]


#: The append-in-calls workload (docs/benchmarks.md#appending-in-10k-calls): 5 predicates, 3
#: single-valued.
CALL_PREDICATES = [("q0", "one"), ("q1", "many"), ("q2", "one"), ("q3", "many"), ("q4", "one")]


def call_batches(n: int, size: int = 10_000) -> list[list[dict[str, object]]]:
    """``n`` facts over ``n // 10`` subjects and :data:`CALL_PREDICATES` as calls of ``size``.

    Random subjects, objects and valid times (1990-2025, in random order); batch ``k`` is seed
    ``k``, so every system writes the same rows in the same order.
    """
    ents = max(n // 10, 10)
    names = [p for p, _ in CALL_PREDICATES]
    out = []
    for k in range(max(n // size, 1)):
        rng = random.Random(k)
        out.append(
            [
                {
                    "subject": f"E{rng.randrange(ents)}",
                    "predicate": rng.choice(names),
                    "object": f"E{rng.randrange(ents)}",
                    "valid_from": BASE + dt.timedelta(days=rng.randrange(SPAN_DAYS)),
                }
                for _ in range(size)
            ]
        )
    return out
