"""Tests for graphmem.decay: half-lives, access boost, pinned and identity facts."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.decay import ACCESS_BOOST, HALF_LIVES, effective_importance
from graphmem.errors import InvalidInput

KINDS = st.sampled_from(sorted(HALF_LIVES))
AGES = st.floats(min_value=0, max_value=1e5)
BASES = st.floats(min_value=0, max_value=10)


def test_half_lives() -> None:
    assert dict(HALF_LIVES) == {
        "event": 30.0,
        "insight": 180.0,
        "directive": 365.0,
        "fact": 365.0,
        "identity": None,
    }
    with pytest.raises(TypeError):
        HALF_LIVES["event"] = 1.0  # type: ignore[index]


@pytest.mark.parametrize(
    ("kind", "half_life"), [("event", 30), ("insight", 180), ("directive", 365), ("fact", 365)]
)
def test_importance_halves_every_half_life(kind: str, half_life: float) -> None:
    assert effective_importance(8.0, kind=kind, age_days=0) == 8.0
    assert effective_importance(8.0, kind=kind, age_days=half_life) == pytest.approx(4.0)
    assert effective_importance(8.0, kind=kind, age_days=2 * half_life) == pytest.approx(2.0)


def test_formula() -> None:
    got = effective_importance(6.0, kind="insight", age_days=45, access_count=4)
    expected = 6.0 * math.exp(-math.log(2) * 45 / 180) * (1 + 0.15 * math.log(1 + 4))
    assert got == pytest.approx(expected, rel=1e-12)
    assert ACCESS_BOOST == 0.15


def test_identity_and_pinned_never_decay_but_get_access_boost() -> None:
    assert effective_importance(7.0, kind="identity", age_days=50_000) == 7.0
    assert effective_importance(7.0, kind="event", age_days=3_000, pinned=True) == 7.0
    boosted = effective_importance(7.0, kind="event", age_days=3_000, pinned=True, access_count=9)
    assert boosted == pytest.approx(7.0 * (1 + 0.15 * math.log(10)))


def test_negative_age_counts_as_zero() -> None:
    assert effective_importance(5.0, kind="event", age_days=-10) == 5.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"base": 5.0, "kind": "memo", "age_days": 1},
        {"base": -1.0, "kind": "fact", "age_days": 1},
        {"base": float("nan"), "kind": "fact", "age_days": 1},
        {"base": float("inf"), "kind": "fact", "age_days": 1},
        {"base": 5.0, "kind": "fact", "age_days": float("nan")},
        {"base": 5.0, "kind": "fact", "age_days": 1, "access_count": -1},
        {"base": 5.0, "kind": "fact", "age_days": 1, "access_count": 1.5},
    ],
)
def test_bad_inputs_raise_invalid_input(kwargs: dict[str, object]) -> None:
    base = kwargs.pop("base")
    with pytest.raises(InvalidInput):
        effective_importance(base, **kwargs)  # type: ignore[arg-type]


def test_kind_and_flags_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        effective_importance(5.0, "fact", 10)  # type: ignore[call-arg]


@given(base=BASES, kind=KINDS, age=AGES, older=AGES, access=st.integers(0, 10_000))
def test_decay_is_monotone_non_increasing_in_age(
    base: float, kind: str, age: float, older: float, access: int
) -> None:
    young = effective_importance(base, kind=kind, age_days=age, access_count=access)
    old = effective_importance(base, kind=kind, age_days=age + older, access_count=access)
    assert old <= young
    assert young <= base * (1 + 0.15 * math.log1p(access)) + 1e-12


@given(base=BASES, kind=KINDS, a=AGES, b=AGES, access=st.integers(0, 10_000))
def test_pinned_is_constant_in_age(base: float, kind: str, a: float, b: float, access: int) -> None:
    assert effective_importance(
        base, kind=kind, age_days=a, access_count=access, pinned=True
    ) == effective_importance(base, kind=kind, age_days=b, access_count=access, pinned=True)


@given(base=BASES, a=AGES, b=AGES)
def test_identity_is_constant_in_age(base: float, a: float, b: float) -> None:
    assert effective_importance(base, kind="identity", age_days=a) == base
    assert effective_importance(base, kind="identity", age_days=b) == base


@given(base=BASES, kind=KINDS, age=AGES, n=st.integers(0, 1000), more=st.integers(0, 1000))
def test_access_boost_is_monotone(base: float, kind: str, age: float, n: int, more: int) -> None:
    fewer = effective_importance(base, kind=kind, age_days=age, access_count=n)
    assert effective_importance(base, kind=kind, age_days=age, access_count=n + more) >= fewer


def test_shorter_half_life_decays_faster() -> None:
    ranked = [
        effective_importance(5.0, kind=k, age_days=100)
        for k in ("event", "insight", "fact", "identity")
    ]
    assert ranked == sorted(ranked)
