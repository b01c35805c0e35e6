"""Real temporal datasets: the bundled YAGO11k sample and loaders for the HyTE-format files.

The bundled sample (``graphmem/data/yago_sample.tsv``) holds the ``worksAt`` and ``isMarriedTo``
facts of YAGO11k with the birth and death places of the same people. YAGO3 is © Max Planck
Institute for Informatics, CC BY 3.0 (see ``graphmem/data/ATTRIBUTION.md``).

Dates in these files are ``YYYY``, ``YYYY_MM``, ``YYYY_MM_DD`` or ``None`` (unknown); malformed
values (``195``, ``#``) are reported and skipped, never guessed.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "YAGO_PREDICATES",
    "TemporalFact",
    "label",
    "load_hyte",
    "parse_time",
    "sample",
]

_DATE = re.compile(r"^(\d{4})(?:_(\d{2}))?(?:_(\d{2}))?$")

#: YAGO11k relations → graphmem predicates (with the cardinality the default ontology gives).
YAGO_PREDICATES = {
    "<worksAt>": "works_at",
    "<isMarriedTo>": "married_to",
    "<wasBornIn>": "born_in",
    "<diedIn>": "died_in",
    "<playsFor>": "plays_for",
    "<hasWonPrize>": "has_won_prize",
    "<created>": "created",
    "<graduatedFrom>": "graduated_from",
    "<isAffiliatedTo>": "affiliated_to",
    "<owns>": "owns",
}


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
    """Return the bundled YAGO11k sample (careers and marriages), in file order."""
    text = resources.files("graphmem").joinpath("data/yago_sample.tsv").read_text("utf-8")
    out = []
    for line in text.splitlines()[1:]:
        s, p, o, a, b = line.split("\t")
        start = dt.datetime.fromisoformat(a).replace(tzinfo=dt.timezone.utc)
        end = dt.datetime.fromisoformat(b).replace(tzinfo=dt.timezone.utc) if b else None
        out.append(TemporalFact(s, p, o, start, end))
    return out
