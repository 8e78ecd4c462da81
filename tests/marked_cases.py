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


def marks(text: str):
    """The cases' marks: ({(code, line)} of `# positive: CODE ...` lines, {line} of `# negative` lines)."""
    lines = text.splitlines()
    positives = {(t.split("# positive: ")[1].split()[0], i) for i, t in enumerate(lines, 1) if "# positive" in t}
    negatives = {i for i, t in enumerate(lines, 1) if "# negative" in t}
    return positives, negatives


def assert_marked_lines(tmp_path, name: str, text: str) -> None:
    """Every positive line is reported with its code and nothing else is: no look-alike beside it, no
    second report at a call."""
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    found = {(code, line) for code, line, _ in check(path, False)}
    positives, negatives = marks(text)
    assert positives and negatives
    assert positives - found == set()
    assert found - positives == set()


def assert_pruned_is_whole(tmp_path, name: str, text: str, filler: bool) -> None:
    """The pruned analysis reports what the whole file's does, with and without unrelated code."""
    path = tmp_path / f"{name}.py"
    path.write_text(text + (FILLER if filler else ""))
    assert check(path, True) == check(path, False)
