"""The reads the ``Memory`` facade delegates: disputes, audit, topics, recall and graphs.

:class:`MemoryReads` is a base of :class:`graphmem.memory.Memory`: each method hands the call
to the service that owns the topic (:mod:`graphmem.trust`, :mod:`graphmem.explain`,
:mod:`graphmem.audit`, :mod:`graphmem.sessions`, :mod:`graphmem.topics`,
:mod:`graphmem.topic_files`, :mod:`graphmem.topic_audit`, :mod:`graphmem.context`,
:mod:`graphmem.graphs`). The plain reads of fact versions (``facts``, ``believed``,
``history``, ``get_fact``) are the facade's own (:mod:`graphmem.memory`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphmem.display import FactList, ResultList
from graphmem.kernel import Kernel
from graphmem.models import Fact
from graphmem.timeutil import TimeLike

if TYPE_CHECKING:
    from graphmem.audit import Change, Explanation
    from graphmem.explain import Readings

__all__ = ["MemoryReads"]


class MemoryReads:
    """The delegated read methods of :class:`graphmem.memory.Memory`."""

    _kernel: Kernel

    def disputes(
        self, *, subject: str | None = None, include_settled: bool = False, scope: str | None = None
    ) -> list[Fact]:
        """Return the disputed versions, oldest first (never current).

        Writes that contradicted a current version of higher authority or confidence and were
        stored beside it.

        See docs/concepts/decisions.md#authority-and-disputes and
        :func:`graphmem.trust.disputes`.
        """
        from graphmem.trust import disputes

        return FactList(disputes(self._kernel, subject=subject, include_settled=include_settled))

    def explain(
        self, subject: str, predicate: str, *, at: TimeLike, scope: str | None = None
    ) -> Readings:
        """Return the three readings of a slot at ``at``: ``.now``, ``.then``, ``.believed``.

        See :func:`graphmem.explain.explain`.
        """
        from graphmem.explain import explain

        return explain(self._kernel, subject, predicate, at=at)

    def why(self, fact_id: str, *, scope: str | None = None) -> Explanation:
        """Explain a version: its supersession chain and the sessions that asserted it.

        Raises:
            NotFound: no version has that id.

        See :func:`graphmem.audit.why`.
        """
        from graphmem.audit import why

        return why(self._kernel, fact_id)

    def changes(
        self, *, since: TimeLike, until: TimeLike | None = None, scope: str | None = None
    ) -> list[Change]:
        """List what was learned, superseded, corrected, retracted, merged or purged in a window.

        Raises:
            InvalidInput: bad times.

        See :func:`graphmem.audit.changes`.
        """
        from graphmem.audit import changes

        return ResultList(changes(self._kernel, since=since, until=until))

    def sessions(
        self,
        *,
        since: TimeLike | None = None,
        until: TimeLike | None = None,
        scope: str | None = None,
    ) -> Any:
        """Return recorded sessions, oldest first. See :func:`graphmem.sessions.sessions`."""
        from graphmem.sessions import sessions

        return sessions(self._kernel, since=since, until=until)

    def hot_topics(
        self,
        *,
        now: TimeLike | None = None,
        window_days: float = 30,
        limit: int | None = None,
        weighting: str = "plain",
        scope: str | None = None,
    ) -> Any:
        """Rank topics by hotness as of ``now``. See :func:`graphmem.topics.hot_topics`."""
        from graphmem.topics import hot_topics

        found = hot_topics(
            self._kernel, now=now, window_days=window_days, limit=limit, weighting=weighting
        )
        return ResultList(found)

    def triage(
        self,
        *,
        now: TimeLike | None = None,
        limit: int | None = 5,
        window_days: float = 30,
        scope: str | None = None,
    ) -> Any:
        """Return the topics most in need of attention. See :func:`graphmem.topics.triage`."""
        from graphmem.topics import triage

        return ResultList(triage(self._kernel, now=now, limit=limit, window_days=window_days))

    def topic_health(
        self,
        path: str | os.PathLike[str],
        *,
        now: TimeLike | None = None,
        window_days: float = 30,
        scope: str | None = None,
    ) -> Any:
        """Score the topic files of a directory. See :func:`graphmem.topic_files.topic_health`."""
        from graphmem.topic_files import topic_health

        return topic_health(self._kernel, path, now=now, window_days=window_days)

    def topic_triage(
        self,
        path: str | os.PathLike[str],
        *,
        now: TimeLike | None = None,
        window_days: float = 30,
        limit: int | None = 5,
        scope: str | None = None,
    ) -> Any:
        """Triage the topic files of a directory. See :func:`graphmem.topic_files.topic_triage`."""
        from graphmem.topic_files import topic_triage

        return topic_triage(self._kernel, path, now=now, window_days=window_days, limit=limit)

    def topic_audit(
        self, path: str | os.PathLike[str], *, now: TimeLike | None = None, scope: str | None = None
    ) -> Any:
        """List the stale lines of a directory. See :func:`graphmem.topic_audit.topic_audit`."""
        from graphmem.topic_audit import topic_audit

        return topic_audit(self._kernel, path, now=now)

    def context(
        self,
        query: str,
        *,
        budget_tokens: int = 800,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> Any:
        """Return the facts and session lines relevant to a query, as a block for a prompt.

        A :class:`graphmem.Context`: a ``str`` (the text) with ``.text`` and ``.items`` (the
        facts and lines shown, with ids and scores). See :func:`graphmem.context.context`.
        """
        from graphmem.context import context

        return context(
            self._kernel, query, budget_tokens=budget_tokens, valid_at=valid_at, known_at=known_at
        )

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        kinds: Sequence[str] = ("fact", "line"),
        scope: str | None = None,
    ) -> Any:
        """Return scored facts and session lines for a query (kind, id, text, score, date, session).

        See :func:`graphmem.context.search`.
        """
        from graphmem.context import search

        return ResultList(
            search(
                self._kernel, query, limit=limit, valid_at=valid_at, known_at=known_at, kinds=kinds
            )
        )

    def neighborhood(
        self,
        entity: str,
        *,
        hops: int = 1,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> Any:
        """Return the snapshot subgraph around an entity as a ``networkx.MultiDiGraph``.

        See :func:`graphmem.graphs.neighborhood`.
        """
        from graphmem.graphs import neighborhood

        return neighborhood(self._kernel, entity, hops=hops, valid_at=valid_at, known_at=known_at)

    def to_networkx(
        self,
        *,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        subject: str | None = None,
        hops: int | None = None,
        scope: str | None = None,
    ) -> Any:
        """Return a snapshot as a ``networkx.MultiDiGraph`` whose edges are fact versions.

        See :func:`graphmem.graphs.to_networkx`.
        """
        from graphmem.graphs import to_networkx

        return to_networkx(
            self._kernel, valid_at=valid_at, known_at=known_at, subject=subject, hops=hops
        )
