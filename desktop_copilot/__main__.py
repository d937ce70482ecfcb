"""`python -m desktop_copilot` runs the command-line entry point."""

from desktop_copilot.app.cli import main

raise SystemExit(main())
