"""Graphmem's values as Kuzu rows and back: fact columns, insert statements, Arrow tables.

The embedded store's conversions, shared by its modules: a stored row becomes a
:class:`~graphmem.models.Fact` (:func:`_fact_from_row`), a version becomes its column values
(:func:`_fact_params`) or an insert statement (:func:`_insert_query`, :data:`_UNWIND_INSERT`),
and a bulk write becomes the Arrow tables that ``COPY`` reads (pyarrow is imported on first
use). Values are ``cast`` explicitly: a NULL first value breaks the engine's type inference.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from graphmem.models import Entity, Fact, Predicate, trusted
from graphmem.store.cypher.dialect import Dialect
from graphmem.store.kuzu.schema import FACT_COLUMNS
from graphmem.timeutil import from_store, to_store

_COLS = [c for c, _ in FACT_COLUMNS]
_TYPES = dict(FACT_COLUMNS)
_RETURN = "a.name AS subject, " + ", ".join(f"r.{c}" for c in _COLS)
_TIME_COLS = {c for c, t in FACT_COLUMNS if t == "TIMESTAMP"}
_UTC = dt.timezone.utc
#: Aware copies of the naive UTC instants read, shared by every version holding the same one:
#: ``replace(tzinfo=)`` costs 2 µs an instant (a third of building a version), a lookup 0.1 µs,
#: and versions written together share their system times (docs/benchmarks.md#a-version-cache).
_AWARE: dict[dt.datetime, dt.datetime] = {}
_AWARE_MAX = 1 << 16
_CAST = {
    "STRING": "STRING",
    "TIMESTAMP": "TIMESTAMP",
    "DOUBLE": "DOUBLE",
    "INT64": "INT64",
    "BOOLEAN": "BOOLEAN",
}


def _aware(value: dt.datetime) -> dt.datetime:
    """``value`` (naive UTC) as an aware UTC instant, from :data:`_AWARE` when read before."""
    aware = _AWARE.get(value)
    if aware is None:
        if len(_AWARE) >= _AWARE_MAX:
            _AWARE.clear()
        aware = _AWARE[value] = dt.datetime.combine(value.date(), value.time(), _UTC)
    return aware


def _fact_from_row(row: Sequence[Any]) -> Fact:
    """Build a stored version from ``subject, *FACT_COLUMNS`` without validating it again.

    The store only holds versions that were validated when written, and a write reads the
    current versions of every subject it touches: 75k versions cost 1.7 s through
    ``model_validate`` in a 10k append (docs/benchmarks.md#appending), a tenth of that through
    ``trusted``.
    """
    (
        fid,
        pred,
        obj,
        vf,
        vt,
        rec,
        exp,
        stmt,
        kind,
        imp,
        conf,
        src,
        ref,
        by,
        why,
        n,
        last,
        pin,
        st,
        sc,
    ) = row[1:]
    aware = _aware
    return trusted(
        Fact,
        {
            "id": fid,
            "subject": row[0],
            "predicate": pred,
            "object": obj,
            "valid_from": vf if vf is None or vf.tzinfo else aware(vf),
            "valid_to": vt if vt is None or vt.tzinfo else aware(vt),
            "recorded_at": rec if rec is None or rec.tzinfo else aware(rec),
            "expired_at": exp if exp is None or exp.tzinfo else aware(exp),
            "statement": stmt,
            "kind": kind or "fact",
            "importance": 5.0 if imp is None else imp,
            "confidence": 1.0 if conf is None else conf,
            "source": src,
            "source_ref": ref,
            "superseded_by": by,
            "reason": why,
            "access_count": n or 0,
            "last_accessed_at": last if last is None or last.tzinfo else aware(last),
            "pinned": bool(pin),
            "source_type": st,
            "scope": sc or "",
        },
    )


#: The embedded engines' spelling of the shared Cypher (docs/concepts/storage.md#one-cypher-core):
#: naive UTC times, filters on relationship properties behind a ``WITH`` barrier.
KUZU = Dialect(
    name="kuzu",
    to_db=to_store,
    from_db=from_store,
    fact_return=_RETURN,
    fact_from_row=_fact_from_row,
    barrier=True,
    lower="lower",
    stored_time=dt.datetime,
)


def _fact_params(f: Fact) -> dict[str, Any]:
    """Return a version's storage values by column, ``None`` included."""
    data = f.__dict__
    out: dict[str, Any] = {}
    for name in _COLS:
        value = data["id" if name == "fid" else name]
        out[name] = to_store(value) if name in _TIME_COLS else value
    return out


@functools.lru_cache(maxsize=512)
def _insert_query(cols: tuple[str, ...], merge: bool) -> str:
    """Return the per-row insert of a version whose non-NULL properties are ``cols``.

    Both endpoints are MATCHed on their primary key, or with ``merge`` MERGE-d and created when
    missing (named by ``$src_name``/``$src_kind``, ``$dst_name``/``$dst_kind``). The query
    returns a row only when it inserted.
    """
    if merge:
        head = "".join(
            f"MERGE ({v}:Entity {{id: ${e}}}) ON CREATE SET {v}.name = ${e}_name, "
            f"{v}.kind = ${e}_kind, {v}.aliases = cast([] AS STRING[]) "
            for v, e in (("a", "src"), ("b", "dst"))
        )
    else:
        head = "MATCH (a:Entity {id: $src}) MATCH (b:Entity {id: $dst}) "
    props = ", ".join(f"{c}: cast(${c} AS {_CAST[_TYPES[c]]})" for c in cols)
    return f"{head}CREATE (a)-[:Fact {{{props}}}]->(b) RETURN 1"


_UNWIND_INSERT = (
    "UNWIND $rows AS row MATCH (a:Entity {id: row.src}) MATCH (b:Entity {id: row.dst}) "
    "CREATE (a)-[:Fact {"
    + ", ".join(f"{c}: cast(row.{c} AS {_CAST[_TYPES[c]]})" for c in _COLS)
    + "}]->(b)"
)

_STR_LIST: Any = None


def _arrow() -> Any:
    global _STR_LIST
    import pyarrow as pa

    if _STR_LIST is None:
        _STR_LIST = pa.list_(pa.string())
    return pa


def _entity_table(entities: Sequence[Entity]) -> Any:
    """Return entities as an Arrow table in Entity column order."""
    pa = _arrow()
    return pa.table(
        {
            "id": pa.array([e.id for e in entities], pa.string()),
            "name": pa.array([e.name for e in entities], pa.string()),
            "kind": pa.array([e.kind for e in entities], pa.string()),
            "aliases": pa.array([list(e.aliases) for e in entities], _STR_LIST),
        }
    )


def _predicate_table(predicates: Sequence[Predicate]) -> Any:
    """Return predicates as an Arrow table in Predicate column order."""
    pa = _arrow()
    return pa.table(
        {
            "name": pa.array([p.name for p in predicates], pa.string()),
            "cardinality": pa.array([p.cardinality for p in predicates], pa.string()),
            "aliases": pa.array([list(p.aliases) for p in predicates], _STR_LIST),
            "inverse": pa.array([p.inverse for p in predicates], pa.string()),
            "symmetric": pa.array([p.symmetric for p in predicates], pa.bool_()),
            "description": pa.array([p.description for p in predicates], pa.string()),
        }
    )


def _fact_table(rows: Sequence[tuple[str, str, Fact]]) -> Any:
    """Return ``(subject id, object id, fact)`` rows as an Arrow table for ``COPY Fact``.

    One pass over the versions, then columns: a pass per column over a million versions
    scattered in the heap cost 3x more in cache misses (15.5 s vs 7.9 s at 1M shuffled).
    """
    pa = _arrow()
    types = {
        "STRING": pa.string(),
        "TIMESTAMP": pa.timestamp("us"),
        "DOUBLE": pa.float64(),
        "INT64": pa.int64(),
        "BOOLEAN": pa.bool_(),
    }
    get = itemgetter(*["id" if name == "fid" else name for name, _ in FACT_COLUMNS])
    columns = list(zip(*[(s, o, *get(f.__dict__)) for s, o, f in rows], strict=True))
    table: dict[str, Any] = {
        "from": pa.array(columns[0], pa.string()),
        "to": pa.array(columns[1], pa.string()),
    }
    for (name, typ), values in zip(FACT_COLUMNS, columns[2:], strict=True):
        # Facts hold aware UTC datetimes: Arrow converts them to UTC in C and stores them
        # naive, as the store keeps them (4.6x faster than through a zoned type and a cast:
        # 0.3 s a column at 100k versions, docs/benchmarks.md#appending).
        table[name] = pa.array(values, types[typ])
    return pa.table(table)
