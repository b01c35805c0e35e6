"""The shared reads as one base class of both backends (docs/concepts/storage.md#one-cypher-core).

A backend inherits :class:`CypherReads`, sets its :attr:`~CypherReads.dialect`, and defines a
method of its own only where its engine measured differently (the Kuzu backend's
``mention_counts``, ``newest_activity`` and ``session_start_times``, for instance).
"""

from __future__ import annotations

from graphmem.store.cypher import facts, lines, search, sessions, transfer
from graphmem.store.cypher.dialect import Dialect

__all__ = ["CypherReads"]


class CypherReads:
    """Every read both engines answer with the same Cypher, bound as methods."""

    dialect: Dialect

    # predicates, entities, fact versions
    load_predicates = facts.load_predicates
    load_aliases = facts.load_aliases
    get_entity = facts.get_entity
    query_facts = facts.query_facts
    changed_between = facts.changed_between
    count_versions = facts.count_versions
    count_predicate_versions = facts.count_predicate_versions
    # sessions, mentions, topic aggregates, the audit trail
    existing_session_ids = sessions.existing_session_ids
    session_scopes = sessions.session_scopes
    read_sessions = sessions.read_sessions
    get_sessions = sessions.get_sessions
    count_sessions = sessions.count_sessions
    count_mentioning_sessions = sessions.count_mentioning_sessions
    mention_groups = sessions.mention_groups
    fact_activity = sessions.fact_activity
    session_fact_ids = sessions.session_fact_ids
    audit_records = sessions.audit_records
    # fact views per entity (context's reads)
    facts_from = search.facts_from
    facts_to = search.facts_to
    # session lines
    has_lines = lines.has_lines
    warm_index = lines.warm_index
    neighbours = lines.neighbours
    session_lines = lines.session_lines
    search_lines = lines.search_lines
    line_counts = lines.line_counts
    # whole-memory reads (export, import checks)
    entity_rows = transfer.entity_rows
    all_entities = transfer.all_entities
    content_counts = transfer.content_counts
    all_meta = transfer.all_meta
    all_facts = transfer.all_facts
    all_sessions = transfer.all_sessions
    all_audit = transfer.all_audit
    # graphmem check
    raw_facts = transfer.raw_facts
    raw_sessions = transfer.raw_sessions
    raw_entities = transfer.raw_entities
    raw_mentions = transfer.raw_mentions
    raw_predicates = transfer.raw_predicates
    fact_states = transfer.fact_states
