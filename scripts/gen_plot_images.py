"""Regenerate the pictures in docs/img/ that graphmem.plot draws (docs/notebooks.md).

Einstein's history from notebook 2, replayed as the world learned it (the demo's learning
schedule), plus today's correction of the marriage's end. Run from the repository root:

    python scripts/gen_plot_images.py
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import graphmem as gm  # noqa: E402
from graphmem import datasets, plot  # noqa: E402
from graphmem.demo import learning_schedule  # noqa: E402

IMG = Path(__file__).resolve().parents[1] / "docs" / "img"


def main() -> None:
    """Replay Einstein's history and write both pictures."""
    rows = [r for r in datasets.sample() if r.subject == "Albert Einstein"]
    schedule = learning_schedule(rows)
    clock = gm.timeutil.ManualClock(schedule[0][0])
    with gm.open(clock=clock) as mem:
        for day, batch in schedule:
            clock.set(day)
            mem.add_facts(batch)
        clock.set("2026-06-02")
        mem.retract(
            "Albert Einstein",
            "married_to",
            "Mileva Marić",
            at="1919-02-14",
            reason="divorce finalised on 1919-02-14",
        )
        for name, fig in (
            ("einstein-bitemporal.png", plot.bitemporal(mem, "Albert Einstein")),
            ("einstein-timeline.png", plot.timeline(mem, "Albert Einstein")),
        ):
            fig.savefig(IMG / name, dpi=100, bbox_inches="tight")
            print("wrote", IMG / name)


if __name__ == "__main__":
    main()
