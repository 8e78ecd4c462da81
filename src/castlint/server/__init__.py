"""`castlint server`: the Language Server Protocol over stdio (pygls), as `ruff server` does.

- diagnostics for a document on open and on every change, from the editor's unsaved
  buffer (castlint checks the text it is sent, reported under the document's path);
- code actions: a finding's fix (the safe fixes castlint applies to the file, the
  same rewrite as `castlint fix`), "Fix all castlint findings", and "Suppress CODE on
  this line" (a `# noqa: CODE` comment, as --add-noqa writes it);
- the settings of each document are those of its nearest pyproject.toml /
  castlint.toml, read again on every check; when the client reports that a config
  file changed (workspace/didChangeWatchedFiles), every open document is checked again.

pygls is an optional dependency: `pip install 'castlint[lsp]'`.
"""

from __future__ import annotations


def run() -> int:
    """Serve on stdin/stdout until the client says exit. 2 when pygls is not installed."""
    try:
        from castlint.server.protocol import make_server
    except ImportError as exc:  # pygls (the `lsp` extra) is missing
        import sys

        sys.stderr.write(
            f"castlint: error: `castlint server` needs pygls ({exc.name or exc}): pip install 'castlint[lsp]'\n"
        )
        return 2
    make_server().start_io()
    return 0
