"""Topic files (docs/concepts/topic-files.md): health, triage and audit of a memory directory.

The scoring rules are tested on the pure module (tables and hypothesis properties); the
service on generated memory directories with dated sessions and file times set with os.utime.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.errors import InvalidInput, NotFound
from graphmem.hotness import Band
from graphmem.normalize import STOPWORDS
from graphmem.timeutil import ManualClock, to_utc
from graphmem.topic_file_scores import (
    MAX_FILE_BYTES,
    FileCounts,
    FileTriageRow,
    file_keywords,
    routed_files,
    routing_links,
    score_health,
    triage_file,
    triage_files,
)
from graphmem.triage import Recommendation
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
NOW = to_utc("2026-07-01T12:00:00Z")
DAY = dt.timedelta(days=1)


def _touch(path: Path, at: dt.datetime) -> None:
    os.utime(path, (at.timestamp(), at.timestamp()))


def _snapshot(root: Path) -> dict[str, tuple[bytes | str, int]]:
    """Every entry under ``root`` (links not followed): its bytes (or link target) and mtime."""
    out: dict[str, tuple[bytes | str, int]] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            p = Path(folder, name)
            info = p.lstat()
            if p.is_symlink():
                out[str(p)] = (os.readlink(p), info.st_mtime_ns)
            elif p.is_file():
                out[str(p)] = (p.read_bytes(), info.st_mtime_ns)
            else:
                out[str(p)] = ("", info.st_mtime_ns)
    return out


def _write_memory_dir(root: Path) -> None:
    (root / "MEMORY.md").write_text(
        "# Memory index\n"
        "- [Kuzu planner](kuzu-planner.md): tuning notes\n"
        "- [Legacy billing](legacy-billing.md)\n"
        "- [API](api.md)\n"
        "- [Old deploys](deploys-2024.md)\n"
        "\n"
        "The API runs on Laravel.\n",
        encoding="utf-8",
    )
    (root / "kuzu-planner.md").write_text(
        "# Kuzu planner\n\nAlways pin the planner version.\n", encoding="utf-8"
    )
    (root / "legacy-billing.md").write_text(
        "".join(f"Billing note number {i}.\n" for i in range(350)), encoding="utf-8"
    )
    (root / "api.md").write_text(
        "# API\n"
        "\n"
        "The API runs on Laravel.\n"
        "Alice works at Acme.\n"
        "Bob likes jazz.\n"
        "\n"
        "```\n"
        "The API runs on Laravel.\n"
        "```\n",
        encoding="utf-8",
    )
    _touch(root / "MEMORY.md", NOW - 3 * DAY)
    _touch(root / "kuzu-planner.md", NOW - 1 * DAY)
    _touch(root / "legacy-billing.md", NOW - 61 * DAY)
    _touch(root / "api.md", NOW - 90 * DAY)


def _record_sessions(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-03-01T12:00:00Z")
    mem.add_session(
        "The API runs on Laravel. Alice works at Acme.",
        started_at="2026-03-01",
        session_id="s-laravel",
    )
    clock.set("2026-04-30T12:00:00Z")
    mem.add_session(
        "Reviewed the legacy billing export.", started_at="2026-04-30", session_id="s-billing"
    )
    clock.set("2026-06-10T12:00:00Z")
    mem.add_session(
        "We migrated the API from Laravel to Go.", started_at="2026-06-10", session_id="s-go"
    )
    mem.add_session("Alice left Acme.", started_at="2026-06-12", session_id="s-alice")
    clock.set(NOW)
    gm.sessions.add_sessions(
        mem,
        [
            {
                "session_id": f"s-kuzu-{i}",
                "text": f"Tuned the Kuzu planner again, run {i}.",
                "started_at": NOW - i * DAY - dt.timedelta(hours=1),
            }
            for i in range(12)
        ],
    )


@pytest.fixture
def memdir(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    _write_memory_dir(root)
    return root


@pytest.fixture
def recorded() -> Iterator[gm.Memory]:
    clock = ManualClock("2026-03-01T00:00:00Z")
    with backends.memory(clock=clock) as mem:
        _record_sessions(mem, clock)
        yield mem


# -- the done-when scenario ----------------------------------------------------------------------


def test_health_hot_and_cold_triage_archive_and_audit_the_laravel_line(
    recorded: gm.Memory, memdir: Path
) -> None:
    before = _snapshot(memdir)
    health = {h.file: h for h in recorded.topic_health(memdir, now=NOW)}
    assert set(health) == {"kuzu-planner.md", "legacy-billing.md", "api.md"}
    hot, cold = health["kuzu-planner.md"], health["legacy-billing.md"]
    assert (hot.hits, hot.band, hot.keywords) == (12, Band.HOT, ("kuzu", "planner"))
    assert hot.hotness == pytest.approx(1.0, abs=1e-3)
    assert hot.weighted_hits > 0
    assert (cold.hits, cold.band) == (0, Band.COLD)
    assert cold.last_mention == to_utc("2026-04-30")

    triage = {t.file: t for t in recorded.topic_triage(memdir, now=NOW, limit=None)}
    billing = triage["legacy-billing.md"]
    assert billing.recommendation is Recommendation.ARCHIVE
    assert (billing.lines, billing.staleness, billing.recurrence) == (350, 1.0, 0.0)
    assert billing.routed
    assert triage["kuzu-planner.md"].recommendation is Recommendation.KEEP
    assert triage["kuzu-planner.md"].actionability == 1.0
    assert triage["kuzu-planner.md"].recurrence == 1.0

    audit = recorded.topic_audit(memdir, now=NOW)
    api = [r for r in audit if r.file == "api.md" and r.kind == "superseded"]
    assert len(api) == 1, audit  # the line inside the code fence is not read
    row = api[0]
    assert (row.line, row.text) == (3, "The API runs on Laravel.")
    assert (row.stale_value, row.current_value, row.ended) == ("Laravel", "Go", False)
    assert (row.session, row.since) == ("s-go", to_utc("2026-06-10"))
    assert row["current_value"] == "Go"
    assert _snapshot(memdir) == before


def test_triage_is_worst_first_and_limited(recorded: gm.Memory, memdir: Path) -> None:
    rows = recorded.topic_triage(memdir, now=NOW)
    assert rows[0].file == "legacy-billing.md"
    assert [t.needs_attention for t in rows] == sorted(
        (t.needs_attention for t in rows), reverse=True
    )
    assert len(recorded.topic_triage(memdir, now=NOW, limit=1)) == 1
    with pytest.raises(InvalidInput, match="limit=-1"):
        recorded.topic_triage(memdir, now=NOW, limit=-1)


def test_audit_lists_ended_values_and_routing_entries(recorded: gm.Memory, memdir: Path) -> None:
    audit = recorded.topic_audit(memdir, now=NOW)
    by = {(r.file, r.line): r for r in audit}
    alice = by[("api.md", 4)]
    assert (alice.kind, alice.stale_value, alice.ended, alice.current_value) == (
        "ended",
        "Acme",
        True,
        None,
    )
    assert (alice.session, alice.since) == ("s-alice", to_utc("2026-06-12"))
    assert ("api.md", 5) not in by  # memory knows nothing about Bob: not listed
    assert by[("MEMORY.md", 7)].current_value == "Go"  # the routing index is read too
    assert by[("MEMORY.md", 3)].kind == "archive"
    assert by[("MEMORY.md", 3)].target == "legacy-billing.md"
    assert by[("MEMORY.md", 5)].kind == "missing"
    assert by[("MEMORY.md", 5)].target == "deploys-2024.md"
    assert ("MEMORY.md", 2) not in by  # routed, not archived
    assert [(r.file, r.line) for r in audit] == sorted(
        ((r.file, r.line) for r in audit), key=lambda fl: (fl[0] != "MEMORY.md", fl)
    )


def test_audit_does_not_list_agreeing_negative_or_past_lines(
    recorded: gm.Memory, tmp_path: Path
) -> None:
    (tmp_path / "api.md").write_text(
        "The API runs on Go.\n"
        "We migrated the API from Laravel to Go.\n"
        "The API no longer runs on Laravel.\n"
        "Carol works at Initech.\n",
        encoding="utf-8",
    )
    assert list(recorded.topic_audit(tmp_path, now=NOW)) == []
    # Before the change, the Laravel line agreed with memory.
    (tmp_path / "api.md").write_text("The API runs on Laravel.\n", encoding="utf-8")
    assert list(recorded.topic_audit(tmp_path, now=to_utc("2026-05-01"))) == []
    assert len(recorded.topic_audit(tmp_path, now=NOW)) == 1


def test_audit_resolves_aliases(tmp_path: Path) -> None:
    clock = ManualClock("2026-03-01T12:00:00Z")
    with backends.memory(clock=clock) as mem:
        mem.define_entity("API", aliases=["backend"])
        mem.add_session("The API runs on Laravel.", started_at="2026-03-01", session_id="a")
        clock.set("2026-06-10T12:00:00Z")
        mem.add_session("We migrated the API to Go.", started_at="2026-06-10", session_id="b")
        (tmp_path / "backend.md").write_text("The backend runs on Laravel.\n", encoding="utf-8")
        rows = mem.topic_audit(tmp_path)
    assert [(r.line, r.stale_value, r.current_value, r.session) for r in rows] == [
        (1, "Laravel", "Go", "b")
    ]


# -- hits ----------------------------------------------------------------------------------------


def test_hits_need_every_keyword_and_count_sessions_in_the_window(tmp_path: Path) -> None:
    clock = ManualClock(NOW)
    (tmp_path / "query-planner.md").write_text("notes\n", encoding="utf-8")
    (tmp_path / "planner.md").write_text("notes\n", encoding="utf-8")
    (tmp_path / "the-and.md").write_text("notes\n", encoding="utf-8")
    for name in ("query-planner.md", "planner.md", "the-and.md"):
        _touch(tmp_path / name, NOW - 100 * DAY)
    with backends.memory(clock=clock) as mem:
        gm.sessions.add_sessions(
            mem,
            [
                # both words, in two lines of one session: a mention of query-planner
                {"session_id": "a", "text": "The query was slow.\nThe planner!", "started_at": NOW},
                {"session_id": "b", "text": "The planner again.", "started_at": NOW - DAY},
                {"session_id": "c", "text": "Query planners.", "started_at": NOW - 40 * DAY},
                {"session_id": "d", "text": "query planner", "started_at": NOW + DAY},
            ],
            extract=False,
        )
        rows = {h.file: h for h in mem.topic_health(tmp_path, now=NOW)}
    qp, p, none = rows["query-planner.md"], rows["planner.md"], rows["the-and.md"]
    assert (qp.hits, qp.df, qp.last_mention) == (1, 2, NOW)  # c is outside; d after now
    assert (p.hits, p.df) == (2, 3)
    assert (none.keywords, none.hits, none.band) == ((), 0, Band.COLD)
    # idf = ln((1 + N) / (1 + df)) with N = the 3 sessions started by now
    assert qp.weighted_hits == pytest.approx(1 * 0.2876820724517809)
    assert p.weighted_hits == pytest.approx(0.0)


def test_a_file_modified_recently_is_not_cold(tmp_path: Path) -> None:
    (tmp_path / "fresh.md").write_text("notes\n", encoding="utf-8")
    _touch(tmp_path / "fresh.md", NOW - DAY)
    with backends.memory(clock=ManualClock(NOW)) as mem:
        (row,) = mem.topic_health(tmp_path)
    assert (row.hits, row.band) == (0, Band.WARM)  # recency alone: 0.4 * (1 - 1/60)
    assert row.hotness == pytest.approx(0.4 * (1 - 1 / 60))


# -- what is read --------------------------------------------------------------------------------


def test_hidden_links_out_bad_bytes_and_big_files_are_reported_not_read(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("The API runs on Laravel.\n", encoding="utf-8")
    (root / "ok.md").write_text("fine\n", encoding="utf-8")
    (root / ".hidden.md").write_text("x\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "notes.md").write_text("x\n", encoding="utf-8")
    (root / "latin1.md").write_bytes("caf\xe9\n".encode("latin-1"))
    (root / "big.md").write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    (root / "leak.md").symlink_to(outside / "secret.md")
    (root / "linked-dir").symlink_to(outside, target_is_directory=True)
    (root / "alias.md").symlink_to(root / "ok.md")
    (root / "notes.txt").write_text("not a topic\n", encoding="utf-8")
    os.mkfifo(root / "pipe.md")
    sub = root / "infra"
    sub.mkdir()
    (sub / "db-setup.md").write_text("x\n", encoding="utf-8")
    before = _snapshot(tmp_path)
    with backends.memory(clock=ManualClock(NOW)) as mem:
        health = mem.topic_health(root)
        audit = mem.topic_audit(root)
    assert sorted(h.file for h in health) == ["alias.md", "infra/db-setup.md", "ok.md"]
    reasons = {s.path: s.reason for s in health.skipped}
    assert set(reasons) == {
        ".hidden.md",
        ".git/",
        "latin1.md",
        "big.md",
        "leak.md",
        "linked-dir/",
        "pipe.md",
    }
    assert reasons["leak.md"] == "symlink leaving the directory"
    assert reasons["latin1.md"].startswith("not UTF-8")
    assert reasons["big.md"].startswith("larger than 1 MB")
    assert reasons["pipe.md"] == "not a regular file"
    assert list(audit) == []
    assert audit.skipped == health.skipped
    assert _snapshot(tmp_path) == before


def test_bad_directories_and_options_raise_graphmem_errors(tmp_path: Path) -> None:
    (tmp_path / "file.md").write_text("x\n", encoding="utf-8")
    with backends.memory(clock=ManualClock(NOW)) as mem:
        with pytest.raises(NotFound, match="does not exist"):
            mem.topic_health(tmp_path / "missing")
        with pytest.raises(InvalidInput, match="is not a directory"):
            mem.topic_triage(tmp_path / "file.md")
        with pytest.raises(InvalidInput, match="window_days=0"):
            mem.topic_health(tmp_path, window_days=0)
        with pytest.raises(InvalidInput, match="now="):
            mem.topic_audit(tmp_path, now="not a date")


# -- the pure rules ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("kuzu-planner.md", ("kuzu", "planner")),
        ("infra/API_Migration.v2.md", ("api", "migration", "v2")),
        ("2026-06-notes.md", ()),
        ("debugging-notes.md", ("debugging",)),
        ("the-and-of.md", ()),
        ("a-b-c.md", ()),
        ("deploy--deploy.MD", ("deploy",)),
    ],
)
def test_file_keywords(name: str, expected: tuple[str, ...]) -> None:
    assert file_keywords(name) == expected


@given(st.text(max_size=40))
def test_keywords_have_no_separators_stop_words_or_numbers(name: str) -> None:
    for word in file_keywords(name + ".md"):
        assert len(word) > 1
        assert not set(word) & set("-_./\\ \t\n")
        assert word not in STOPWORDS
        assert not word.isdigit()


def test_routing_links() -> None:
    text = (
        "- [API](api.md#stack 'title') and `infra/db.md`\n"
        "[ref]: <notes/old%20stuff.md>\n"
        "- [[deploy]] and [[kuzu.md|Kuzu]]\n"
        "- https://example.com/x.md and [web](https://example.com/y.md) and [top](#top)\n"
        "- see ./api.md again\n"
    )
    assert [(n, t) for n, _, t in routing_links(text)] == [
        (1, "api.md"),
        (1, "infra/db.md"),
        (2, "notes/old stuff.md"),
        (3, "deploy.md"),
        (3, "kuzu.md"),
        (5, "./api.md"),
    ]
    assert routed_files(text, ["api.md", "infra/db.md", "other.md"]) == {"api.md", "infra/db.md"}


HITS = st.integers(min_value=0, max_value=50)
AGE = st.floats(min_value=0, max_value=400, allow_nan=False)


@given(max_hits=HITS, a=HITS, b=HITS, age=AGE, df_extra=st.integers(0, 5))
def test_band_is_monotone_in_hits(max_hits: int, a: int, b: int, age: float, df_extra: int) -> None:
    lo, hi = sorted((min(a, max_hits), min(b, max_hits)))
    seen = NOW - dt.timedelta(days=age)
    order = {Band.COLD: 0, Band.WARM: 1, Band.HOT: 2}

    def band(hits: int) -> Band:
        rows = [
            FileCounts("top.md", ("top",), max_hits, max_hits + df_extra, seen, seen),
            FileCounts("x.md", ("x",), hits, hits + df_extra, seen, seen),
        ]
        n = max_hits + hits + 2 * df_extra
        return {h.file: h for h in score_health(rows, now=NOW, n_sessions=n)}["x.md"].band

    assert order[band(lo)] <= order[band(hi)]


@given(
    rows=st.lists(
        st.tuples(HITS, st.integers(0, 5), st.none() | AGE, AGE, st.floats(-5, 5)), max_size=6
    )
)
def test_health_scores_are_in_the_unit_interval(
    rows: list[tuple[int, int, float | None, float, float]],
) -> None:
    counts = [
        FileCounts(
            f"f{i}.md",
            ("f",),
            hits,
            hits + extra,
            None if mention is None else NOW - dt.timedelta(days=mention),
            NOW - dt.timedelta(days=modified),
        )
        for i, (hits, extra, mention, modified, _) in enumerate(rows)
    ]
    n = sum(c.df for c in counts)
    scored = score_health(counts, now=NOW, n_sessions=n)
    assert len(scored) == len(rows)
    for h in scored:
        for value in (h.hotness, h.idf_hotness, h.engagement, h.recency):
            assert 0.0 <= value <= 1.0
    assert [h.hotness for h in scored] == sorted((h.hotness for h in scored), reverse=True)


@given(
    days=st.none() | AGE,
    sessions=st.integers(0, 20),
    head=st.text(max_size=60),
    age=st.floats(-10, 1000, allow_nan=False),
    lines=st.integers(0, 2000),
)
def test_triage_scores_are_in_the_unit_interval(
    days: float | None, sessions: int, head: str, age: float, lines: int
) -> None:
    t = triage_file(FileTriageRow("f.md", days, sessions, head, age, lines, False))
    for value in (t.recency, t.recurrence, t.actionability, t.staleness, t.composite):
        assert 0.0 <= value <= 1.0
    if t.recommendation is Recommendation.PRUNE:
        assert lines > 300
        assert t.recurrence < 0.4
    if t.recommendation is Recommendation.ARCHIVE:
        assert t.staleness > 0.8
        assert t.recurrence < 0.2


def test_triage_file_rules_in_synthesis_order() -> None:
    def rec(days: float | None, sessions: int, age: float, lines: int) -> str:
        return str(
            triage_file(FileTriageRow("f.md", days, sessions, "", age, lines, True)).recommendation
        )

    assert rec(61, 0, 61, 350) == "ARCHIVE"  # archive wins over prune
    assert rec(2, 1, 5, 301) == "PRUNE"
    assert rec(2, 1, 5, 300) == "KEEP"
    assert rec(40, 3, 5, 10) == "UPDATE"
    with pytest.raises(InvalidInput, match="lines=-1"):
        triage_file(FileTriageRow("f.md", 1, 1, "", 1, -1, True))
    with pytest.raises(InvalidInput, match="limit="):
        triage_files([], limit=-2)


# -- advisory only: nothing in the directory changes ---------------------------------------------


@pytest.fixture(scope="module")
def shared() -> Iterator[gm.Memory]:
    clock = ManualClock("2026-03-01T00:00:00Z")
    with backends.memory(clock=clock) as mem:
        _record_sessions(mem, clock)
        yield mem


NAMES = st.sampled_from(
    ["MEMORY.md", "api.md", "kuzu-planner.md", "sub/notes.md", ".hidden.md", "x.txt", "b.MD"]
)
CONTENT = st.one_of(
    st.text(max_size=200),
    st.sampled_from(["The API runs on Laravel.\n", "- [a](api.md)\n- [[gone]]\n"]),
    st.binary(max_size=50),
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.dictionaries(NAMES, CONTENT, max_size=5), age=st.integers(0, 400))
def test_nothing_in_the_directory_is_modified(
    shared: gm.Memory, files: dict[str, str | bytes], age: int
) -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for name, content in files.items():
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content, encoding="utf-8")
            _touch(p, NOW - age * DAY)
        before = _snapshot(root)
        shared.topic_health(root, now=NOW)
        shared.topic_triage(root, now=NOW, limit=None)
        shared.topic_audit(root, now=NOW)
        assert _snapshot(root) == before


# -- the same answers on a FalkorDB server -------------------------------------------------------


def test_the_same_answers_on_falkordb(falkordb_url: str, memdir: Path) -> None:
    def answers(target: str | None) -> tuple[list[object], ...]:
        clock = ManualClock("2026-03-01T00:00:00Z")
        with gm.open(target, clock=clock) if target else backends.memory(clock=clock) as mem:
            _record_sessions(mem, clock)
            return (
                list(mem.topic_health(memdir, now=NOW)),
                list(mem.topic_triage(memdir, now=NOW, limit=None)),
                list(mem.topic_audit(memdir, now=NOW)),
            )

    embedded, server = answers(None), answers(falkordb_url)
    assert server == embedded
    assert any(r.kind == "superseded" and r.current_value == "Go" for r in server[2])


def test_the_routing_index_is_not_a_topic_in_any_case(tmp_path: Path) -> None:
    (tmp_path / "memory.md").write_text("- [Kuzu](kuzu.md)\n", encoding="utf-8")
    (tmp_path / "kuzu.md").write_text("x\n", encoding="utf-8")
    (tmp_path / "other.md").write_text("x\n", encoding="utf-8")
    with backends.memory(clock=ManualClock(NOW)) as mem:
        rows = {t.file: t.routed for t in mem.topic_triage(tmp_path, limit=None)}
    assert rows == {"kuzu.md": True, "other.md": False}


def test_a_change_no_fact_recorded_is_read_from_the_session_lines(tmp_path: Path) -> None:
    # Said before memory knew what the API ran on: no fact to supersede, only the session line.
    (tmp_path / "api.md").write_text("# API\n\n- The API runs on Laravel.\n", encoding="utf-8")
    (tmp_path / "db.md").write_text("The API uses Postgres.\n", encoding="utf-8")
    clock = ManualClock("2026-06-10T12:00:00Z")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "We migrated the API from Laravel to Go.", started_at="2026-06-10", session_id="s-go"
        )
        # nothing held Laravel: only the migration's own reading (resolution rule 3) is a fact
        assert [(f.predicate, f.object) for f in mem.facts()] == [("written_in", "Go")]
        (row,) = mem.topic_audit(tmp_path)
        assert (row.file, row.line, row.text) == ("api.md", 3, "- The API runs on Laravel.")
        assert (row.kind, row.stale_value, row.current_value) == ("superseded", "Laravel", "Go")
        assert (row.session, row.since) == ("s-go", to_utc("2026-06-10"))
        assert list(mem.topic_audit(tmp_path, now="2026-06-01")) == []  # not said yet
        # A newer session that says it runs on Laravel again decides.
        clock.set("2026-06-20T12:00:00Z")
        mem.add_session(
            "Rollback: the API runs on Laravel.", started_at="2026-06-20", session_id="s-back"
        )
        assert [r.kind for r in mem.topic_audit(tmp_path)] == []


@given(st.text(alphabet=st.sampled_from("[]()#:/.-_ `mdhtps\nab"), max_size=80))
def test_routing_links_are_local_paths(text: str) -> None:
    for n, line, target in routing_links(text):
        assert 1 <= n <= text.count("\n") + 1
        assert line == text.split("\n")[n - 1].strip()
        assert target
        assert not target.startswith("#")
        assert "://" not in target
        assert "#" not in target


def test_sessions_that_mention_an_entity_named_like_the_topic_count(tmp_path: Path) -> None:
    (tmp_path / "kuzu-planner.md").write_text("x\n", encoding="utf-8")
    (tmp_path / "billing.md").write_text("x\n", encoding="utf-8")
    _touch(tmp_path / "kuzu-planner.md", NOW - 90 * DAY)
    _touch(tmp_path / "billing.md", NOW - 90 * DAY)
    with backends.memory(clock=ManualClock(NOW)) as mem:
        for i in range(12):  # mentions only, no text: no session line to search
            mem.add_session(started_at=NOW - i * DAY, mentions=["Kuzu planner", "Kuzu"])
        mem.add_session(started_at=NOW - 70 * DAY, mentions=["Billing"])
        mem.add_session("The kuzu planner again.", started_at=NOW - DAY, session_id="t")
        rows = {h.file: h for h in mem.topic_health(tmp_path)}
    assert (rows["kuzu-planner.md"].hits, rows["kuzu-planner.md"].band) == (13, Band.HOT)
    assert (rows["billing.md"].hits, rows["billing.md"].df) == (0, 1)
    assert rows["billing.md"].band is Band.COLD
