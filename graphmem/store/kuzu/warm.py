"""The embedded store's source for warming the version cache (docs/concepts/storage.md#warming).

Reads on a connection of its own, so each chunk is a read transaction of its own beside the
store's writes (Kuzu and ladybug run one writer and readers at once; a checkpoint waits for a
reader to finish its query).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from graphmem.models import Fact
from graphmem.store.kuzu.codec import _RETURN, _fact_from_row

__all__ = ["KuzuWarmSource"]

# A range of the entity table's offsets: as fast as one scan of the whole store (0.45-0.65 s
# for 100k versions in chunks of 500-5,000 entities), where an ``UNWIND`` of the ids took 4 s.
_VERSIONS = (
    "MATCH (a:Entity)-[r:Fact]->() WHERE offset(id(a)) >= $lo AND offset(id(a)) < $hi "
    f"RETURN a.id, {_RETURN}"
)


class KuzuWarmSource:
    """Whole-store reads for the warm, on ``conn`` (closed by :meth:`close`)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        # One of the engine's threads: the process's own queries keep the others.
        conn.set_max_threads_for_exec(1)
        self._offsets: dict[str, int] = {}

    def plan(self) -> tuple[dict[str, str], int]:
        """``({entity id: name}, number of versions)``, the ids in the table's order."""
        rows = self._conn.execute(
            "MATCH (e:Entity) RETURN e.id, e.name, offset(id(e)) AS o ORDER BY o"
        ).get_all()
        self._offsets = {r[0]: r[2] for r in rows}
        count = self._conn.execute("MATCH ()-[r:Fact]->() RETURN count(r)").get_next()[0]
        return {r[0]: r[1] for r in rows}, int(count)

    def versions(self, ids: Sequence[str]) -> dict[str, list[Fact]]:
        """Every version of each subject id of :meth:`plan` (``[]`` for one without any).

        One read of the offsets from the first id's to the last one's; the rows of other
        subjects in that range are skipped.
        """
        out: dict[str, list[Fact]] = {i: [] for i in ids}
        offsets = [self._offsets[i] for i in out]
        if not offsets:
            return out
        params = {"lo": min(offsets), "hi": max(offsets) + 1}
        for row in self._conn.execute(_VERSIONS, params):
            entry = out.get(row[0])
            if entry is not None:
                entry.append(_fact_from_row(row[1:]))
        return out

    def interrupt(self) -> None:
        """Stop the running query (it raises in the warm's thread); none running: nothing."""
        with contextlib.suppress(RuntimeError):  # the warm closed it meanwhile
            self._conn.interrupt()

    def close(self) -> None:
        """Close the connection (a failure to close leaves nothing to undo)."""
        with contextlib.suppress(RuntimeError):
            self._conn.close()
