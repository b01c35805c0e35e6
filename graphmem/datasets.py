"""Temporal datasets: the bundled sample of careers and marriages, and loaders for HyTE files.

The bundled sample (``graphmem/data/sample.tsv``) is graphmem's own: careers, marriages, birth
and death places of a few well-known scientists, written from public knowledge, and of a few
hundred invented people, under the predicates ``works_at``, ``married_to``, ``born_in`` and
``died_in``. ``scripts/make_sample.py`` writes it (seeded: the same file every time). The
loaders read the public YAGO11k and Wikidata12k files (HyTE format) where a user has them.

A data set brings its own vocabulary, and the shipped ontology holds general agent-memory
relations only: define the predicates a data set needs before loading it
(:func:`define_predicates` with :data:`SAMPLE_PREDICATES`, :data:`YAGO_CARDINALITY` or
:data:`WIKIDATA_CARDINALITY`), as any user would with ``Memory.define_predicate``.

Dates in these files are ``YYYY``, ``YYYY_MM``, ``YYYY_MM_DD`` or ``None`` (unknown); malformed
values (``195``, ``#``) are reported and skipped, never guessed.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.models import Cardinality

if TYPE_CHECKING:
    from graphmem.memory import Memory
    from graphmem.models import Predicate

__all__ = [
    "SAMPLE_PREDICATES",
    "WIKIDATA_CARDINALITY",
    "YAGO_CARDINALITY",
    "YAGO_PREDICATES",
    "TemporalFact",
    "define_predicates",
    "label",
    "load_hyte",
    "parse_time",
    "sample",
]

_DATE = re.compile(r"^(\d{4})(?:_(\d{2}))?(?:_(\d{2}))?$")

#: YAGO11k relations → the data set's own labels, used as predicate names (``load_hyte``'s
#: ``relations=``); graphmem normalises them (``isMarriedTo`` → ``is_married_to``).
YAGO_PREDICATES = {
    "<worksAt>": "worksAt",
    "<isMarriedTo>": "isMarriedTo",
    "<wasBornIn>": "wasBornIn",
    "<diedIn>": "diedIn",
    "<playsFor>": "playsFor",
    "<hasWonPrize>": "hasWonPrize",
    "<created>": "created",
    "<graduatedFrom>": "graduatedFrom",
    "<isAffiliatedTo>": "isAffiliatedTo",
    "<owns>": "owns",
}

#: How each YAGO11k relation behaves over time: one value at a time (a new employer, spouse,
#: team or party ends the previous one) or several that accumulate (prizes, works, degrees).
YAGO_CARDINALITY: dict[str, Cardinality] = {
    "worksAt": "one",
    "isMarriedTo": "one",
    "wasBornIn": "one",
    "diedIn": "one",
    "playsFor": "one",
    "isAffiliatedTo": "one",
    "hasWonPrize": "many",
    "created": "many",
    "graduatedFrom": "many",
    "owns": "many",
}

#: How each Wikidata12k property (by its ``relation_labels.tsv`` label) behaves over time.
WIKIDATA_CARDINALITY: dict[str, Cardinality] = {
    "employer": "one",
    "spouse": "one",
    "member of political party": "one",
    "member of sports team": "one",
    "residence": "one",
    "head of government": "one",
    "country": "one",
    "located in the administrative territorial entity": "one",
    "IMA status and/or rank": "one",
    "title of chess person": "one",
    "capital of": "many",
    "academic degree": "many",
    "contains the administrative territorial entity": "many",
    "twinned administrative body": "many",
    "significant event": "many",
    "heritage designation": "many",
    "position held": "many",
    "instance of": "many",
    "nominated for": "many",
    "member of": "many",
    "winner": "many",
    "educated at": "many",
    "award received": "many",
    "country of citizenship": "many",
}

#: The predicates of the bundled sample: ``(name, cardinality, aliases)``, the aliases being
#: YAGO11k's labels of the same relations (so a YAGO11k file loads under the same names).
SAMPLE_PREDICATES: tuple[tuple[str, Cardinality, tuple[str, ...]], ...] = (
    ("works_at", "one", ("worksAt",)),
    ("married_to", "one", ("isMarriedTo",)),
    ("born_in", "one", ("wasBornIn",)),
    ("died_in", "one", ("diedIn",)),
)


def define_predicates(
    mem: Memory,
    predicates: Mapping[str, Cardinality]
    | Iterable[tuple[str, Cardinality, Sequence[str]]] = SAMPLE_PREDICATES,
) -> list[Predicate]:
    """Define a data set's predicates in ``mem`` through ``Memory.define_predicate``.

    Args:
        mem: the memory to load the data set into.
        predicates: ``{name: cardinality}`` (such as :data:`YAGO_CARDINALITY`) or
            ``(name, cardinality, aliases)`` triples (such as :data:`SAMPLE_PREDICATES`).

    Returns:
        The definitions in force, in the order given.

    Raises:
        InvalidInput: as ``define_predicate`` (e.g. a cardinality change of a predicate that
            already has facts).

    Examples:
        >>> import graphmem as gm
        >>> with gm.open(ontology=None) as mem:
        ...     [p.name for p in define_predicates(mem, YAGO_CARDINALITY)][:3]
        ['works_at', 'is_married_to', 'was_born_in']
    """
    rows = (
        [(name, card, ()) for name, card in predicates.items()]
        if isinstance(predicates, Mapping)
        else list(predicates)
    )
    return [
        mem.define_predicate(name, cardinality=card, aliases=tuple(aliases))
        for name, card, aliases in rows
    ]


@dataclass(frozen=True)
class TemporalFact:
    """One dataset row: ``subject predicate object`` valid over ``[start, end)``."""

    subject: str
    predicate: str
    object: str  # noqa: A003
    start: dt.datetime
    end: dt.datetime | None

    def as_dict(self) -> dict[str, Any]:
        """Return the row as ``add_facts`` input."""
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "valid_from": self.start,
            "valid_to": self.end,
        }


def parse_time(text: str, *, end: bool = False) -> dt.datetime | None:
    """Parse ``YYYY[_MM[_DD]]``; ``None``/unknown gives ``None``; bad values raise ValueError.

    An end date is exclusive in graphmem, so an end given as a year means "through that year"
    only when ``end=True``: ``2009`` ends at 2010-01-01.

    >>> parse_time("1961_09_01")
    datetime.datetime(1961, 9, 1, 0, 0, tzinfo=datetime.timezone.utc)
    >>> parse_time("2009", end=True)
    datetime.datetime(2010, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)
    >>> parse_time("None") is None
    True
    """
    if text in ("None", "", "####"):
        return None
    m = _DATE.match(text)
    if not m:
        raise ValueError(f"malformed date {text!r}")
    year, month, day = int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1)
    if not 1 <= year <= 2100:
        raise ValueError(f"year out of range in {text!r}")
    start = dt.datetime(year, month or 1, day or 1, tzinfo=dt.timezone.utc)
    if not end:
        return start
    if m.group(3):
        return start + dt.timedelta(days=1)
    if m.group(2):
        return (start + dt.timedelta(days=32)).replace(day=1)
    return start.replace(year=year + 1)


def label(name: str) -> str:
    """Turn a YAGO name into a display label: ``<Juanlu_(x)>`` → ``Juanlu (x)``.

    >>> label("<Jerzy_Buzek>")
    'Jerzy Buzek'
    """
    return name.strip("<>").replace("_", " ")


def _read_dict(path: Path) -> dict[str, str]:
    rows = (line.split("\t") for line in path.read_text("utf-8").splitlines() if line)
    return {row[0]: row[1] for row in rows}


def load_hyte(
    folder: str | Path,
    *,
    relations: dict[str, str] | None = None,
    relation_labels: bool = False,
) -> Iterator[TemporalFact]:
    """Yield the rows of a HyTE-format dataset (YAGO11k, Wikidata12k) with valid intervals.

    Args:
        folder: directory with ``entities.dict``, ``relations.dict`` and ``train/valid/test.txt``.
        relations: keep only these raw relation names, mapped to predicate names (default: all,
            with the raw names normalised by graphmem).
        relation_labels: name Wikidata properties by ``relation_labels.tsv`` labels.

    Rows with an unknown or malformed start, or an end before the start, are skipped. A start
    and end in the same year mean "during that year".
    """
    root = Path(folder)
    ents = _read_dict(root / "entities.dict")
    rels = _read_dict(root / "relations.dict")
    if relation_labels and (root / "relation_labels.tsv").exists():
        labels = _read_dict(root / "relation_labels.tsv")
        rels = {k: labels.get(v, v) for k, v in rels.items()}
    for part in ("train.txt", "valid.txt", "test.txt"):
        for line in (root / part).read_text("utf-8").splitlines():
            s, r, o, a, b = line.split("\t")
            raw = rels[r]
            if relations is not None and raw not in relations:
                continue
            try:
                start = parse_time(a)
                end = parse_time(b, end=True)
            except ValueError:
                continue
            if start is None or (end is not None and end <= start):
                continue
            yield TemporalFact(
                label(ents[s]), relations[raw] if relations else raw, label(ents[o]), start, end
            )


def sample() -> list[TemporalFact]:
    """Return the bundled sample (careers and marriages, see the module text), in file order."""
    text = resources.files("graphmem").joinpath("data/sample.tsv").read_text("utf-8")
    out = []
    for line in text.splitlines()[1:]:
        s, p, o, a, b = line.split("\t")
        start = dt.datetime.fromisoformat(a).replace(tzinfo=dt.timezone.utc)
        end = dt.datetime.fromisoformat(b).replace(tzinfo=dt.timezone.utc) if b else None
        out.append(TemporalFact(s, p, o, start, end))
    return out
