"""The write path's unvalidated constructors equal the validated ones (#6)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import graphmem as gm
from graphmem.kernel import kernel_of
from graphmem.models import Fact, WriteResult, trusted
from graphmem.rows import validate
from graphmem.temporal import shortened
from graphmem.writes import build_fact, new_version
from tests import backends

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 3, 1, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def mem() -> Iterator[gm.Memory]:
    with backends.memory() as m:
        yield m


times = st.datetimes(
    min_value=dt.datetime(1900, 1, 1),
    max_value=dt.datetime(2100, 1, 1),
    timezones=st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=-5))]),
)
rows = st.fixed_dictionaries(
    {
        "subject": st.sampled_from(["Alice", "  Bob  Smith ", "Ａcme"]),
        "predicate": st.sampled_from(["works_at", "livesIn", "likes"]),
        "object": st.text(min_size=1, max_size=8).filter(str.strip),
    },
    optional={
        "valid_from": times,
        "statement": st.sampled_from(["Alice works at Acme", None]),
        "source": st.sampled_from(["chat-1", None]),
        "source_ref": st.sampled_from(["doc#1", None]),
        "kind": st.sampled_from(["fact", "event", "directive"]),
        "importance": st.floats(0, 10),
        "confidence": st.floats(0, 1),
        "pinned": st.booleans(),
    },
)


@settings(max_examples=150, deadline=None)
@given(row=rows)
def test_new_version_equals_the_validated_build(mem: gm.Memory, row: dict[str, Any]) -> None:
    try:
        checked = validate(kernel_of(mem), -1, row, NOW)
    except gm.InvalidInput:
        return
    fields = {"id": "f0123456789abcdef", "recorded_at": NOW}
    names = {"subject": checked["subject"], "object": checked["object"]}
    fast = new_version(dict(checked), predicate=checked["predicate"].name, **names, **fields)
    slow = build_fact({**checked, "predicate": checked["predicate"].name, **names, **fields})
    assert fast == slow
    assert fast.model_dump() == slow.model_dump()
    assert repr(fast) == repr(slow)
    assert fast.model_fields_set == set(Fact.model_fields)
    assert hash(fast) == hash(slow)
    # A copy with changes gets its own fields-set: the shared one is never modified.
    changed = fast.model_copy(update={"expired_at": NOW})
    assert changed.expired_at == NOW
    assert fast.expired_at is None
    assert Fact.model_validate(changed.model_dump()) == changed
    assert trusted(Fact, dict(fast.__dict__)).model_fields_set == set(Fact.model_fields)
    # The shortened copy the write rules insert equals its validated twin.
    end = fast.valid_from + dt.timedelta(days=1)
    short = shortened(changed, end, NOW)
    assert short == Fact.model_validate(
        {
            **changed.model_dump(),
            "id": short.id,
            "valid_to": end,
            "recorded_at": NOW,
            "expired_at": None,
        }
    )


def test_trusted_write_result_is_a_normal_model() -> None:
    fact = Fact(id="f1", subject="A", predicate="p", object="B", valid_from=NOW, recorded_at=NOW)
    fast = trusted(WriteResult, {"decision": gm.Decision.ADD, "fact": fact, "superseded": ()})
    slow = WriteResult(decision=gm.Decision.ADD, fact=fact)
    assert fast == slow
    assert fast.model_dump() == slow.model_dump()
    with pytest.raises(ValidationError, match="frozen"):
        fast.decision = gm.Decision.NOOP  # type: ignore[misc]
