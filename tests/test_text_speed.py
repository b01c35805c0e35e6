"""What the text write path does to go faster never changes what it reads.

See docs/concepts/text.md#speed.

- Reading many texts in one call (one parse batch, and the second pass reusing what the first
  read where the parse read nothing) gives the claims of reading each text on its own, and of
  reading every asked sentence again.
- The dates of a text are kept per instant *and* zone: equal instants in two zones keep theirs.
- Names that normalisation leaves alone skip it, with the same key.
- The verb patterns' union matches a clause exactly when one of the patterns does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import normalize
from graphmem.text import readers
from graphmem.text.dates import _scan, find_dates
from graphmem.text.readers import BuiltinReader
from graphmem.text.rules import verbs

DATA = Path(__file__).parent / "data"
AT = dt.datetime(2026, 6, 10, 12, tzinfo=dt.timezone.utc)


def _corpus_texts() -> list[str]:
    out = []
    for name in ("text_blind_dev.jsonl", "text_blind_test.jsonl"):
        for line in (DATA / name).read_text().splitlines():
            out.extend(s["text"] for s in json.loads(line)["sessions"])
    return out


TEXTS = _corpus_texts()
CHAT = [
    "Caroline: Hey Mel! Good to see you. I went to a support group yesterday.",
    "Melanie: That sounds great. Our team moved the API to Go last week, and she leads it.",
    "Caroline: Thanks! The billing service runs on Laravel; Priya owns it now.",
    "Melanie: Wow. Is it fast? We replaced Jenkins with GitHub Actions.",
    "user: fyi the staging db is on postgres 13\nassistant: Noted, staging is on Postgres 13.",
]
TEXT = st.sampled_from(TEXTS + CHAT)


def _parser_missing() -> bool:
    from graphmem.text.nlp import parser_name

    return parser_name() == "blank"


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts=st.lists(TEXT, min_size=1, max_size=6))
def test_reading_in_one_call_reads_what_reading_one_at_a_time_reads(
    texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if _parser_missing():
        pytest.skip("no trained English pipeline installed")
    reader = BuiltinReader()
    dated = [(t, AT + dt.timedelta(days=i)) for i, t in enumerate(texts)]
    together = reader.readings(dated, owner="self")
    alone = [reader.readings([d], owner="self")[0] for d in dated]
    assert together == alone
    # the second pass reading every sentence that asked for a parse again: the same claims
    with monkeypatch.context() as m:
        m.setattr(readers, "_carried", lambda _reader: (object(),))
        again = reader.readings(dated, owner="self")
    assert together == again


def test_the_second_pass_reuses_a_sentence_the_parse_read_nothing_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if _parser_missing():
        pytest.skip("no trained English pipeline installed")
    from graphmem.text import reader as sentence_reader

    reads: list[str] = []
    original = sentence_reader.Reader.read

    def counted(self: sentence_reader.Reader, sentence: str, speaker: str | None = None) -> object:
        reads.append(sentence)
        return original(self, sentence, speaker)

    monkeypatch.setattr(sentence_reader.Reader, "read", counted)
    text = "Caroline: That sounds great, see you soon. Invoices are stored in S3."
    reading = BuiltinReader().readings([(text, AT)], owner="self")[0]
    claims = [(c.subject, c.predicate, c.object) for _, cs in reading for c in cs]
    assert ("Invoices", "stored in", "S3") in claims
    # the first sentence asked for a parse that read nothing: read once, not twice
    assert reads.count("That sounds great, see you soon.") == 1


def test_dates_are_kept_per_zone_not_only_per_instant() -> None:
    utc = dt.datetime(2026, 6, 9, 23, 0, tzinfo=dt.timezone.utc)
    paris = utc.astimezone(dt.timezone(dt.timedelta(hours=2)))  # the same instant, June 10
    assert utc == paris
    for at in (utc, paris, utc, paris):
        assert list(find_dates("We moved yesterday.", at)) == list(_scan("We moved yesterday.", at))
    assert list(find_dates("We moved yesterday.", utc)) != list(
        find_dates("We moved yesterday.", paris)
    )


def _slow_key(name: str) -> str:
    text = normalize._WS.sub(" ", unicodedata.normalize("NFKC", name)).strip()
    key = normalize._WS.sub(" ", unicodedata.normalize("NFKC", text.casefold())).strip()
    if len(key) > normalize.MAX_KEY:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        key = f"{key[:200]}#{digest}"
    return key


@given(st.text(alphabet=st.characters(max_codepoint=0x17F), min_size=1, max_size=300))
def test_names_that_normalisation_leaves_alone_keep_their_key(name: str) -> None:
    if not _slow_key(name):
        return  # blank: refused either way
    assert normalize.entity_key(name) == _slow_key(name)
    assert (
        normalize.clean_name(name)
        == normalize._WS.sub(" ", unicodedata.normalize("NFKC", name)).strip()
    )


_VOCABULARY = (
    "we our Alice the api works at lives in runs on is now hosted deploys with Acme Go "
    "reports to port 8080 listens uses likes has been , . - moved to joined"
)
WORDS = st.sampled_from(_VOCABULARY.split())


@given(st.lists(WORDS, max_size=12).map(" ".join))
def test_the_verb_patterns_union_matches_when_one_pattern_does(clause: str) -> None:
    assert bool(verbs._ANY_VERB.match(clause)) == any(
        rx.match(clause) for rx, _, _ in verbs._VERB_RES
    )


def test_the_verb_patterns_union_on_the_corpora() -> None:
    for text in TEXTS:
        for clause in text.replace("\n", ". ").split(". "):
            assert bool(verbs._ANY_VERB.match(clause)) == any(
                rx.match(clause) for rx, _, _ in verbs._VERB_RES
            )


def test_the_attribute_rulers_lookup_sets_what_the_ruler_sets() -> None:
    if _parser_missing():
        pytest.skip("no trained English pipeline installed")
    from graphmem.text import nlp

    nlp.parser_name()
    pipeline = nlp._TRAINED[0][1]
    ruler = pipeline.get_pipe("attribute_ruler")
    assert isinstance(ruler.match, nlp._RulerMatches)
    texts = [line for t in TEXTS + CHAT for line in t.splitlines() if line.strip()] + [
        "I'm gon na do it, we got ta go, let's go.",
        "Ain't it fun? He gets it; she got it.",
        "  Spaces   here  ",
    ]

    def attributes() -> list[list[tuple[str, ...]]]:
        return [
            [(t.text, t.tag_, t.pos_, t.lemma_, str(t.morph), t.dep_) for t in doc]
            for doc in pipeline.pipe(texts)
        ]

    fast = attributes()
    lookup = ruler.match
    del ruler.match  # the ruler's own matching
    try:
        assert attributes() == fast
    finally:
        ruler.match = lookup
