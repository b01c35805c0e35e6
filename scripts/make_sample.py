"""Write ``graphmem/data/sample.tsv``, the careers and marriages ``graphmem demo`` replays.

The sample is graphmem's own: the rows of a few well-known scientists are written here from
public knowledge (years, as a reference work gives them; a job or marriage that ended in year Y
ends on 1 January of Y + 1, the "through that year" reading, except where a death date is
known), and every other person is invented by a seeded generator, so the file is the same on
every run. Nothing is copied or derived from a downloaded data set.

    python scripts/make_sample.py            # rewrites graphmem/data/sample.tsv
    python scripts/make_sample.py --check    # exits 1 when the file is not what this writes
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "graphmem" / "data" / "sample.tsv"
SEED = 1905
PEOPLE = 140

# (subject, predicate, object, valid_from, valid_to): real people, from public knowledge.
REAL: list[tuple[str, str, str, str, str]] = [
    ("Albert Einstein", "born_in", "Ulm", "1879-03-14", ""),
    ("Albert Einstein", "works_at", "Swiss Patent Office", "1902-01-01", "1909-01-01"),
    ("Albert Einstein", "works_at", "University of Zurich", "1909-01-01", "1911-01-01"),
    ("Albert Einstein", "works_at", "Charles-Ferdinand University", "1911-01-01", "1912-01-01"),
    ("Albert Einstein", "works_at", "ETH Zurich", "1912-01-01", "1914-01-01"),
    ("Albert Einstein", "works_at", "Prussian Academy of Sciences", "1914-01-01", "1933-01-01"),
    ("Albert Einstein", "works_at", "Institute for Advanced Study", "1933-01-01", "1955-04-18"),
    ("Albert Einstein", "married_to", "Mileva Marić", "1903-01-01", "1920-01-01"),
    ("Albert Einstein", "died_in", "Princeton", "1955-04-18", ""),
    ("Richard Feynman", "born_in", "New York City", "1918-05-11", ""),
    ("Richard Feynman", "works_at", "Los Alamos Laboratory", "1943-01-01", "1945-01-01"),
    ("Richard Feynman", "works_at", "Cornell University", "1945-01-01", "1950-01-01"),
    (
        "Richard Feynman",
        "works_at",
        "California Institute of Technology",
        "1950-01-01",
        "1988-02-15",
    ),
    ("Richard Feynman", "married_to", "Arline Greenbaum", "1942-01-01", "1945-06-16"),
    ("Richard Feynman", "married_to", "Mary Louise Bell", "1952-01-01", "1959-01-01"),
    ("Richard Feynman", "married_to", "Gweneth Howarth", "1960-01-01", "1988-02-15"),
    ("Richard Feynman", "died_in", "Los Angeles", "1988-02-15", ""),
    ("Erwin Schrödinger", "born_in", "Vienna", "1887-08-12", ""),
    ("Erwin Schrödinger", "works_at", "University of Zurich", "1921-01-01", "1927-01-01"),
    ("Erwin Schrödinger", "works_at", "University of Berlin", "1927-01-01", "1933-01-01"),
    ("Erwin Schrödinger", "works_at", "University of Oxford", "1933-01-01", "1936-01-01"),
    ("Erwin Schrödinger", "works_at", "University of Graz", "1936-01-01", "1938-01-01"),
    (
        "Erwin Schrödinger",
        "works_at",
        "Dublin Institute for Advanced Studies",
        "1940-01-01",
        "1956-01-01",
    ),
    ("Erwin Schrödinger", "works_at", "University of Vienna", "1956-01-01", "1961-01-04"),
    ("Erwin Schrödinger", "married_to", "Annemarie Bertel", "1920-01-01", "1961-01-04"),
    ("Erwin Schrödinger", "died_in", "Vienna", "1961-01-04", ""),
    ("Marie Curie", "born_in", "Warsaw", "1867-11-07", ""),
    ("Marie Curie", "married_to", "Pierre Curie", "1895-07-26", "1906-04-19"),
    ("Marie Curie", "works_at", "University of Paris", "1906-01-01", "1934-07-04"),
    ("Marie Curie", "died_in", "Passy", "1934-07-04", ""),
    ("Pierre Curie", "born_in", "Paris", "1859-05-15", ""),
    ("Pierre Curie", "married_to", "Marie Curie", "1895-07-26", "1906-04-19"),
    ("Pierre Curie", "works_at", "University of Paris", "1900-01-01", "1906-04-19"),
    ("Pierre Curie", "died_in", "Paris", "1906-04-19", ""),
    ("Niels Bohr", "born_in", "Copenhagen", "1885-10-07", ""),
    ("Niels Bohr", "works_at", "Victoria University of Manchester", "1914-01-01", "1916-01-01"),
    ("Niels Bohr", "works_at", "University of Copenhagen", "1916-01-01", "1962-11-18"),
    ("Niels Bohr", "married_to", "Margrethe Nørlund", "1912-08-01", "1962-11-18"),
    ("Niels Bohr", "died_in", "Copenhagen", "1962-11-18", ""),
    ("Emmy Noether", "born_in", "Erlangen", "1882-03-23", ""),
    ("Emmy Noether", "works_at", "University of Göttingen", "1915-01-01", "1933-01-01"),
    ("Emmy Noether", "works_at", "Bryn Mawr College", "1933-01-01", "1935-04-14"),
    ("Emmy Noether", "died_in", "Bryn Mawr", "1935-04-14", ""),
    ("Max Born", "born_in", "Breslau", "1882-12-11", ""),
    ("Max Born", "works_at", "University of Göttingen", "1921-01-01", "1933-01-01"),
    ("Max Born", "works_at", "University of Edinburgh", "1936-01-01", "1953-01-01"),
    ("Max Born", "married_to", "Hedwig Ehrenberg", "1913-01-01", "1970-01-05"),
    ("Max Born", "died_in", "Göttingen", "1970-01-05", ""),
    ("Alan Turing", "born_in", "London", "1912-06-23", ""),
    (
        "Alan Turing",
        "works_at",
        "Government Code and Cypher School",
        "1939-01-01",
        "1945-01-01",
    ),
    ("Alan Turing", "works_at", "National Physical Laboratory", "1945-01-01", "1948-01-01"),
    ("Alan Turing", "works_at", "University of Manchester", "1948-01-01", "1954-06-07"),
    ("Alan Turing", "died_in", "Wilmslow", "1954-06-07", ""),
]

FIRST = [
    "Ada",
    "Aino",
    "Anders",
    "Anja",
    "Aurelio",
    "Bea",
    "Bruno",
    "Carla",
    "Cyril",
    "Dalia",
    "Dmitri",
    "Edda",
    "Emil",
    "Esme",
    "Farid",
    "Frida",
    "Gabor",
    "Greta",
    "Hana",
    "Hugo",
    "Ilse",
    "Ines",
    "Ivo",
    "Jana",
    "Jonas",
    "Kaito",
    "Klara",
    "Lars",
    "Lena",
    "Lucio",
    "Maren",
    "Mateo",
    "Mila",
    "Nadia",
    "Nils",
    "Olga",
    "Omar",
    "Paula",
    "Pavel",
    "Quentin",
    "Rosa",
    "Rui",
    "Sanna",
    "Selim",
    "Tekla",
    "Teo",
    "Ulla",
    "Vera",
    "Viktor",
    "Wanda",
    "Yara",
    "Yusuf",
    "Zofia",
]
LAST = [
    "Abendroth",
    "Alvarez",
    "Bakker",
    "Berglund",
    "Castell",
    "Dahl",
    "Dvořák",
    "Eklund",
    "Ferrante",
    "Fischer",
    "Garamond",
    "Halvorsen",
    "Ibarra",
    "Jansen",
    "Kovacs",
    "Lindqvist",
    "Marchetti",
    "Moreau",
    "Nakamura",
    "Novak",
    "Okafor",
    "Petrov",
    "Quist",
    "Rahimi",
    "Salonen",
    "Schreiber",
    "Tanaka",
    "Ueda",
    "Valdés",
    "Varga",
    "Weiss",
    "Xu",
    "Yilmaz",
    "Zeller",
]
PLACES = [
    "Amsterdam",
    "Basel",
    "Bergen",
    "Bologna",
    "Bremen",
    "Brno",
    "Edinburgh",
    "Geneva",
    "Ghent",
    "Graz",
    "Kraków",
    "Leiden",
    "Lisbon",
    "Lyon",
    "Montreal",
    "Oslo",
    "Porto",
    "Prague",
    "Toronto",
    "Turin",
    "Uppsala",
    "Utrecht",
    "Vienna",
    "Zurich",
]
#: Places of work, real and invented, shared so that people meet (colleagues, two hops out),
#: with the years each existed (an invented person works only where a job was possible then).
WORK: list[tuple[str, int, int]] = [
    ("ETH Zurich", 1855, 2100),
    ("University of Zurich", 1833, 2100),
    ("University of Göttingen", 1737, 2100),
    ("Prussian Academy of Sciences", 1700, 1945),
    ("Leiden University", 1575, 2100),
    ("University of Copenhagen", 1479, 2100),
    ("University of Paris", 1150, 1970),
    ("Institute for Advanced Study", 1930, 2100),
    ("Cornell University", 1865, 2100),
    ("California Institute of Technology", 1920, 2100),
    ("University of Edinburgh", 1583, 2100),
    ("University of Manchester", 1851, 2100),
    ("Northgate Observatory", 1870, 2100),
    ("Halden Institute of Chemistry", 1890, 2100),
    ("Corvin Instruments", 1905, 1998),
    ("Marlow & Finch Publishers", 1850, 2100),
    ("Ostrava Steelworks", 1870, 1995),
    ("Bellweather Insurance", 1880, 2100),
    ("Harbour Line Railways", 1860, 1975),
    ("Kestrel Aircraft Company", 1915, 1985),
    ("St. Brigid's Hospital", 1860, 2100),
    ("Lindgren Pharmaceuticals", 1935, 2100),
    ("Atlas Radio Company", 1922, 1990),
    ("Vale Street School", 1870, 2100),
    ("Quayside Software", 1982, 2100),
]


def _date(year: int, rng: random.Random) -> str:
    return f"{year}-{rng.randint(1, 12):02d}-01" if rng.random() < 0.3 else f"{year}-01-01"


def invented(rng: random.Random) -> list[tuple[str, str, str, str, str]]:
    """Careers, marriages, birth and death places of invented people (seeded)."""
    names: list[str] = []
    while len(names) < PEOPLE:
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if name not in names:
            names.append(name)
    rows: list[tuple[str, str, str, str, str]] = []
    single: list[tuple[str, int, int]] = []
    for name in names:
        born = rng.randint(1860, 1975)
        died = born + rng.randint(55, 95)
        died = died if died < 2025 else 0
        rows.append((name, "born_in", rng.choice(PLACES), f"{born}-01-01", ""))
        year = born + rng.randint(20, 28)
        for _ in range(rng.randint(1, 4)):
            end = year + rng.randint(2, 14)
            last = died and end >= died
            if last:
                end = died
            stop = "" if (not died and end >= 2025) else _date(end, rng)
            open_then = [w for w, first, last in WORK if first <= year and end <= last]
            if not open_then:
                break
            rows.append((name, "works_at", rng.choice(open_then), _date(year, rng), stop))
            if not stop or last:
                break
            year = end
        if died:
            rows.append((name, "died_in", rng.choice(PLACES), f"{died}-01-01", ""))
        if rng.random() < 0.6:
            single.append((name, born, died))
    # Marriages between invented people of about the same age, both directions, some ending
    # in a divorce and a second marriage.
    rng.shuffle(single)
    single.sort(key=lambda p: p[1])
    for (a, born_a, died_a), (b, born_b, died_b) in zip(single[::2], single[1::2], strict=False):
        start = max(born_a, born_b) + rng.randint(20, 32)
        ends = [d for d in (died_a, died_b) if d]
        end = min(ends) if ends else 0
        if rng.random() < 0.25 and start + 3 < (end or 2024):
            end = rng.randint(start + 2, (end or 2024) - 1)  # a divorce
        if end and end <= start:
            continue
        stop = _date(end, rng) if end else ""
        since = _date(start, rng)
        rows.append((a, "married_to", b, since, stop))
        rows.append((b, "married_to", a, since, stop))
    return rows


def render() -> str:
    """The file's text: a header, the real rows, then the invented ones."""
    rng = random.Random(SEED)
    rows = REAL + invented(rng)
    lines = ["subject\tpredicate\tobject\tvalid_from\tvalid_to"]
    lines += ["\t".join(row) for row in rows]
    return "\n".join(lines) + "\n"


def main() -> int:
    """Write the sample (or, with ``--check``, compare it); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    text = render()
    if args.check:
        same = OUT.exists() and OUT.read_text("utf-8") == text
        print("up to date" if same else f"{OUT} differs from what this script writes")
        return 0 if same else 1
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT} ({text.count(chr(10)) - 1} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
