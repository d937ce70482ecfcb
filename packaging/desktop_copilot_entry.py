"""The frozen app's entry script (PyInstaller runs this): the same `main` as the `desktop-copilot` command.

No arguments open the window; `ask`, `keys` and `--version` work as with the pip-installed command.
"""

from desktop_copilot.app.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
