"""Pictures of a memory: the bitemporal diagram, fact timelines, topic hotness, snapshot graphs.

Each function returns a ``matplotlib.figure.Figure`` (displayed inline by Jupyter; save it with
``fig.savefig("x.png")``). Figures are built without ``pyplot``, so nothing touches global state
or needs a display. matplotlib is imported on first use: ``pip install 'graphmem[notebooks]'``.

- :func:`bitemporal`: the classic bitemporal diagram (as XTDB and SQL:2011 texts draw it):
  valid time across, system time up; every stored version is a rectangle
  ``[valid_from, valid_to) × [recorded_at, expired_at)`` labelled with its object. Current
  versions are solid and end at the now line with an arrow, closed ones light and hatched,
  every version keeps a readable size, a backfilled import's writes are drawn in order of
  recording, and a ``known_at`` / ``valid_at`` line outlines the versions that query returns.
- :func:`timeline`: a subject's fact versions as bars over valid time; what was believed is
  coloured, versions closed in system time (superseded, corrected, retracted) are grey and
  hatched, open-ended bars fade out at the right edge, and the points where a belief was
  revised are marked with the day it was learned.
- :func:`hotness`: topic scores as bars over the COLD / WARM / HOT bands.
- :func:`graph`: a small snapshot graph (from ``to_networkx`` or ``neighborhood``) with entity
  names on the nodes, predicates on the edges and a legend of the node kinds.

Labels never overlap and never leave their axes: they are placed when the figure is drawn (so
at its final size), inside their rectangle when they fit, else next to it; ``label:<fact id>``
is each label's ``gid`` and ``version:<fact id>`` each rectangle's, for tests and tooling.
"""

from __future__ import annotations

from graphmem.plot.bitemporal import bitemporal
from graphmem.plot.graph import KIND_MEANINGS as KIND_MEANINGS
from graphmem.plot.graph import MAX_GRAPH_NODES as MAX_GRAPH_NODES
from graphmem.plot.graph import graph
from graphmem.plot.hotness import hotness
from graphmem.plot.timeline import timeline

__all__ = ["bitemporal", "graph", "hotness", "timeline"]
