"""The embedded backend: Kuzu 0.11.3 (default) or its fork ladybug, in a file or in memory.

:class:`~graphmem.store.kuzu.backend.KuzuBackend` implements the store protocol
(:mod:`graphmem.store.base`): the schema and the reads of fact versions are
:mod:`~graphmem.store.kuzu.engine`, which holds two parts: the executor of ``connection`` (the
engine's handles and checkpoints) and the writer of ``transactions`` (all or nothing, with the
deferred COPY) over ``statements`` (the logged writes), with ``codec`` converting rows; each
other topic is a mixin of its own module (``sessions``, ``lines``, ``search``, ``audit``,
``transfer``, ``integrity``); ``guard`` checks a file before the engine opens it,
``checkpoint`` copies it before each checkpoint (and puts the copy back after a killed one),
``vacuum`` rebuilds it after a purge, ``schema`` is the DDL.
"""

from graphmem.store.kuzu.backend import KuzuBackend
from graphmem.store.kuzu.engine import ENGINES, KuzuStore

__all__ = ["ENGINES", "KuzuBackend", "KuzuStore"]
