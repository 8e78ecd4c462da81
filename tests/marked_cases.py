"""What the per-family case tests share: a file's findings, whole or pruned, and unrelated code
that makes a file big enough for the pruner to cut (pruned == whole must hold with it too)."""

from castlint.config import Config
from castlint.engine import check_file
from castlint.tables import load_tables

TABLES = load_tables()
FILLER = "".join(f"\n\ndef util_{i}(x):\n    z = x * {i}\n    return z.float()\n" for i in range(60))


def check(path, prune: bool):
    """(code, line, message) of every finding on path, analysed pruned or whole; no error."""
    config = Config(root=path.parent)
    result = check_file(str(path), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    return [(f.code, f.start.line, f.message) for f in result.findings]
