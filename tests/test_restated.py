"""Values a later line gives otherwise: docs/concepts/recall.md#restated."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.restated import Item, field_said_again, renamed, restated, typed_values
from graphmem.timeutil import ManualClock

D1 = dt.datetime(2026, 2, 3, 9, tzinfo=dt.UTC)
D2 = dt.datetime(2026, 2, 13, 16, tzinfo=dt.UTC)
LATER = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)


def _marks(old: str, new: str, *, query: str = "") -> dict[str, str]:
    items = [Item("a", old, D1), Item("b", new, D2)]
    return {k: v for k, (v, _) in restated(items, valid_at=LATER, query=query).items()}


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("staging is still on Postgres 14", "n:postgres", "Postgres 14"),
        ("she's in room 214, first floor", "n:room", "room 214"),
        ("the consumers run on 4 workers", "u:worker", "4 workers"),
        ("the nightly job takes about 3 hours", "u:duration", "3 hours"),
        ("limit is 100 req/s per key", "u:req/", "100 req/s"),
        ("the business plan is $240/month", "money", "$240/month"),
        ("uptime was 99.9%", "share", "99.9%"),
        ("prod k8s is on 1.27.3", "version", "1.27.3"),
        ("primary db is pg-prod-2", "h:pg-prod-", "pg-prod-2"),
        ("Phone: 0412 338 905", "phone", "0412 338 905"),
        ("receipts come from billing@corp.example", "email", "billing@corp.example"),
        ("the surgery is on March 10", "date", "March 10"),
        ("lands at 6:40pm", "time", "6:40pm"),
        ("staging url is https://stg.example.dev (docs)", "url", "https://stg.example.dev"),
    ],
)
def test_kinds(text: str, kind: str, value: str) -> None:
    assert value in typed_values(text)[kind].values()


def test_one_value_in_two_spellings_is_one_canonical_value() -> None:
    assert typed_values("$12")["money"].keys() == typed_values("$12/month")["money"].keys()
    assert typed_values("at 2pm")["time"].keys() == typed_values("14:00 UTC")["time"].keys()
    assert typed_values("July 1")["date"].keys() == typed_values("1 Jul")["date"].keys()
    assert typed_values("$1,950")["money"].keys() == typed_values("$1950.00")["money"].keys()


def test_chat_stamps_and_function_words_are_not_values() -> None:
    assert "time" not in typed_values("[09:02] marta: morning")
    assert "time" not in typed_values("Nadia Boateng 9:15 AM: thank you!")
    assert typed_values("visiting hours are 10 to 6") == {}


def test_a_later_value_of_the_same_kind_marks_the_earlier_line() -> None:
    marks = _marks(
        "fyi staging is still on Postgres 14",
        "staging upgrade done, we're on Postgres 16 now",
        query="Which Postgres version is staging on?",
    )
    assert marks == {"a": "Postgres 14 possibly superseded: Postgres 16"}


@pytest.mark.parametrize(
    ("old", "new", "query", "mark"),
    [
        # a date it takes effect is a word of change
        ("25kg sack is £18.40 delivered", "£21.15 a sack from 1 March", "", "£18.40"),
        # a shared word inside the new value ("staging.") and outside it
        (
            "docs: staging url is https://stg.example.dev",
            "chore: staging moved to a new account, now https://staging.example.io",
            "what is the staging url?",
            "https://stg.example.dev",
        ),
    ],
)
def test_more_marks(old: str, new: str, query: str, mark: str) -> None:
    assert _marks(old, new, query=query)["a"].startswith(f"{mark} possibly superseded: ")


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        # no word of change or "now" in the later line
        ("staging is on Postgres 14", "staging is on Postgres 16", "staging postgres"),
        # no word shared besides the values
        ("billing runs 4 workers", "we moved search to 12 workers", "workers"),
        # the later line repeats the earlier value ("from 14 to 16" is the said-ended rule's)
        ("staging is on Postgres 14", "moved staging from Postgres 14 to Postgres 16", "staging"),
        # a kind beyond versions, amounts and shares needs a query word among the shared ones
        ("the consumers run on 4 workers", "consumers are on 12 workers now", "autoscaling"),
        # two values of the kind in one line: which one changed is not clear
        (
            "consumers run on 4 workers, indexers on 2 workers",
            "consumers on 12 workers now",
            "consumers",
        ),
    ],
)
def test_no_mark(old: str, new: str, query: str) -> None:
    assert _marks(old, new, query=query) == {}


def test_dates_and_times_count_only_for_a_question_that_asks_when() -> None:
    old, new = "dad's hip surgery is on March 10", "they moved the surgery to March 17"
    assert _marks(old, new, query="which hospital is the surgery at") == {}
    marks = _marks(old, new, query="when is the surgery")
    assert marks == {"a": "March 10 possibly superseded: March 17"}


def test_a_line_said_after_valid_at_or_skipped_marks_nothing() -> None:
    items = [Item("a", "limit is $20 a seat", D1), Item("b", "limit raised to $24 a seat", D2)]
    assert restated(items, valid_at=D1) == {}
    assert restated(items, valid_at=LATER, skip=frozenset({"a"})) == {}
    assert restated(items, valid_at=LATER) == {"a": ("$20 possibly superseded: $24", D2)}


_TEXTS = st.sampled_from(
    [
        "staging is on Postgres 14",
        "staging moved to Postgres 16 now",
        "the team plan is $20 a seat",
        "team plan raised to $24 a seat",
        "the consumers run on 4 workers",
        "consumers are on 12 workers now",
        "nothing changed",
        "release is 1.27, new build 1.29 now",
    ]
)


def _marked_in_any_order(marker, texts, rnd, query: str) -> list[tuple[Item, str]]:
    """The marks of ``marker`` over ``texts`` said a day apart, the same in any input order.

    Returns ``(marked item, the value the mark says is gone)`` after checking each mark points
    to a later item.
    """
    items = [Item(str(i), t, D1 + dt.timedelta(days=i)) for i, t in enumerate(texts)]
    found = marker(items, valid_at=LATER, query=query)
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert marker(shuffled, valid_at=LATER, query=query) == found
    by_id = {i.id: i for i in items}
    for item_id, (_, when) in found.items():
        assert when > by_id[item_id].when  # a mark points to a later item
    return [(by_id[k], mark.split(" possibly superseded: ")[0]) for k, (mark, _) in found.items()]


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_marks_are_earlier_items_naming_their_value_in_any_input_order(texts, rnd) -> None:
    query = "staging team plan consumers release"
    for item, gone in _marked_in_any_order(restated, texts, rnd, query):
        assert all(v.casefold() in item.text.casefold() for v in gone.split(", "))


def test_sessions_mark_the_earlier_line_in_context(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-02-03T09:00:00Z")
    mem.add_session("marta: fyi staging is still on Postgres 14", started_at="2026-02-03")
    clock.set("2026-02-13T16:00:00Z")
    mem.add_session(
        "tomasz: staging upgrade done, we're on Postgres 16 now", started_at="2026-02-13"
    )
    clock.set("2026-02-14T09:00:00Z")
    text = str(mem.context("Which Postgres version is staging on?"))
    old = next(line for line in text.splitlines() if "Postgres 14" in line)
    assert "possibly superseded: Postgres 16 per 13 Feb 2026" in old


def test_remembered_facts_and_notes_are_marked_too(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-03-12T09:00:00Z")
    mem.add_fact("team plan", "costs", "$20 a seat", statement="The Team plan costs $20 a seat.")
    clock.set("2026-03-20T09:00:00Z")
    mem.remember("Pricing update: the Team plan is now $24 a seat, nothing else changed.")
    clock.set("2026-03-21T09:00:00Z")
    text = str(mem.context("How much does the Team plan cost?"))
    before = str(mem.context("How much does the Team plan cost?", known_at="2026-03-13"))
    old = next(line for line in text.splitlines() if "$20" in line)
    assert "possibly superseded: $24 per 2026-03-20" in old
    assert "possibly superseded" not in before  # known_at: what was known then, unmarked


def test_an_answer_known_at_k_is_the_same_after_a_later_line(
    mem: gm.Memory, clock: ManualClock
) -> None:
    clock.set("2026-02-03T09:00:00Z")
    mem.add_session("kim: the consumers run on 4 workers", started_at="2026-02-03")
    clock.set("2026-02-04T09:00:00Z")
    q = "How many workers do the consumers run on?"
    before = str(mem.context(q, known_at="2026-02-04T09:00:00Z"))
    clock.set("2026-02-10T09:00:00Z")
    mem.add_session("mei: consumers are on 12 workers now", started_at="2026-02-10")
    assert str(mem.context(q, known_at="2026-02-04T09:00:00Z")) == before
    assert "possibly superseded: 12 workers" in str(mem.context(q))


def _renamed(fact: tuple[str, str, str, str], later: str, query: str) -> dict[str, dt.datetime]:
    return renamed([("f", *fact, D1)], [Item("n", later, D2)], valid_at=LATER, query=query)


def test_a_later_text_naming_the_relation_again_without_its_value_marks_the_fact() -> None:
    fact = ("release manager", "Ayo", "")
    later = "announcement: @sven is release manager from v5.13, starting now"
    assert _renamed(fact, later, "Who is the release manager?") == {"f": D2}


@pytest.mark.parametrize(
    ("fact", "later", "query"),
    [
        # names the old value: it may be restating it
        (("release manager", "Ayo", ""), "ayo is release manager now", "release manager"),
        # no word of change
        (("release manager", "Ayo", ""), "sven is release manager", "release manager"),
        # not every word of the relation
        (("release manager", "Ayo", ""), "sven manages releases now", "release manager"),
        # the relation shares no word with the question
        (("release manager", "Ayo", ""), "sven is release manager now", "who is on call?"),
        # a relation of common words only names no slot
        (("uses", "Jira", ""), "we now use linear", "what do we use"),
        # another thing's relation: its name must be there too
        (("dpo", "Rosa", "EU entity"), "Imran is the new DPO for the UK entity", "who is the DPO"),
    ],
)
def test_no_renamed_mark(fact: tuple[str, str, str], later: str, query: str) -> None:
    assert _renamed(fact, later, query) == {}


def test_a_remembered_relation_named_again_is_marked_in_context(
    mem: gm.Memory, clock: ManualClock
) -> None:
    clock.set("2026-03-02T09:00:00Z")
    mem.add_fact("self", "release_manager", "Ayo")
    clock.set("2026-03-05T09:00:00Z")
    mem.remember("Announcement: @sven is release manager from v5.13 on, starting now.")
    clock.set("2026-03-06T09:00:00Z")
    line = next(
        x for x in str(mem.context("Who is the release manager?")).splitlines() if "Ayo" in x
    )
    assert "possibly replaced per 2026-03-05" in line


def test_a_label_shares_its_words_only_with_a_question_holding_them() -> None:
    old = Item("a", "April 14 (App Store + Play)", D1, label="Target launch")
    new = Item("b", "moved to May 5, the audit found issues", D2, label="Target launch")
    ask = "When is the launch now?"
    assert restated([old, new], valid_at=LATER, query=ask) == {
        "a": ("April 14 possibly superseded: May 5", D2)
    }
    # two lines of one speaker share no topic by the speaker's name
    kim = [
        Item("a", "bumped lodash to 4.17.21", D1, label="kim"),
        Item("b", "node 20.11 now", D2, label="kim"),
    ]
    assert restated(kim, valid_at=LATER, query="which node version?") == {}


def _context_after(
    mem: gm.Memory,
    clock: ManualClock,
    sessions: list[tuple[str, str]],
    question: str,
    *,
    via: str = "add_session",
) -> str:
    """Write each ``(day, text)`` at 09:00 that day (a session, or ``via="remember"``); the
    context the day after."""
    for day, text in sessions:
        clock.set(f"{day}T09:00:00Z")
        if via == "remember":
            mem.remember(text, at=day)
        else:
            mem.add_session(text, started_at=day)
    after = dt.date.fromisoformat(sessions[-1][0]) + dt.timedelta(days=1)
    clock.set(f"{after.isoformat()}T09:00:00Z")
    return str(mem.context(question))


def test_a_line_shown_beside_a_hit_is_marked_too(mem: gm.Memory, clock: ManualClock) -> None:
    sessions = [
        (
            "2026-02-27",
            "STATUS: Harbor mobile app v3\nOverall: green\nPM: Ada Quist\n"
            "Target launch: April 14 (both stores)\nBudget: $90k",
        ),
        (
            "2026-03-20",
            "STATUS: Harbor v3\nOverall: amber\n"
            "Target launch: moved to May 5, the audit found issues",
        ),
    ]
    text = _context_after(mem, clock, sessions, "When is the Harbor v3 launch now?")
    old = next(line for line in text.splitlines() if "April 14" in line)
    assert "April 14 possibly superseded: May 5 per 20 Mar 2026" in old


def test_a_field_named_again_by_its_last_word_marks_its_value(
    mem: gm.Memory, clock: ManualClock
) -> None:
    sessions = [
        (
            "2026-05-04",
            "NEW HIRE: Arlo Penn\nStart date: June 1\nOnboarding buddy: Kip Varga\n"
            "Laptop: MacBook Air",
        ),
        (
            "2026-05-18",
            "update 5/18\n- Kip is out from June, buddy is Lena Ostrova instead\n- badge done",
        ),
    ]
    text = _context_after(mem, clock, sessions, "Who is Arlo's onboarding buddy?")
    old = next(line for line in text.splitlines() if "Kip Varga" in line)
    assert "(Onboarding buddy: Kip Varga possibly replaced per 18 May 2026)" in old


@pytest.mark.parametrize(
    ("first", "later"),
    [
        # a person's name before the colon is no field
        ("Maya Kim: Kip Varga", "Maya Kim: buddy is Lena Ostrova instead"),
        # the later line gives the value again
        ("Onboarding buddy: Kip Varga", "buddy is still Kip Varga, nothing new"),
        # no word of change
        ("Onboarding buddy: Kip Varga", "the buddy program is great"),
    ],
)
def test_no_field_mark(mem: gm.Memory, clock: ManualClock, first: str, later: str) -> None:
    sessions = [
        ("2026-05-04", f"NEW HIRE: Arlo Penn\n{first}\nLaptop: MacBook Air"),
        ("2026-05-18", f"update 5/18\n{later}"),
    ]
    text = _context_after(mem, clock, sessions, "Who is Arlo's onboarding buddy?")
    assert "possibly replaced" not in text


# -- a field said again (docs/concepts/recall.md#field-said-again) -----------------------------


def _fields(old: str, new: str, *, query: str, same_time: bool = False) -> dict[str, str]:
    items = [Item("a", old, D1), Item("b", new, D1 if same_time else D2)]
    found = field_said_again(items, valid_at=LATER, query=query)
    return {k: v for k, (v, _) in found.items()}


@pytest.mark.parametrize(
    ("old", "new", "query", "mark"),
    [
        (
            "      image: registry.io/checkout-api:2.14.1",
            "      image: registry.io/checkout-api:2.19.0",
            "Which image does checkout-api run?",
            "image: registry.io/checkout-api:2.14.1 possibly superseded: "
            "registry.io/checkout-api:2.19.0",
        ),
        ("- guests: 18", "- guests: 26", "how many guests?", "guests: 18 possibly superseded: 26"),
        (
            'rust-version = "1.70"',
            '+rust-version = "1.74"',  # a diff's added line
            "oldest rust version?",
            "rust-version: 1.70 possibly superseded: 1.74",
        ),
        (
            "☐ Status: in progress",
            "☑ Status: on hold",
            "what's the project status?",
            "Status: in progress possibly superseded: on hold",
        ),
        (
            "[package]\nname = tern\nrust-version = 1.70",  # a document's field
            "rust-version = 1.74",
            "oldest rust version?",
            "rust-version: 1.70 possibly superseded: 1.74",
        ),
    ],
)
def test_a_field_a_later_time_gives_otherwise_is_marked(
    old: str, new: str, query: str, mark: str
) -> None:
    assert _fields(old, new, query=query) == {"a": mark}


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        ("image: api:2.14.1", "image: api:2.19.0", "which port?"),  # no word of the question
        ("image: api:2.14.1", "image: api:2.14.1", "which image?"),  # said again alike
        ("guests: 18", "guests: 18 (incl kids)", "how many guests?"),  # the value again
        ("kim: fyi invoices are stored in S3 now", "kim: the API runs on Go", "kim"),  # a speaker
        ("Dad: bring his NHS card today", "Dad: fine", "what did dad say?"),  # a sentence
        ("-timeout=30", "timeout=60", "what is the timeout?"),  # a diff's removed line
        ("user: maybe later", "user: hm ok", "what does the user want?"),  # a chat's role
        ("Kim: peanuts. serious one", "Kim: 4 pizzas", "what did Kim order?"),  # a reply
    ],
)
def test_no_field_said_again_mark(old: str, new: str, query: str) -> None:
    assert _fields(old, new, query=query) == {}


def test_a_name_that_labels_a_sentence_is_a_speaker_not_a_field() -> None:
    items = [
        Item("a", "ok", D1, label="Sam"),
        Item("b", "I think we should move the standup to Tuesdays", D1, label="Sam"),
        Item("c", "fine", D2, label="Sam"),
    ]
    assert field_said_again(items, valid_at=LATER, query="what did Sam say?") == {}


def test_fields_said_twice_at_one_time_mark_nothing() -> None:
    # a list of records names its fields once per record; one time is one document
    items = [
        Item("a", "name: api", D1),
        Item("b", "name: worker", D1),
        Item("c", "name: api-v2", D2),
    ]
    assert field_said_again(items, valid_at=LATER, query="which name?") == {}
    assert _fields("image: api:1", "image: api:2", query="image?", same_time=True) == {}
    assert (
        field_said_again(
            [Item("a", "image: api:1", D1), Item("b", "image: api:2", LATER + dt.timedelta(1))],
            valid_at=LATER,
            query="image?",
        )
        == {}
    )  # said after valid_at


_FIELD_LINES = st.sampled_from(
    ["image: api:1.2", "image: api:1.3", "guests: 18", "guests: 26", "- image: api:2.0", "hi"]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_FIELD_LINES, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_field_marks_point_later_in_any_input_order(texts, rnd) -> None:
    for item, gone in _marked_in_any_order(field_said_again, texts, rnd, "image guests"):
        assert gone.split(": ", 1)[1] in item.text  # "image: api:1.2": its value


def test_a_config_said_again_marks_the_earlier_field_in_context(
    mem: gm.Memory, clock: ManualClock
) -> None:
    first = "# postgresql.conf on db-1\nshared_buffers = 4GB\nmax_connections = 200"
    later = "# postgresql.conf on db-1 (after tuning)\nshared_buffers = 8GB\nmax_connections = 500"
    q = "what is max_connections on db-1?"
    clock.set("2026-05-14T09:00:00Z")
    mem.add_session(first, started_at="2026-05-14")
    clock.set("2026-05-15T09:00:00Z")
    before = str(mem.context(q, known_at="2026-05-15T09:00:00Z"))
    clock.set("2026-11-26T09:00:00Z")
    mem.add_session(later, started_at="2026-11-26")
    clock.set("2026-11-27T09:00:00Z")
    text = str(mem.context(q))
    # each setting is a line of its own and read (docs/concepts/text.md#log-formats): the later
    # file's value replaced the earlier one, and every line naming 200 says so
    old = [line for line in text.splitlines() if "200" in line]
    assert old
    assert all(re.search(r"was 200|replaced|superseded", line) for line in old), old
    assert str(mem.context(q, known_at="2026-05-15T09:00:00Z")) == before  # known_at holds
