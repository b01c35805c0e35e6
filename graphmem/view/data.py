"""The data a graph page embeds: every version with its four time bounds, entities, a layout.

See docs/concepts/exploring.md#what-the-page-holds.

The page filters versions itself, as ``facts(valid_at=v, known_at=k)`` does
(docs/concepts/time.md#rule-3): a version is shown when ``valid_from <= v < valid_to`` and
``recorded_at <= k < expired_at``, both intervals closed-open with ``None`` as an open end.
Instants are embedded as fixed-width ISO strings (``0001-01-01T00:00:00.000000``, UTC, to the
microsecond) so string order is time order, in Python and in JavaScript alike, with no
rounding: :func:`visible_ids` is the reference filter the page's script repeats.

The "why" chain of a version (:func:`graphmem.audit.why`) is a connected component of its
subject's versions: same slot (the whole timeline of a single-valued predicate, one object of a
multi-valued one) or linked by ``superseded_by``. :func:`chain_ids` computes every component at
once from the versions themselves, so a page of thousands of versions costs no query per
version.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import kernel_of
from graphmem.normalize import entity_key
from graphmem.timeutil import TimeLike, to_utc

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike
    from graphmem.models import Fact
    from graphmem.store.records import Edge

__all__ = [
    "FOLD_LIMIT",
    "LAYOUT_LIMIT",
    "chain_ids",
    "instant",
    "view_data",
    "visible_ids",
]

#: Above this many entities in a snapshot the page folds them into groups (it says so).
FOLD_LIMIT = 400
#: Up to this many entities the initial layout is networkx's spring layout; above, a cheap one.
LAYOUT_LIMIT = 300
#: The layout's seed: the same memory always opens with the same picture.
SEED = 7
#: Folding around hubs makes at most this many groups (plus "others").
HUBS = 40
_SIZE = 1000.0  # layout coordinates span [0, _SIZE]


def instant(t: dt.datetime | None) -> str | None:
    """Return ``t`` as a fixed-width UTC ISO string (order = time order), ``None`` for open."""
    if t is None:
        return None
    return t.astimezone(dt.timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds")


def visible_ids(data: Mapping[str, Any], valid_at: TimeLike, known_at: TimeLike) -> list[str]:
    """Return the ids of the embedded versions ``facts(valid_at=, known_at=)`` returns, sorted.

    The reference for the page's filter (the same comparisons on the same strings).
    """
    v = instant(to_utc(valid_at, name="valid_at"))
    k = instant(to_utc(known_at, name="known_at"))
    assert v is not None
    assert k is not None
    return sorted(
        r["id"]
        for r in data["versions"]
        if r["vf"] <= v
        and (r.get("vt") is None or v < r["vt"])
        and r["ra"] <= k
        and (r.get("ea") is None or k < r["ea"])
    )


def chain_ids(kernel: Kernel, versions: Sequence[Fact]) -> dict[str, int]:
    """Return ``{version id: chain number}``: versions with one number share a ``why`` chain.

    The same components as :func:`graphmem.audit.why` finds, for every version at once; the
    versions of a subject and of the entities merged into it are one pool, as there.
    """

    def pool(v: Fact) -> str:
        sid = entity_key(v.subject)
        return kernel.aliases.get(sid, sid)

    def slot(v: Fact) -> tuple[str, str, str | None]:
        pred = kernel.ontology.lookup(v.predicate)
        single = pred is not None and pred.cardinality == "one"
        return (pool(v), v.predicate, None if single else entity_key(v.object))

    parent = {v.id: v.id for v in versions}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    by_id = {v.id: v for v in versions}
    first: dict[tuple[str, str, str | None], str] = {}
    for v in versions:
        union(first.setdefault(slot(v), v.id), v.id)
        # why() follows superseded_by within the subject's pool (it reads that pool only)
        nxt = by_id.get(v.superseded_by or "")
        if nxt is not None and pool(nxt) == pool(v):
            union(v.id, nxt.id)
    roots: dict[str, int] = {}
    return {v.id: roots.setdefault(find(v.id), len(roots)) for v in versions}


def _ball(edges: Sequence[Edge], start: Sequence[str], hops: int) -> set[str]:
    adjacent: dict[str, set[str]] = defaultdict(set)
    for s, o, _ in edges:
        adjacent[s].add(o)
        adjacent[o].add(s)
    seen = set(start)
    frontier = set(start)
    for _ in range(hops):
        frontier = {n for x in frontier for n in adjacent[x]} - seen
        if not frontier:
            break
        seen |= frontier
    return seen


def _scope(kernel: Kernel, scope: str | Iterable[str] | None, edges: Sequence[Edge]) -> set[str]:
    names = [scope] if isinstance(scope, str) else list(scope or ())
    used = {f.predicate for _, _, f in edges}
    wanted: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput(f"scope={scope!r} must be predicate names, e.g. scope=['works_at']")
        found = kernel.ontology.lookup(name)
        pred = found.name if found is not None else name
        if pred not in used:
            known = ", ".join(sorted(used)[:20]) or "none yet"
            raise InvalidInput(
                f"scope predicate {name!r} has no fact in memory {kernel.where!r}; "
                f"pass one of the predicates in use: {known}"
            )
        wanted.add(pred)
    return wanted


def _layout(
    ids: Sequence[str], edges: Sequence[Edge], groups: dict[str, int], others: int | None
) -> dict[str, Any]:
    """Initial positions in ``[0, 1000]²``: spring layout when small, grouped discs when large."""
    import networkx as nx  # type: ignore[import-untyped,unused-ignore]  # lazy: a heavy import

    pos: dict[str, tuple[float, float]] = {}
    if not ids:
        return {"pos": pos, "centres": {}}
    if len(ids) <= LAYOUT_LIMIT:
        G = nx.Graph()
        G.add_nodes_from(ids)
        G.add_edges_from((s, o) for s, o, _ in edges if s != o)
        raw = nx.spring_layout(G, seed=SEED, k=1.6 / math.sqrt(max(len(ids), 1)))
        pos = {n: (float(x), float(y)) for n, (x, y) in raw.items()}
    else:
        # Groups on a spring layout of the group graph, members on a sunflower disc around
        # their group's centre: linear in the entities, the same picture every time.
        members: dict[int, list[str]] = defaultdict(list)
        for n in ids:
            members[groups[n]].append(n)
        H = nx.Graph()
        H.add_nodes_from(members)
        for s, o, _ in edges:
            if groups[s] != groups[o]:
                H.add_edge(groups[s], groups[o])
        # A weak pull to a hidden centre keeps unlinked groups near the rest.
        for g in list(H):
            H.add_edge(g, "centre", weight=0.05)
        centre = nx.spring_layout(H, seed=SEED, iterations=60)
        H.remove_node("centre")
        rest = [c for g, c in centre.items() if g != "centre" and g != others]
        if others in centre and rest:  # "others" links nothing: set it just below the rest
            centre[others] = (
                sum(c[0] for c in rest) / len(rest),
                max(c[1] for c in rest) + 1.2 / math.sqrt(len(H)),
            )
        spread = 0.9 / math.sqrt(len(H))
        biggest = max(len(m) for m in members.values())
        golden = math.pi * (3 - math.sqrt(5))
        for g, names in members.items():
            cx, cy = centre[g]
            radius = spread * math.sqrt(len(names) / biggest)
            for i, n in enumerate(names):
                r = radius * math.sqrt((i + 0.5) / len(names))
                pos[n] = (cx + r * math.cos(i * golden), cy + r * math.sin(i * golden))
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)

    def scaled(x: float, y: float) -> tuple[float, float]:
        return (
            round(40 + (_SIZE - 80) * (x - min(xs)) / span, 1),
            round(40 + (_SIZE - 80) * (y - min(ys)) / span, 1),
        )

    return {"pos": {n: scaled(*p) for n, p in pos.items()}}


def _groups(ids: Sequence[str], kinds: Mapping[str, str], edges: Sequence[Edge]) -> Any:
    """Fold entities by kind when there are several kinds, else around hubs.

    Around hubs: the best-connected entities (over every version) seed the groups and every
    other entity joins the group of its nearest seed (a breadth-first search from all seeds at
    once, ties to the better-connected seed); entities no seed reaches are "others".
    Deterministic and linear in the versions.
    """
    distinct = sorted({kinds[n] for n in ids})
    if 1 < len(distinct) <= 30:
        index = {k: i for i, k in enumerate(distinct)}
        return "kind", list(distinct), {n: index[kinds[n]] for n in ids}
    adjacent: dict[str, set[str]] = defaultdict(set)
    for s, o, _ in edges:
        if s != o:
            adjacent[s].add(o)
            adjacent[o].add(s)
    hubs = sorted(ids, key=lambda n: (-len(adjacent[n]), n))[:HUBS]
    hubs = [n for n in hubs if len(adjacent[n]) >= 3]
    groups = {n: i for i, n in enumerate(hubs)}
    frontier = list(hubs)
    while frontier:
        nxt = []
        for n in frontier:
            for m in sorted(adjacent[n]):
                if m not in groups:
                    groups[m] = groups[n]
                    nxt.append(m)
        frontier = nxt
    names = list(hubs)
    if len(groups) < len(ids):
        for n in ids:
            groups.setdefault(n, len(names))
        names.append("")
    return "hub", names, groups


def view_data(
    mem: MemoryLike,
    *,
    subject: str | None = None,
    hops: int = 2,
    valid_at: TimeLike | None = None,
    known_at: TimeLike | None = None,
    scope: str | Iterable[str] | None = None,
) -> dict[str, Any]:
    """Return the JSON-ready data of a graph page (see the module docstring).

    Raises:
        NotFound: no entity is named ``subject``.
        InvalidInput: a bad ``hops``, time or ``scope``.
    """
    kernel = kernel_of(mem)
    if isinstance(hops, bool) or not isinstance(hops, int) or hops < 0:
        raise InvalidInput(f"hops={hops!r} must be a non-negative integer (0 = the subject alone)")
    now = kernel.now()
    v = kernel.time(valid_at, "valid_at", now)
    k = kernel.time(known_at, "known_at", now)
    with kernel.lock:  # one consistent read of the whole memory
        edges = kernel.store.all_facts()
        rows = kernel.store.entity_rows()
    names = {r["id"]: r["name"] or r["id"] for r in rows}
    kinds = {r["id"]: r["kind"] or "entity" for r in rows}
    if scope is not None:
        wanted = _scope(kernel, scope, edges)
        edges = [e for e in edges if e[2].predicate in wanted]
    start: list[str] = []
    if subject is not None:
        start = [i for i in kernel.subject_ids(subject) if i in names]
        if not start:
            raise NotFound(
                f"no entity named {subject!r} in memory {kernel.where!r}; check the spelling "
                "(`graphmem facts` lists subjects) or leave the subject out to view everything"
            )
        ball = _ball(edges, start, hops)
        edges = [e for e in edges if e[0] in ball and e[1] in ball]
    edges = sorted(edges, key=lambda e: (e[2].recorded_at, e[2].id))
    ids = sorted({s for s, _, _ in edges} | {o for _, o, _ in edges} | set(start))
    by, group_names, groups = _groups(ids, kinds, edges)
    layout = _layout(ids, edges, groups, group_names.index("") if "" in group_names else None)
    index = {n: i for i, n in enumerate(ids)}
    chains = chain_ids(kernel, [f for _, _, f in edges])
    versions = []
    for s, o, f in edges:
        row: dict[str, Any] = {
            "id": f.id,
            "s": index[s],
            "o": index[o],
            "p": f.predicate,
            "vf": instant(f.valid_from),
            "vt": instant(f.valid_to),
            "ra": instant(f.recorded_at),
            "ea": instant(f.expired_at),
            "c": chains[f.id],
            "st": f.statement,
            "src": f.source,
            "why": f.reason,
            "by": f.superseded_by,
        }
        if f.kind != "fact":
            row["k"] = f.kind
        versions.append({key: val for key, val in row.items() if val is not None})
    valid_steps = {instant(x) for _, _, f in edges for x in (f.valid_from, f.valid_to)}
    known_steps = {instant(x) for _, _, f in edges for x in (f.recorded_at, f.expired_at)}
    return {
        "meta": {
            "now": instant(now),
            "valid_at": instant(v),
            "known_at": instant(k),
            "subject": subject,
            "hops": hops if subject is not None else None,
            "scope": sorted(_scope(kernel, scope, edges)) if scope is not None else None,
            "where": kernel.where,
            "fold_by": by,
            "fold_limit": FOLD_LIMIT,
        },
        "entities": [
            {
                "id": n,
                "n": names.get(n, n),
                "k": kinds.get(n, "entity"),
                "x": layout["pos"][n][0],
                "y": layout["pos"][n][1],
                "g": groups[n],
            }
            for n in ids
        ],
        "groups": group_names,
        "subject": [index[i] for i in start],
        "versions": versions,
        "valid_steps": sorted(s for s in valid_steps | {instant(v), instant(now)} if s),
        "known_steps": sorted(s for s in known_steps | {instant(k), instant(now)} if s),
    }
