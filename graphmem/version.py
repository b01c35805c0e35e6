"""graphmem's version for the modules below the package (the export header, the tracer).

``graphmem/__init__.py`` defines ``__version__`` and imports the facade; a module the facade
imports, directly or not, reads the version from the package already imported instead of
importing it back (ARCHITECTURE.md: no layer imports the one above it).

>>> import graphmem
>>> package_version() == graphmem.__version__
True
"""

from __future__ import annotations

import sys

__all__ = ["package_version"]


def package_version() -> str:
    """Return ``graphmem.__version__``.

    The package is always imported before any of its modules, so it is in ``sys.modules``.
    """
    return str(sys.modules["graphmem"].__version__)
