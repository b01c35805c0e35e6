"""What a structured write reads to plan: its rows' (subject, predicate) pairs, not whole subjects.

docs/benchmarks.md#appending: ``add_facts`` plans each row against its own predicate's current
versions (and, for a row with a ``source_ref``, against the whole subject), so it reads only
those. The property: every batch decides and stores exactly what it would over whole subjects.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem import writes
from graphmem.store.kuzu import statements
from graphmem.timeutil import ManualClock
from tests import backends

UTC = dt.timezone.utc
SUBJECTS = ["alice", "bob", "carol"]
PREDICATES = ["works_at", "uses", "lives_in"]  # single-, multi-, single-valued
OBJECTS = ["A", "B", "C"]


def _whole_subjects(k, checked, entities):
    """The read before: every current version of each row's subject."""
    return k.store.current_versions(sorted({entities[c["subject"]].id for c in checked}))


row = st.fixed_dictionaries(
    {
        "subject": st.sampled_from(SUBJECTS),
        "predicate": st.sampled_from(PREDICATES),
        "object": st.sampled_from(OBJECTS),
        "valid_from": st.integers(2000, 2012).map(lambda y: dt.datetime(y, 1, 1, tzinfo=UTC)),
    },
    optional={"source_ref": st.sampled_from(["doc-1", "doc-2"])},
)


def _run(batches, *, whole: bool) -> list[object]:
    clock = ManualClock("2026-01-01")
    out: list[object] = []
    patch = mock.patch.object(writes, "_current_pairs", _whole_subjects) if whole else None
    with backends.memory(clock=clock) as mem:
        mem.define_predicate("lives_in", cardinality="one")
        if patch is not None:
            patch.start()
        try:
            for batch in batches:
                clock.advance(hours=1)
                out.append([r.decision.value for r in mem.add_facts(batch)])
        finally:
            if patch is not None:
                patch.stop()
        for s in SUBJECTS:
            out.append(
                sorted(
                    repr((f.predicate, f.object, f.valid_from, f.valid_to, f.recorded_at))
                    + repr((f.expired_at, f.reason, f.kind))
                    for f in mem.history(s, include_expired=True)
                )
            )
    return out


@pytest.mark.slow  # a long test: CI's slow family runs it
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(st.lists(row, min_size=1, max_size=12), min_size=1, max_size=4))
def test_a_batch_planned_over_its_pairs_decides_as_over_whole_subjects(batches):
    assert _run(batches, whole=False) == _run(batches, whole=True)


@pytest.mark.parametrize("per_point", [1, 10**9], ids=["point-reads", "one-unwind"])
def test_a_store_answers_pairs_as_a_filter_of_whole_subjects(monkeypatch, per_point) -> None:
    """The read itself, one point query per pair or one ``UNWIND`` (embedded: by the store's size,
    forced here; FalkorDB has one shape)."""
    monkeypatch.setattr(statements, "POINT_VS_SCAN", per_point)
    clock = ManualClock("2026-01-01")
    store = backends.store()
    with gm.open(store=store, clock=clock) as mem:
        mem.add_facts(
            [
                {"subject": f"s{i % 40}", "predicate": p, "object": f"o{i}"}
                for i in range(400)
                for p in ("uses", "knows")
            ]
        )
        ids = [f"s{i}" for i in range(40)]
        pairs = [(s, "uses") for s in ids[::2]] + [(s, "knows") for s in ids[1::3]]
        around = getattr(store, "uncached", contextlib.nullcontext)  # the engine's own answer
        with around():
            whole = store.current_versions(ids)
            got = store.current_versions(ids, pairs=pairs)
        assert set(got) == set(ids)
        for sid in ids:
            want = {p for s, p in pairs if s == sid}
            assert sorted(f.id for f in got[sid]) == sorted(
                f.id for f in whole[sid] if f.predicate in want
            )
