"""``python -m graphmem`` runs the CLI."""

from graphmem.cli import main

if __name__ == "__main__":
    main()
