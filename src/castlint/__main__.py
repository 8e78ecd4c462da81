"""`python -m castlint`.

`python -m` puts the current directory first on sys.path, so a checked-out pull
request could shadow castlint's own dependencies (a top-level typer.py, say).
castlint only parses the code it checks; drop that entry before importing more.
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from castlint.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
