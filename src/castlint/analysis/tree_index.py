"""Definitions across the files of the checked tree, linked into the module being analysed.

The flow model reads one module. A value often reaches a cast through a definition of
another module of the same tree: a backend that subclasses a common implementation
defined elsewhere (vLLM's MLA backends), a reader class or a helper imported from the
pool's module. This index resolves a module's imports to the tree's files (relative
imports, the module's own top-level package, or a folder of plain modules), reads
their top-level classes, functions and assignments with `ast`, and *links* the ones
the module uses into it: their source is appended after the module's own code, with
the bases, helpers and records they need, transitively. The one flow model then
follows values through them as through the module's own code; findings inside the
linked part are dropped (each file reports its own).

A definition is linked only when what it pulls in names a pool (the prefilter's
vocabulary: an accessor, a cache attribute, a calling-convention parameter, a
conversion helper): every other import leaves the module as it is. Each module of
the tree is read once per process (keyed by its stat signature), and a result that
used linked code records the files it used (FileResult.links), so the cache drops it
when one of them changes. The same index learns accessors from every pool class it
reads (castlint.analysis.pool_classes).
"""

from __future__ import annotations

import ast
import os
import re
import stat
import sys
import time
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, Union

from castlint.analysis import link_gate, pool_classes
from castlint.common import pyast
from castlint.common.words import any_word
from castlint.tables import Tables

_MAX_MODULE_BYTES = 4 << 20
_MAX_LINKED_BYTES = 400_000  # what one module may gain by linking
_MAX_DEPTH = 6  # import chains and dependencies followed
_SMALL_FUNCTION_LINES = 80  # helpers linked whatever they name (a view, a reshape of what they get)
_SMALL_ASSIGN_LINES = 8  # `KV = namedtuple(...)`, `get = functools.partial(...)`


@dataclass
class Definition:
    """One top-level class, function or single-name assignment of a module."""

    name: str
    kind: str  # "class", "function" or "assign"
    text: str  # its source lines, decorators included
    header: int  # the line of `text` (0-based) that names it
    bases: Tuple[str, ...]  # dotted names of a class's bases
    carries: bool  # names a pool (the prefilter's vocabulary)
    node: object = field(default=None, repr=False, compare=False)
    # what it can do to the module that links it (_roles): hand it a pool (a return, a
    # property, a record field or a method that yields one from a pool word), pass a value
    # through (returns what it is given: a view helper, a reader class), convert
    converts: bool = False
    plans: bool = False  # holds a plan call of an attention wrapper (CL002's site)
    pool: FrozenSet[str] = field(default=frozenset(), repr=False, compare=False)  # its module's pool words
    _refs: Optional[FrozenSet[str]] = field(default=None, repr=False, compare=False)
    _roles: Optional[Tuple[bool, bool]] = field(default=None, repr=False, compare=False)
    _dtypes: Optional[bool] = field(default=None, repr=False, compare=False)

    def _read(self) -> None:
        """refs and roles, read from the node when first asked (most definitions never are);
        a definition read back from the on-disk index parses its own text then."""
        if self.node is None:
            self.node = _reparse(self)
        if self.node is None:
            self._refs, self._roles, self._dtypes = frozenset(), (False, False), False
            return
        self._refs = frozenset(_names(self.node) - {self.name})
        self._roles = (False, False) if self.kind == "assign" else _roles(self.node, self.pool, self.carries)
        self._dtypes = self.kind != "class" and _returns_dtypes(self.node, self.dtype_words)
        self.node = None

    dtype_words: Tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def gives_dtypes(self) -> bool:
        """A function or assignment whose value names a dtype (a (q, kv) dtype pair, a kwargs
        dict of plan dtypes, a partial fixing them): what a plan call may be given."""
        if self._dtypes is None:
            self._read()
        return self._dtypes

    @property
    def refs(self) -> FrozenSet[str]:
        """Module-level names it uses (`m.attr` also as "m.attr")."""
        if self._refs is None:
            self._read()
        return self._refs

    @property
    def provides(self) -> bool:
        if self._roles is None:
            self._read()
        return self._roles[0]

    @property
    def passes(self) -> bool:
        if self._roles is None:
            self._read()
        return self._roles[1]


@dataclass
class ModuleIndex:
    path: str
    package: str  # the dotted package the module's relative imports start from
    definitions: Dict[str, Definition] = field(default_factory=dict)
    imports: Dict[str, Tuple[str, Optional[str], int]] = field(default_factory=dict)  # local -> (module, attr, level)
    learned: FrozenSet[str] = frozenset()  # accessors its pool classes define
    carries: bool = False  # the module's text names a pool at all
    kinds: Tuple[Tuple[str, str], ...] = ()  # (accessor, what it returns: pool_classes.Learned.accessors)
    stars: Tuple[Tuple[str, int], ...] = ()  # (module, level) of each `from m import *`
    exported: Optional[FrozenSet[str]] = None  # its `__all__`, when a literal list of names
    lazy: Tuple[str, ...] = ()  # modules a module-level `__getattr__` may import from (PEP 562 re-exports)
    tree: object = field(default=None, repr=False, compare=False)  # kept for used/chains (one walk, when asked)
    _reads: Optional[tuple] = field(default=None, repr=False, compare=False)

    @property
    def used(self) -> FrozenSet[str]:
        """Every name the module reads (`m.attr` also as "m.attr")."""
        return self._walk()[0]

    @property
    def chains(self) -> Dict[str, List[Tuple[int, int]]]:
        """Each dotted name the module reads, with where it starts (see _reads)."""
        return self._walk()[1]

    def _walk(self) -> tuple:
        if self._reads is None:
            self._reads = _reads(self.tree) if self.tree is not None else (frozenset(), {})
        return self._reads


@dataclass(frozen=True)
class Linked:
    text: str = ""  # source to append after the module's own
    paths: Tuple[str, ...] = ()  # the files it came from
    learned: FrozenSet[str] = frozenset()  # accessors the linked modules' pool classes define
    kinds: Tuple[Tuple[str, str], ...] = ()  # (accessor, what it returns) of those
    own: bytes = b""  # the module's own source with its module attributes renamed (_rename_chains)
    renames: Tuple[Tuple[str, str], ...] = ()  # (`mod.f`, `mod_f`) for each

    def __bool__(self) -> bool:
        return bool(self.text or self.learned)


# -- the vocabulary --------------------------------------------------------------

_WORDS: Dict[int, tuple] = {}


def _vocabulary(tables: Tables):
    """(tables, the words that make code carry a pool (those the prefilter starts from), their
    regex, the conversion words, the pool regex on bytes, the conversion regex on bytes, the
    pool words as bytes)."""
    hit = _WORDS.get(id(tables))
    if hit is None or hit[0] is not tables:
        from castlint.triggers import TriggerWords

        words = TriggerWords(tables)
        pool = set(words.pools) | set(words.helpers) | set(words.cache_parameters) | set(words.dequantizing_accessors)
        ordered = tuple(sorted(pool))
        pattern = re.compile("|".join(re.escape(w) for w in ordered) or "(?!)")
        conversions = tuple(sorted(w.encode() for w in words.conversions))
        converting = re.compile(b"|".join(re.escape(w) for w in conversions) or b"(?!)")
        hit = _WORDS[id(tables)] = (
            tables,
            ordered,
            pattern,
            conversions,
            re.compile(pattern.pattern.encode()),
            converting,
            tuple(w.encode() for w in ordered),
        )
    return hit


def _carries(text: str, tables: Tables) -> bool:
    return _vocabulary(tables)[2].search(text) is not None


def _carries_bytes(source: bytes, tables: Tables) -> bool:
    """_carries of source decoded (`utf-8`, "replace"), on the bytes: through their anchors (any_word),
    where every pool word is ASCII (an ASCII byte decodes to itself, whatever surrounds it)."""
    vocabulary = _vocabulary(tables)
    if all(word.isascii() for word in vocabulary[1]):
        return any_word(source, vocabulary[6])
    return _carries(source.decode("utf-8", "replace"), tables)


# -- modules on disk -------------------------------------------------------------

_PACKAGES: Dict[str, Tuple[str, str]] = {}
_NAMESPACE_GAP = 3  # folders without __init__.py in a row that a package may hold (namespace packages)


def _package_of(path: str) -> Tuple[str, str]:
    """(the folder above the module's top-level package, the module's dotted package).
    Folders without __init__.py inside a package are namespace packages of it (sglang's
    `srt/`, `srt/layers/`): the top is the highest folder with an __init__.py reached
    through gaps of at most _NAMESPACE_GAP such folders. A module outside any package
    is its own folder's: ("folder", "")."""
    start = os.path.dirname(os.path.abspath(path))
    hit = _PACKAGES.get(start)
    if hit is not None:
        return hit
    chain: List[str] = []  # start, its parent, ...
    folder, top, gap = start, -1, 0
    while True:
        chain.append(folder)
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            top, gap = len(chain) - 1, 0
        else:
            gap += 1
            if gap > _NAMESPACE_GAP:
                break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    parts = [os.path.basename(f) for f in reversed(chain[: top + 1])]
    if top < 0 or not all(p.isidentifier() for p in parts):
        found = (start, "")
    else:
        found = (os.path.dirname(chain[top]), ".".join(parts))
    _PACKAGES[start] = found
    return found


def _find_module(dotted: str, roots: Sequence[str]) -> Optional[str]:
    parts = dotted.split(".")
    for root in roots:
        base = os.path.join(root, *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


_MODULES: Dict[str, Tuple[tuple, Optional[ModuleIndex]]] = {}


def _signature(path: str) -> Optional[tuple]:
    """(size, mtime, inode) of a regular file; None for anything else (a FIFO or a device would block
    a read: every reader of the tree's modules asks this first)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _reparse(definition: Definition):
    """The node of a definition read back from the on-disk index (its text is a top-level
    statement: decorators, then the header at column 0)."""
    try:
        body = pyast.parse(definition.text.encode("utf-8")).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return body[0] if body else None


# -- the per-tree index on disk ----------------------------------------------------
#
# Each module of the tree that the linker reads is summarised once (its definitions with
# their text and roles, its imports, the accessors its pool classes teach) and the summary
# is kept under <cache>/castlint/tree/, one JSON file per module version (path, size, mtime,
# the tables' digest and this code's): the workers of a run and the runs after it read the
# summary instead of parsing the module again. CASTLINT_TREE_CACHE names another folder,
# or "off".

_STORE_VERSION = 3
_CODE: List[str] = []


def _store_dir() -> Optional[str]:
    where = os.environ.get("CASTLINT_TREE_CACHE")
    if where in ("0", "off", "none"):
        return None
    if where:
        return where
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "castlint", "tree")


def _code_digest() -> str:
    if not _CODE:
        import hashlib

        h = hashlib.sha256()
        for module in (__file__, pool_classes.__file__):
            try:
                with open(module, "rb") as fh:
                    h.update(fh.read())
            except OSError:
                pass
        _CODE.append(h.hexdigest()[:16])
    return _CODE[0]


def _store_path(path: str, sig: tuple, tables: Tables) -> Optional[str]:
    folder = _store_dir()
    if folder is None:
        return None
    import hashlib

    key = f"{_STORE_VERSION}\0{os.path.abspath(path)}\0{sig[0]}\0{sig[1]}\0{tables.digest}\0{_code_digest()}"
    return os.path.join(folder, hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json")


def _load(store: str, path: str, tables: Tables) -> Optional[tuple]:
    """(True, the index) read back from the store; None when there is no usable entry."""
    import json

    try:
        with open(store, "r", encoding="utf-8") as fh:
            data = json.load(fh)
        if data.get("path") != os.path.abspath(path):
            return None
        if data.get("index") is None:
            return (True, None)
        raw = data["index"]
        learned = frozenset(raw["learned"])
        index = ModuleIndex(path=path, package=raw["package"], learned=learned, carries=raw["carries"])
        index.imports = {k: (v[0], v[1], v[2]) for k, v in raw["imports"].items()}
        index.kinds = tuple((k[0], k[1]) for k in raw["kinds"])
        index.stars = tuple((m[0], m[1]) for m in raw["stars"])
        index.exported = frozenset(raw["exported"]) if raw["exported"] is not None else None
        index.lazy = tuple(raw["lazy"])
        pool = _pool_names(tables) | learned
        words = tuple(tables.dtype_words)
        for d in raw["definitions"]:
            index.definitions[d[0]] = Definition(
                name=d[0],
                kind=d[1],
                text=d[2],
                header=d[3],
                bases=tuple(d[4]),
                carries=d[5],
                converts=d[6],
                plans=d[7],
                pool=pool,
                dtype_words=words,
            )
        return (True, index)
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _save(store: str, path: str, index: Optional[ModuleIndex]) -> None:
    import json

    data: dict = {"path": os.path.abspath(path), "index": None}
    if index is not None:
        data["index"] = {
            "package": index.package,
            "learned": sorted(index.learned),
            "carries": index.carries,
            "imports": {k: list(v) for k, v in index.imports.items()},
            "kinds": [list(k) for k in index.kinds],
            "stars": [list(m) for m in index.stars],
            "exported": sorted(index.exported) if index.exported is not None else None,
            "lazy": list(index.lazy),
            "definitions": [
                [d.name, d.kind, d.text, d.header, list(d.bases), d.carries, d.converts, d.plans]
                for d in index.definitions.values()
            ],
        }
    folder = os.path.dirname(store)
    temporary = f"{store}.{os.getpid()}.tmp"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as fh:
            json.dump(data, fh, separators=(",", ":"))
        os.replace(temporary, store)
    except (OSError, ValueError, TypeError):
        try:
            os.unlink(temporary)
        except OSError:
            pass


STORE_STATS = {"read": 0, "written": 0}  # (tests: the on-disk index was read back / written)


def module_index(path: str, tables: Tables, source: Optional[bytes] = None) -> Optional[ModuleIndex]:
    """The index of one module (read from disk unless source is given), once per process
    per file version; a module read from disk is summarised once per version in the on-disk
    per-tree index, which the other workers and later runs read back."""
    sig = _signature(path) if source is None else ("source", hash(source))
    key = os.path.abspath(path)
    hit = _MODULES.get(key)
    if hit is not None and hit[0] == (sig, id(tables)):
        return hit[1]
    index = None
    store = None
    if source is None and sig is not None and sig[0] <= _MAX_MODULE_BYTES:
        store = _store_path(path, sig, tables)
        stored = _load(store, path, tables) if store is not None else None
        if stored is not None:
            STORE_STATS["read"] += 1
            _MODULES[key] = ((sig, id(tables)), stored[1])
            return stored[1]
        try:
            with open(path, "rb") as fh:
                source = fh.read()
        except OSError:
            source = None
    if source is not None:
        index = _index(path, source, tables, keep_used=sig[0] == "source")
        if store is not None:
            _save(store, path, index)
            STORE_STATS["written"] += 1
    _MODULES[key] = ((sig, id(tables)), index)
    return index


def _index(path: str, source: bytes, tables: Tables, keep_used: bool = False) -> Optional[ModuleIndex]:
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    _, package = _package_of(path)  # an __init__.py is its own package, as its folder is
    index = ModuleIndex(path=path, package=package, carries=_carries(text, tables))
    teaches = pool_classes.candidate(source, tables)  # a pool class under names no table lists
    if (
        not index.carries
        and not teaches
        and "import" not in text
        and not _vocabulary(tables)[5].search(source)
        and not _plan_calls(tables).search(text)
        and not any(w in text for w in tables.dtype_words)
    ):
        return index  # nothing to link from it, nor through it (no plan call, no dtype for one)
    try:
        tree = pyast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.splitlines(keepends=True)
    if keep_used:
        index.tree = tree
    if index.carries or teaches:
        taught = pool_classes.learn_source(source, tables)
        index.learned = frozenset(taught.names)
        index.kinds = tuple(taught.accessors)
        index.carries = index.carries or bool(index.learned)
    dynamic = {local: (module, level) for local, module, level in dynamic_imports(source, tables)}
    for statement in _top_level(tree.body):
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            _record_imports(index, statement)
        elif (
            dynamic
            and isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id in dynamic
            and isinstance(statement.value, ast.Call)
        ):  # `_pool_mod = importlib.import_module(".pool", __package__)`: `from . import pool as _pool_mod`
            module, level = dynamic[statement.targets[0].id]
            parent, _, last = module.rpartition(".")
            entry = (parent, last, level) if level else (module, None, 0)
            index.imports.setdefault(statement.targets[0].id, entry)
            continue
        elif isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign)):
            definition = _definition(statement, lines, tables, index.learned)
            if definition is not None:
                index.definitions.setdefault(definition.name, definition)
        if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
            index.stars += ((statement.module or "", statement.level),)
        elif isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets
        ):
            names = getattr(statement.value, "elts", None)
            if names is not None and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names):
                index.exported = frozenset(e.value for e in names)
        elif isinstance(statement, ast.FunctionDef) and statement.name == "__getattr__":
            index.lazy = _lazy_modules(tree)
    return index


def _lazy_modules(tree) -> Tuple[str, ...]:
    """The modules a module-level `__getattr__` may import a name from: the module's string
    constants spelled as a module (`".pool"`, `"pkg.layers.pool"`), as its lazy-export table or
    its `importlib.import_module` call names them."""
    found = []
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and _MODULE_SPELLING.fullmatch(sub.value):
            if "." in sub.value and sub.value not in found:
                found.append(sub.value)
    return tuple(found[:_MAX_LAZY])


_MODULE_SPELLING = re.compile(r"\.*[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_MAX_LAZY = 64


def _reads(tree) -> Tuple[FrozenSet[str], Dict[str, List[Tuple[int, int]]]]:
    """(every name the module reads, `m.attr` also as "m.attr"; each dotted name `m.f`,
    `a.b.c.X` it reads, with where it starts (line, UTF-8 column)): module-attribute uses,
    which linking may rename to `m_f`. One walk."""
    names: Set[str] = set()
    chains: Dict[str, List[Tuple[int, int]]] = {}
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            if isinstance(sub.value, ast.Name):
                names.add(f"{sub.value.id}.{sub.attr}")
            if not isinstance(sub.value, ast.Subscript):
                dotted = _dotted(sub)
                if dotted and "." in dotted:
                    chains.setdefault(dotted, []).append((sub.lineno, sub.col_offset))
    return frozenset(names), chains


def _top_level(body):
    """Top-level statements, through `if TYPE_CHECKING:`/`try:` blocks (imports and
    definitions made conditionally)."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _top_level(statement.body)
            for handler in statement.handlers:
                yield from _top_level(handler.body)
        else:
            yield statement


def _record_imports(index: ModuleIndex, statement) -> None:
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if alias.asname:
                index.imports.setdefault(alias.asname, (alias.name, None, 0))
            else:  # `import a.b.c` binds `a`; `a.b.c.X` is read through it
                index.imports.setdefault(alias.name.split(".")[0], (alias.name.split(".")[0], None, 0))
        return
    for alias in statement.names:
        if alias.name != "*":
            index.imports.setdefault(alias.asname or alias.name, (statement.module or "", alias.name, statement.level))


def _definition(node, lines: List[str], tables: Tables, learned: FrozenSet[str] = frozenset()) -> Optional[Definition]:
    if getattr(node, "col_offset", 0) != 0:
        return None
    if isinstance(node, ast.Assign):
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return None
        name, kind = node.targets[0].id, "assign"
    elif isinstance(node, ast.AnnAssign):
        if not isinstance(node.target, ast.Name) or node.value is None:
            return None
        name, kind = node.target.id, "assign"
    else:
        name, kind = node.name, "class" if isinstance(node, ast.ClassDef) else "function"
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
    end = getattr(node, "end_lineno", None) or node.lineno
    if kind == "assign" and end - first + 1 > _SMALL_ASSIGN_LINES:
        return None
    text = "".join(lines[first - 1 : end])
    if not text.endswith("\n"):
        text += "\n"
    bases = tuple(filter(None, (_dotted(b) for b in node.bases))) if isinstance(node, ast.ClassDef) else ()
    definition = Definition(
        name=name,
        kind=kind,
        text=text,
        header=node.lineno - first,
        bases=bases,
        carries=_carries(text, tables),
        node=node,
    )
    definition.converts = any(w.decode() in text for w in _vocabulary(tables)[3])
    definition.plans = _plan_calls(tables).search(text) is not None
    definition.dtype_words = tuple(tables.dtype_words)
    definition.pool = _pool_names(tables) | learned
    return definition


_POOL_NAMES: Dict[int, tuple] = {}


def _pool_names(tables: Tables) -> FrozenSet[str]:
    """The identifiers of the pool vocabulary: accessors, cache attributes, convention
    parameters, conversion helpers (the trigger words without their punctuation)."""
    hit = _POOL_NAMES.get(id(tables))
    if hit is None or hit[0] is not tables:
        words = {re.sub(r"[^\w]", "", w) for w in _vocabulary(tables)[1]}
        words |= set(tables.accessors) | set(tables.cache_attributes)
        hit = _POOL_NAMES[id(tables)] = (tables, frozenset(w for w in words if w.isidentifier()))
    return hit[1]


_PLANS: Dict[int, tuple] = {}


def _plan_calls(tables: Tables):
    """A call of an attention wrapper's plan (`.plan(`, a plan function of the tables'
    [[wrapper]] rows: what CL002 reads), as a str regex."""
    hit = _PLANS.get(id(tables))
    if hit is None or hit[0] is not tables:
        methods = {m for w in tables.wrappers if not w.function for m in w.methods}
        functions = {w.cls for w in tables.wrappers if w.function}
        words = [rf"\.{re.escape(m)}\(" for m in sorted(methods)] + [rf"\b{re.escape(f)}\(" for f in sorted(functions)]
        hit = _PLANS[id(tables)] = (tables, re.compile("|".join(words) or "(?!)"))
    return hit[1]


def _returns_dtypes(node, words: Tuple[str, ...]) -> bool:
    """Does a function return (or an assignment hold) a value that names a dtype?"""
    values = (
        [node.value]
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        else [sub.value for sub in ast.walk(node) if isinstance(sub, ast.Return) and sub.value is not None]
    )
    return any(any(w in ident.lower() for w in words) for value in values for ident in _idents(value))


def _idents(node) -> Set[str]:
    out: Set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            out.add(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value.isidentifier():
            out.add(sub.value)  # getattr(self, "k_buffer")
    return out


def _self_attrs(node) -> Set[str]:
    return {
        sub.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self"
    }


def _roles(node, pool: FrozenSet[str], carries: bool) -> Tuple[bool, bool]:
    """(provides, passes) of a function or class (see Definition): read from its returns,
    yields, properties and fields with `ast`, a value tainted by a pool word through the
    names and `self.` attributes it is assigned to."""
    functions = (
        [node]
        if not isinstance(node, ast.ClassDef)
        else [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    )
    if isinstance(node, ast.ClassDef):
        if any(f.name in pool for f in functions):
            return False, False  # a pool class: its accessors are known by name (tables, learnt)
        fields = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
        if fields & pool:
            return True, True  # a record with a cache field
    assigns = []  # (names assigned, self attributes assigned, identifiers of the value, parameters)
    returns = []  # (identifiers, self attributes, parameters)
    for function in functions:
        args = function.args
        params = frozenset(
            a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg)))
        ) - {"self", "cls"}
        for sub in ast.walk(function):
            if isinstance(sub, (ast.Assign, ast.AnnAssign)) and sub.value is not None:
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                names = {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
                attrs = set().union(*(_self_attrs(target) for target in targets))
                assigns.append((names, attrs, _idents(sub.value), params))
            elif isinstance(sub, (ast.Return, ast.Yield, ast.YieldFrom)) and sub.value is not None:
                returns.append((_idents(sub.value), _self_attrs(sub.value), params))
    if not returns:
        return False, False
    tainted = set(pool) if carries else set()
    stored: Set[str] = set()  # self.x assigned a parameter (a reader class) or a tainted value
    for _ in range(2):
        for names, attrs, used, params in assigns:
            if used & tainted:
                tainted |= names | attrs
            if used & params:
                stored |= attrs
    passes = False
    for used, attrs, params in returns:
        if used & tainted:
            return True, True
        if used & params or attrs & stored:
            passes = True
    return False, passes


def _names(node) -> Set[str]:
    refs: Set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            refs.add(sub.id)
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            refs.add(f"{sub.value.id}.{sub.attr}")
    return refs


def _dotted(node) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    if isinstance(node, ast.Subscript):  # Generic[T], Base[int]
        return _dotted(node.value)
    return None


# -- resolving a name to a definition ----------------------------------------------


class _Resolver:
    def __init__(self, path: str, tables: Tables):
        self.tables = tables
        self.root, self.package = _package_of(path)
        self.top = self.package.split(".")[0] if self.package else ""
        self.roots = [self.root] + ([p for p in sys.path if p and os.path.isdir(p)] if self.top else [])
        self.visited: Dict[str, ModuleIndex] = {}  # the modules read that name a pool
        self.plans = False  # the importing file holds a plan call: plan helpers and dtype helpers matter
        # the importing file has a pool of its own: a module that only converts (a helper given
        # the pool) matters too; else only what names a pool can hand it one
        self.converting = True

    def read(self, target: Optional[str]) -> Optional[ModuleIndex]:
        """The index of a module of the tree, when it can matter: its text names a pool, or
        it is a package's __init__ (re-exports). Other modules are never parsed."""
        if target is None:
            return None
        if not _file_matters(target, self.tables, converting=self.converting):
            if (
                os.path.basename(target) != "__init__.py"
                and not (self.plans and _file_plans(target, self.tables))
                and not _file_reaches(target, self.tables, self.converting)
            ):
                return None
        index = module_index(target, self.tables)
        if index is not None and index.carries:
            self.visited.setdefault(index.path, index)
        return index

    def module_file(self, index: ModuleIndex, module: str, level: int) -> Optional[str]:
        """The file of `module` as imported from the module that index describes (the answer
        is kept for _FOUND_S seconds: a tree's files are stat'ed once per run, not per import)."""
        key = (os.path.dirname(os.path.abspath(index.path)), index.package, self.root, self.top, module, level)
        now = time.monotonic()
        hit = _FOUND.get(key)
        if hit is not None and now - hit[0] < _FOUND_S:
            return hit[1]
        found = self._module_file(index, module, level)
        _FOUND[key] = (now, found)
        return found

    def _module_file(self, index: ModuleIndex, module: str, level: int) -> Optional[str]:
        if level:
            parts = index.package.split(".") if index.package else []
            keep = len(parts) - (level - 1)
            if keep < 0:
                return None
            dotted = ".".join(parts[:keep] + ([module] if module else []))
            root, _ = _package_of(index.path)
            return _find_module(dotted, [root]) if dotted else None
        if not module:
            return None
        if self.top and module.split(".")[0] != self.top:
            # another distribution (torch, flashinfer, ...): not the checked tree; a module
            # of a namespace folder may still import its siblings by name
            folder = os.path.dirname(os.path.abspath(index.path))
            if os.path.isfile(os.path.join(folder, "__init__.py")):
                return None
            return _find_module(module, [folder])
        roots = self.roots if self.top else [os.path.dirname(os.path.abspath(index.path))]
        return _find_module(module, roots)

    def resolve(self, index: ModuleIndex, name: str, depth: int = 0):
        """(module index, definition) that `name` means in index's module, through its
        imports and re-exports; None when it is not a definition of the tree."""
        if depth > _MAX_DEPTH:
            return None
        definition = index.definitions.get(name)
        if definition is not None:
            return index, definition
        head, _, rest = name.partition(".")
        imported = index.imports.get(head)
        if imported is None:
            return self._resolve_elsewhere(index, name, head, depth)
        module, attr, level = imported
        if attr is None:  # `import pkg.mod as m`: `m.X` (or `pkg.mod.X`)
            if not rest:
                return None
            dotted, _, leaf = f"{module}.{rest}".rpartition(".")
            other = self.read(self.module_file(index, dotted, level))
            return self.resolve(other, leaf, depth + 1) if other is not None else None
        if rest:  # `from pkg import mod` then `mod.X` (a `Cls.attr` is not a definition)
            other = self.read(self.module_file(index, f"{module}.{attr}" if module else attr, level))
            return self.resolve(other, rest, depth + 1) if other is not None and "." not in rest else None
        other = self.read(self.module_file(index, module, level))
        return self.resolve(other, attr, depth + 1) if other is not None else None

    def _resolve_elsewhere(self, index: ModuleIndex, name: str, head: str, depth: int):
        """A name the module neither defines nor imports by name: through its `from m import *`
        (what m's `__all__` lists, else its public names) or its lazy `__getattr__`'s modules."""
        for module, level in index.stars:
            other = self.read(self.module_file(index, module, level))
            if other is None:
                continue
            if (head not in other.exported) if other.exported is not None else head.startswith("_"):
                continue
            found = self.resolve(other, name, depth + 1)
            if found is not None:
                return found
        if index.exported is not None and head not in index.exported:
            return None
        for spelled in index.lazy:
            module = spelled.lstrip(".")
            level = len(spelled) - len(module)
            other = self.read(self.module_file(index, module, level))
            if other is not None and other.path != index.path:
                found = self.resolve(other, name, depth + 1)
                if found is not None:
                    return found
        return None


_LINKS: Dict[tuple, Tuple[Tables, Linked]] = {}
_FOUND: Dict[tuple, Tuple[float, Optional[str]]] = {}  # Resolver.module_file's answers, with when
_FOUND_S = 30.0  # (a long-lived process, the server or --watch, looks again after this long)
_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+([\w, \t]+)|import[ \t]+([\w.]+))", re.M)
# `_pool_mod = importlib.import_module(".pool", __package__)` ([callables] module_importers, by the last name)
_DYNAMIC_IMPORT = re.compile(rb"^[ \t]*(\w+)[ \t]*=[ \t]*[\w.]*?\b(\w+)\([ \t]*[\"'](\.*[\w.]+)[\"']", re.M)


def dynamic_imports(source: bytes, tables: Tables) -> List[Tuple[str, str, int]]:
    """(local name, module, level) of each `name = importlib.import_module("<constant>", ...)` of the
    text ([callables] module_importers): a relative name resolves against the file's own package."""
    words = {n.rsplit(".", 1)[-1].encode() for n in tables.module_importers}
    if not words or not any(w + b"(" in source for w in words):
        return []
    out = []
    for match in _DYNAMIC_IMPORT.finditer(source):
        if match.group(2) in words:
            module = match.group(3).decode("ascii", "replace")
            level = len(module) - len(module.lstrip("."))
            out.append((match.group(1).decode("ascii", "replace"), module.lstrip("."), level))
    return out


_CARRIES: Dict[tuple, Tuple[Optional[tuple], bool]] = {}  # (path, test) -> (its stat, the answer)


_TOP_DEFINITION = re.compile(rb"^(?:(?:async[ \t]+)?def|class)[ \t]+(\w+)", re.M)
_TOP_STATEMENT = re.compile(rb"^[^\s#)\]@]", re.M)  # a line that starts a statement at column 0
_AFTER_NEWLINE = re.compile(rb"\n[^\s#)\]@]")  # (the same, searched for by its `\n`: _top_statements)


def _top_statements(source: bytes) -> List[int]:
    """[m.start() for m in _TOP_STATEMENT.finditer(source)], faster: a line's start is searched for by the
    newline before it (a scan of `^` tries every offset), the first line tested apart."""
    out = [m.start() + 1 for m in _AFTER_NEWLINE.finditer(source)]
    if source and _TOP_STATEMENT.match(source) is not None:
        out.insert(0, 0)
    return out


def imported_by_callers(path: str, source: bytes, tables: Tables) -> bool:
    """Does a sibling module import a top-level function (or a small class) of this one and call (or
    construct) it where it names a pool (with_importing_callers)? Text first: the module's `def` and
    `class` names, the siblings that spell its name."""
    folder, base = os.path.split(os.path.abspath(path))
    if not any(name != base for name in _folder_importers(folder).get(base[:-3], ())):
        return False  # (no sibling imports from it: the cheapest test first)
    wanted = _converting_functions(source, tables)
    # (a caller too big to link links nothing: the file would be analysed for nothing)
    return bool(wanted) and any(
        len(text) <= _MAX_CALLER_BYTES for _, text in _importing_definitions(path, wanted, tables)
    )


def _kernel_decorated(source: bytes, start: int, tables: Tables) -> bool:
    """Is the definition at start decorated (the `@` lines just above it) by a decorator of rules/paged_kernels.toml
    [kernel_languages] (`@triton.jit`, `@triton.autotune(...)`)?"""
    if not tables.kernel_decorators:
        return False
    end = start
    while end > 0:
        line_start = source.rfind(b"\n", 0, end - 1) + 1
        line = source[line_start : end - 1].strip()
        if not line.startswith(b"@"):
            return False
        name = line[1:].split(b"(", 1)[0].strip().decode("ascii", "replace")
        if name in tables.kernel_decorators:
            return True
        end = line_start
    return False


def _converting_functions(source: bytes, tables: Tables) -> FrozenSet[str]:
    """The top-level functions, and classes of at most _SMALL_PASSING_CLASS_LINES lines (a record whose
    methods convert what its construction stores), whose text holds a conversion word, by text: from
    each `def` or `class` at column 0 to the next statement there."""
    words = _vocabulary(tables)[3]
    out = set()
    passing = []  # (name, body) of the definitions that convert nothing themselves
    starts = _top_statements(source) + [len(source)]
    for start, end in zip(starts, starts[1:]):
        found = _TOP_DEFINITION.match(source, start)
        if found is None:
            continue
        line_end = source.find(b"\n", start, end)
        body = source[line_end + 1 : end] if line_end != -1 else b""
        if source.startswith(b"class", start) and body.count(b"\n") > _SMALL_PASSING_CLASS_LINES:
            continue
        if _kernel_decorated(source, start, tables):
            continue  # (`@triton.jit`: a GPU kernel's tile casts, no tensor of Python)
        if any_word(body, words):
            out.add(found.group(1).decode("ascii", "replace"))
        else:
            passing.append((found.group(1).decode("ascii", "replace"), body))
    # a definition that hands one of those on (a class decorator that installs it as a method, a
    # factory that returns it): what its importers do with it runs the conversion
    while passing:
        # (a body that holds none of the names as text cannot match: the pattern is built only for the others)
        spelled = [n.encode() for n in sorted(out)]
        maybe = [(n, b) for n, b in passing if any(word in b for word in spelled)]
        names = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in spelled) + rb")\b") if out and maybe else None
        handing = [(n, b) for n, b in maybe if names is not None and names.search(b)]
        if not handing:
            break
        out.update(n for n, _ in handing)
        passing = [(n, b) for n, b in passing if (n, b) not in handing]
    # a module-level instance of one (`ops = Ops()`, `dense_latent = _DenseLatent(512)`): its importers
    # call it (`__call__`) or its methods
    if out and b"=" in source:
        for found in _TOP_INSTANCE.finditer(source):
            if found.group(2).decode("ascii", "replace") in out:
                out.add(found.group(1).decode("ascii", "replace"))
    return frozenset(out)


_TOP_INSTANCE = re.compile(rb"^(\w+)[ \t]*(?::[^=\n]*)?=[ \t]*(\w+)[ \t]*\(", re.M)


def may_link_callers(path: str, source: bytes, tables: Tables) -> bool:
    """Could the sibling modules that call one of its converting helpers give a file the prefilter
    skips a finding (`follow-imports = "callers"`)? A sibling imports one and calls it (the caller,
    engine.wanted, has seen a conversion in the file)."""
    return b"def " in source and imported_by_callers(path, source, tables)


def may_link(
    path: str, source: bytes, tables: Tables, own_pool: bool = True, uses: bool = False, names: bool = False
) -> bool:
    """Could linking give a file the prefilter skips a finding? It converts something and a
    module it imports from the tree names a pool, or it names a pool and a module it imports
    converts (a helper of a sibling module given the pool); then link() decides. A
    prefilter: cheap text tests first."""
    vocabulary = _vocabulary(tables)
    if b"import" not in source:
        return False
    converts = any_word(source, vocabulary[3])
    if not converts and not any_word(source, vocabulary[6]):
        return False
    if uses and converts and imported_by_callers(path, source, tables):
        return True  # a helper its importers give a pool (linked_source appends their calls)
    root, package = _package_of(path)
    holder = ModuleIndex(path=path, package=package)
    resolver = _Resolver(path, tables)
    read = None  # (the names the file reads, what it calls with a pool word: when first asked)
    found_imports = []
    for match in _IMPORT.finditer(source):
        module = (match.group(1) or match.group(3) or b"").decode("ascii", "replace")
        level = len(module) - len(module.lstrip("."))
        modules = [module.lstrip(".")]
        if match.group(2):  # `from pkg import mod`, `from . import mod as m`: maybe a submodule
            modules += [
                f"{modules[0]}.{n}" if modules[0] else n
                for n in (
                    part.split(" as ")[0].strip() for part in match.group(2).decode("ascii", "replace").split(",")
                )
                if n.isidentifier()
            ]
        found_imports.append((modules, level))
    for _, module, level in dynamic_imports(source, tables):
        found_imports.append(([module], level))
    for modules, level in found_imports:
        for dotted in modules:
            target = resolver.module_file(holder, dotted, level) if (dotted or level) else None
            # a module that converts supplies a pool, or the conversion of one it names
            if target is not None and (
                _file_reaches(target, tables, converting=False) if converts else _file_carries(target, vocabulary[5])
            ):
                if names:
                    if read is None:
                        read = link_gate.members(source)
                        own_plans = _plan_calls(tables).search(source.decode("utf-8", "replace")) is not None
                        pooled = link_gate.pooled_calls(source, tables) if own_pool else None
                    if not _reach_names(target, tables, read, own_pool, own_plans, converts, pooled):
                        continue  # no name it reads is one that module (or those it passes on) hands
                if uses and not link_gate.may_act(path, source, tables, resolver, converts):
                    return False  # no name it imports from the tree can act (text alone, no parse)
                linked = link(path, source, tables, own_pool, uses)
                return bool(linked.text) or any(f".{name}".encode() in source for name in linked.learned)
    return False


def _reach_names(
    path: str,
    tables: Tables,
    read: FrozenSet[str],
    own_pool: bool,
    own_plans: bool,
    converts: bool,
    pooled: Optional[FrozenSet[str]] = None,
) -> bool:
    """Does the importer read a name that the module at path hands (link_gate.Hands), or one
    that a module it imports hands, through at most _MAX_MIDDLE imports (a base class, a
    re-export, a module alias)?"""
    found = _reached_hands(path, tables, 0)
    return found is not None and link_gate.names_act(read, found, own_pool, own_plans, converts, pooled)


_REACHED: Dict[tuple, Tuple[float, Optional[link_gate.Hands]]] = {}


def _reached_hands(path: str, tables: Tables, depth: int) -> Optional[link_gate.Hands]:
    """What the module at path and those it imports (to _MAX_MIDDLE) hand, by name, once per
    run (a long-lived process looks again after _FOUND_S seconds, as for imports)."""
    key = (path, id(tables), depth)
    now = time.monotonic()
    hit = _REACHED.get(key)
    if hit is not None and now - hit[0] < _FOUND_S:
        return hit[1]
    _REACHED[key] = (now, None)  # (an import cycle adds nothing)
    parts = [link_gate.hands(path, tables)]
    if depth < _MAX_MIDDLE:
        parts += [_reached_hands(target, tables, depth + 1) for target in _passes(path, tables) if target != path]
    found = link_gate.union([p for p in parts if p is not None])
    _REACHED[key] = (now, found)
    return found


_PASSES: Dict[str, Tuple[Optional[tuple], Tuple[str, ...]]] = {}
_CLASS_BASES = re.compile(rb"^[ \t]*class[ \t]+\w+[ \t]*\(([^)]*)\)", re.M)


def _passes(path: str, tables: Tables) -> Tuple[str, ...]:
    """The modules of the tree whose names the module at path hands on to its importers: all
    it imports for a package's __init__.py (re-exports), its star imports and the modules a
    lazy __getattr__ names, the modules its classes' bases come from (once per file version)."""
    sig = _signature(path)
    hit = _PASSES.get(path)
    if hit is not None and hit[0] == sig:
        return hit[1]
    if os.path.basename(path) == "__init__.py":
        out = _imports_of(path, tables)
    else:
        out = []
        text = link_gate._text(path)
        if text is not None:
            _, package = _package_of(path)
            holder = ModuleIndex(path=path, package=package)
            resolver = _Resolver(path, tables)
            wanted = [(module, level) for module, level in text.stars]
            if text.lazy:
                wanted += [(m, lv) for m, lv in _imported_modules(text.source) if lv or "." in m]
            for match in _CLASS_BASES.finditer(text.source):
                for base in match.group(1).decode("ascii", "replace").split(","):
                    head = base.strip().split(".")[0].split("[")[0].strip()
                    imported = text.imports.get(head) if head and "=" not in base else None
                    if imported is not None:
                        module, attr, level = imported
                        wanted.append((module, level))
                        if attr is not None:
                            wanted.append((f"{module}.{attr}" if module else attr, level))
            for module, level in wanted:
                target = resolver.module_file(holder, module, level) if (module or level) else None
                if target is not None and target not in out:
                    out.append(target)
        out = tuple(out)
    _PASSES[path] = (sig, out)
    return out


_IMPORTS_OF: Dict[tuple, Tuple[Optional[tuple], Tuple[str, ...]]] = {}


def _imports_of(path: str, tables: Tables) -> Tuple[str, ...]:
    """The files of the tree that the module at path imports (once per file version)."""
    sig = _signature(path)
    hit = _IMPORTS_OF.get(path)
    if hit is not None and hit[0] == sig:
        return hit[1]
    out: List[str] = []
    source = None
    if sig is not None and sig[0] <= _MAX_MODULE_BYTES:
        try:
            with open(path, "rb") as fh:
                source = fh.read()
        except OSError:
            source = None
    if source is not None and b"import" in source:
        _, package = _package_of(path)
        holder = ModuleIndex(path=path, package=package)
        resolver = _Resolver(path, tables)
        for dotted, level in _imported_modules(source):
            target = resolver.module_file(holder, dotted, level) if (dotted or level) else None
            if target is not None and target not in out:
                out.append(target)
    _IMPORTS_OF[path] = (sig, tuple(out))
    return tuple(out)


def _file_carries(path: str, pattern) -> bool:
    """Does the file's text match pattern (a bytes regex)? Once per file version."""
    return _file_test(path, pattern.pattern, lambda text: pattern.search(text) is not None)


_REACHES: Dict[tuple, Tuple[Optional[tuple], bool]] = {}
_MAX_MIDDLE = 3  # modules that only re-export or subclass, in a row, between a file and a pool


def _file_reaches(path: str, tables: Tables, converting: bool, depth: int = 0) -> bool:
    """_file_matters, or the module imports, from the tree, one that does through at most
    _MAX_MIDDLE modules that name no pool themselves (a middle class of a hierarchy, an
    __init__ that re-exports): a base three modules away still reaches its user."""
    if _file_matters(path, tables, converting):
        return True
    if depth >= _MAX_MIDDLE:
        return False
    sig = _signature(path)
    key = (path, converting, id(tables), depth)
    hit = _REACHES.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    _REACHES[key] = (sig, False)  # (an import cycle answers no)
    found = False
    source = None
    if sig is not None and sig[0] <= _MAX_MODULE_BYTES:
        try:
            with open(path, "rb") as fh:
                source = fh.read()
        except OSError:
            source = None
    if source is not None and b"import" in source:
        _, package = _package_of(path)
        holder = ModuleIndex(path=path, package=package)
        resolver = _Resolver(path, tables)
        for dotted, level in _imported_modules(source):
            target = resolver.module_file(holder, dotted, level) if (dotted or level) else None
            if target is not None and target != path and _file_reaches(target, tables, converting, depth + 1):
                found = True
                break
    _REACHES[key] = (sig, found)
    return found


_LAZY_GETATTR = re.compile(rb"^def[ \t]+__getattr__[ \t]*\(", re.M)
_LAZY_SPELLING = re.compile(rb"[\"'](\.*[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)[\"']")


def _imported_modules(source: bytes):
    """(dotted module, level) of each import of the source (`from pkg import mod`: both), and
    the modules a lazy module-level `__getattr__` may import from (_lazy_modules, by text)."""
    if _LAZY_GETATTR.search(source) is not None:
        for match in _LAZY_SPELLING.finditer(source):
            spelled = match.group(1).decode("ascii", "replace")
            if "." in spelled:
                module = spelled.lstrip(".")
                yield module, len(spelled) - len(module)
    for match in _IMPORT.finditer(source):
        module = (match.group(1) or match.group(3) or b"").decode("ascii", "replace")
        level = len(module) - len(module.lstrip("."))
        base = module.lstrip(".")
        yield base, level
        if match.group(2):
            for n in match.group(2).decode("ascii", "replace").split(","):
                if n.strip().isidentifier():
                    yield (f"{base}.{n.strip()}" if base else n.strip()), level


def _file_matters(path: str, tables: Tables, converting: bool) -> bool:
    """Can the module at path give an importer a pool: it names one, or may define a pool
    class (castlint.analysis.pool_classes.candidate: its accessors are learnt)? converting:
    or it converts something (a helper of a sibling module given the pool)."""
    vocabulary = _vocabulary(tables)
    if _file_carries(path, vocabulary[4]) or (converting and _file_carries(path, vocabulary[5])):
        return True
    return _file_test(path, ("pool class", id(tables)), lambda text: pool_classes.candidate(text, tables))


def _file_plans(path: str, tables: Tables) -> bool:
    """Does the module at path hold a plan call, or name a dtype (a helper that returns plan dtypes)?"""
    plans = _plan_calls(tables)
    words = tuple(w.encode() for w in tables.dtype_words)
    return _file_test(
        path,
        ("plans", id(tables)),
        lambda text: plans.search(text.decode("utf-8", "replace")) is not None or any(w in text for w in words),
    )


def _file_test(path: str, name, test) -> bool:
    sig = _signature(path)
    key = (path, name)
    hit = _CARRIES.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    found = False
    if sig is not None and sig[0] <= _MAX_MODULE_BYTES:
        try:
            with open(path, "rb") as fh:
                found = bool(test(fh.read()))
        except OSError:
            found = False
    _CARRIES[key] = (sig, found)
    return found


def link(path: str, source: bytes, tables: Tables, own_pool: bool = True, uses: bool = False) -> Linked:
    """The definitions of the tree that the module at path (with this source) uses,
    with what they need, as source to append to it; nothing when none of them names a pool.
    own_pool: can the file's own code hold a pool (castlint.prune.own_pool_possible, the
    pruner's test on the file alone)? When not, only definitions that hand it one are linked.
    uses: link only the names that values reaching the file's own sites read
    (castlint.analysis.demand; `follow-imports = "uses"`), not every name it imports."""
    if b"import" not in source:
        return Linked()
    key = (os.path.abspath(path), hash(source), own_pool, uses)
    hit = _LINKS.get(key)
    if hit is not None and hit[0] is tables:
        found = hit[1]
    else:
        found = _link(path, source, tables, own_pool, uses)
        _LINKS[key] = (tables, found)
    if found.renames:
        _RENAMED[key[0]] = found.renames
    else:
        _RENAMED.pop(key[0], None)
    return found


_RENAMED: Dict[str, Tuple[Tuple[str, str], ...]] = {}  # path -> its last link()'s renames

_MAX_SIBLINGS = 200  # modules of a folder read for importers of a converting helper
_MAX_CALLER_BYTES = 60_000
_SIBLING_CALLS: Dict[tuple, Tuple[Tuple[str, str, str], ...]] = {}  # (path, signature) -> its importing calls


def with_importing_callers(path: str, source: bytes, tables: Tables, found: Linked) -> Linked:
    """found, with the definitions of the module's sibling modules (its folder) that import one of its
    converting top-level functions and call it appended (`from .aio import stage_layer` in connector.py,
    `from ._torch import upcast_cache` in an `except ImportError:` too): the function's parameters then
    take what those callers pass, so a helper only ever given a whole pool by its importers converts it
    and is reported at its own cast (the callers' own findings are theirs). `follow-imports = "uses"`."""
    folder, base = os.path.split(os.path.abspath(path))
    if not any(name != base for name in _folder_importers(folder).get(base[:-3], ())):
        return found  # (no sibling imports from it: the cheapest test first)
    wanted = _converting_functions(source, tables)  # (and those that hand one on: a decorator installing it)
    if not wanted:
        return found
    pieces, files, size = [], list(found.paths), 0
    for other, text in _importing_definitions(path, wanted, tables):
        if size + len(text) > _MAX_CALLER_BYTES:
            break
        pieces.append(text)
        size += len(text)
        if other not in files:
            files.append(other)
    if not pieces:
        return found
    return Linked(
        text=found.text + "\n\n" + "\n\n".join(pieces),
        paths=tuple(files),
        learned=found.learned,
        kinds=found.kinds,
        own=found.own,
        renames=found.renames,
    )


_RELATIVE_IMPORT = re.compile(rb"^[ \t]*from[ \t]+\.(\w+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_HELD_ASSIGN = re.compile(rb"^\w+[ \t]*(?::[^=\n]*)?=[^\n]*(?:\bpartial\b|\bmethodcaller\b|Tensor\.)", re.M)
_IMPORT_LINE = re.compile(
    r"^(?:import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?|from[ \t]+[\w.]+[ \t]+import[ \t]+[\w, \t]+)[ \t]*$", re.M
)


def may_link_imported_casts(path: str, source: bytes, tables: Tables) -> bool:
    """Does the file, naming a pool, import by name a cast that a sibling module holds (with_imported_casts)?"""
    return bool(_imported_casts(path, source, tables))


_IMPORTED_CASTS: Dict[tuple, tuple] = {}


def _imported_casts(path: str, source: bytes, tables: Tables) -> tuple:
    """((sibling file, [(name, definition)]), ...): the casts held as values (`to_half = partial(torch.Tensor.to,
    ...)`, `X = methodcaller("to", d)`, or a function returning one of them, with them) in the modules of the
    file's folder that it imports by name (`from .casts import to_half`). Text first: a relative import, a pool
    word in the file, a callable's word in the sibling; only then the sibling's index."""
    if b"from ." not in source or not _carries_bytes(source, tables):
        return ()
    folder = os.path.dirname(os.path.abspath(path))
    siblings = {}
    for stem, listed in _RELATIVE_IMPORT.findall(source):
        stem = stem.decode("ascii", "replace")
        other = os.path.join(folder, stem + ".py")
        text = _sibling_text(other) if stem not in siblings and os.path.isfile(other) else None
        if text is None or _HELD_ASSIGN.search(text) is None:
            continue  # (no top-level `x = partial(...)` / `methodcaller(...)` / `...Tensor.m...` in it)
        names = [
            p.split("#")[0].strip().partition(" as ")[0].strip()
            for p in listed.decode("ascii", "replace").strip("()").split(",")
        ]
        for name in filter(str.isidentifier, names):
            held = re.search(
                rb"^(?:def[ \t]+%s[ \t]*\(|%s[ \t]*(?::[^=\n]*)?=)" % (name.encode(), name.encode()), text, re.M
            )
            if held is not None:
                siblings[stem] = other
                break
    if not siblings:
        return ()
    key = (os.path.abspath(path), hash(source), id(tables), tuple(_signature(o) for o in siblings.values()))
    hit = _IMPORTED_CASTS.get(key)
    if hit is not None:
        return hit
    own = module_index(path, tables, source=source)
    out = []
    resolver = _Resolver(path, tables)
    for local, (module, attr, level) in sorted(own.imports.items()) if own is not None else ():
        if level != 1 or attr is None or module not in siblings or local in own.definitions:
            continue
        index = module_index(siblings[module], tables)
        held = index.definitions.get(attr) if index is not None else None
        if held is None:
            continue
        if held.kind == "assign" and _held_cast(held):
            chosen = [(local, held)]
        elif held.kind == "function" and _returns_held_cast(resolver, index, held):
            node = held.node if held.node is not None else _reparse(held)
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()
            chosen = [(local, held)] + [
                (n, index.definitions[n])
                for n in sorted(names)
                if n in index.definitions and index.definitions[n].kind == "assign" and _held_cast(index.definitions[n])
            ]
        else:
            continue
        chosen = [(n, d) for n, d in chosen if n not in own.definitions and (n == local or n not in own.imports)]
        if chosen:
            out.append((siblings[module], chosen))
    _IMPORTED_CASTS[key] = tuple(out)
    return _IMPORTED_CASTS[key]


def with_imported_casts(path: str, source: bytes, tables: Tables, found: Linked) -> Linked:
    """found, with the casts that sibling modules hold as values and the file imports by name appended
    (`from .casts import to_half` over `to_half = partial(torch.Tensor.to, dtype=...)`, `from .casts import
    widen_for` over `def widen_for(d): return WIDEN[d]` and `WIDEN = {dt: methodcaller("to", dt) ...}`), with
    the sibling's plain imports: a call of one in the file converts what it is given there
    (`follow-imports = "callers"`)."""
    pieces, files, imports = [], list(found.paths), set()
    for other, chosen in _imported_casts(path, source, tables):
        pieces.extend(_renamed(definition, name) for name, definition in chosen)
        text = (_sibling_text(other) or b"").decode("utf-8", "replace")
        imports.update(m.group(0) for m in _IMPORT_LINE.finditer(text))
        if other not in files:
            files.append(other)
    if not pieces:
        return found
    head = "".join(f"{line}\n" for line in sorted(imports))
    return Linked(
        text=found.text + "\n\n" + head + "\n\n".join(pieces),
        paths=tuple(files),
        learned=found.learned,
        kinds=found.kinds,
        own=found.own,
        renames=found.renames,
    )


_CLASS_HEADER = re.compile(rb"^class[ \t]+(\w+)[ \t]*(?:\(([^)]*)\))?[ \t]*:", re.M)
_SELF_CALL = re.compile(rb"\bself\s*\.\s*(\w+)\s*\(")
_DEF_NAME = re.compile(rb"^[ \t]+(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.M)
_BASE_HOOKS: Dict[tuple, Optional[Tuple[bytes, FrozenSet[str]]]] = {}  # (path, sig, class) -> (text, hooks)
_CLASS_HEADER_NL = re.compile(rb"\nclass[ \t]+(\w+)[ \t]*(?:\(([^)]*)\))?[ \t]*:")
_SIBLING_IMPORT = re.compile(rb"from[ \t]+(?:\.|[\w.]+\.)(\w+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)")


def _top_classes(source: bytes) -> Dict[str, Tuple[Tuple[str, ...], bytes]]:
    """{name: (its bases as spelled, its text)} of the module's top-level classes, by text."""
    out = {}
    starts = _top_statements(source) + [len(source)]
    for start, end in zip(starts, starts[1:]):
        found = _CLASS_HEADER.match(source, start)
        if found is None:
            continue
        spelled = (found.group(2) or b"").split(b",")
        bases = tuple(b.strip().decode("ascii", "replace") for b in spelled if b.strip() and b"=" not in b)
        out[found.group(1).decode("ascii", "replace")] = (bases, source[start:end])
    return out


def _per_step_methods(tables: Tables) -> FrozenSet[str]:
    """The methods an engine runs every step: [hot_path] entry_points and its calling conventions' methods."""
    names = set(tables.hot_path_entry_points)
    for row in tables.cache_parameters:
        names.update(row.methods)
    return frozenset(names)


def _base_hooks(path: str, name: str, tables: Tables) -> Optional[Tuple[bytes, FrozenSet[str]]]:
    """(the text of class name at path, the `self.m(...)` its per-step methods call) when it has any."""
    sig = _signature(path)
    if sig is None:
        return None
    key = (path, sig, name)
    if key not in _BASE_HOOKS:
        text = _sibling_text(path)
        found = _top_classes(text).get(name) if text and b"class" in text else None
        hooks: Set[str] = set()
        if found is not None and len(found[1]) <= _MAX_CALLER_BYTES:
            steps = _per_step_methods(tables)
            body = found[1]
            heads = list(_DEF_NAME.finditer(body)) + [None]
            for head, after in zip(heads, heads[1:]):
                if head is None or head.group(1).decode("ascii", "replace") not in steps:
                    continue
                method = body[head.start() : after.start() if after is not None else len(body)]
                for call in _SELF_CALL.finditer(method):
                    hook = call.group(1).decode("ascii", "replace")
                    line_end = method.find(b"\n", call.end())
                    passed = method[call.end() : line_end if line_end != -1 else len(method)]
                    # (a per-step method itself is followed by its convention; what the call passes must
                    # name a pool: `self._cache_for_kernel(kv_cache, query)`)
                    if hook not in steps and _carries_bytes(passed, tables):
                        hooks.add(hook)
        _BASE_HOOKS[key] = (found[1], frozenset(hooks)) if found is not None and hooks else None
    return _BASE_HOOKS[key]


def with_overridden_bases(path: str, source: bytes, tables: Tables, found: Linked) -> Linked:
    """found, with the base classes of the module's classes appended where a base comes from a sibling
    module (`from .base_impl import ImplBase`) and one of its per-step methods (rules/accessors.toml
    [hot_path] entry_points, the calling conventions' methods) calls `self.m(...)` for a method m the
    subclass overrides converting something (a hook: `_cache_for_kernel(self, kv_cache, query)`): the
    override's parameters then take what the base's call site passes, as for a base of the same module
    (the template method, ObjectFlow.return_targets). Findings in the appended base are its own module's."""
    if b"class" not in source or b"import" not in source:
        return found
    if not _sibling_stems(source):
        return found  # (nothing imported from a sibling module: the cheapest test first)
    # (by the literal `\nclass` first, far faster than `^` tried at every line; a class on the first line too)
    headers = [*_CLASS_HEADER_NL.finditer(source), *([_CLASS_HEADER.match(source)] if source[:5] == b"class" else [])]
    based = {b.strip() for m in headers if m is not None and m.group(2) for b in m.group(2).split(b",")}
    if not based:
        return found
    imported_by: Dict[str, Dict[str, str]] = {}
    for stem, listed in _SIBLING_IMPORT.findall(source):
        for part in listed.decode("ascii", "replace").strip("()").replace("\\", " ").split(","):
            name, _, alias = part.split("#")[0].partition(" as ")
            name, alias = name.strip(), alias.strip() or name.strip()
            if alias.encode() in based and name.isidentifier():
                imported_by.setdefault(stem.decode("ascii", "replace"), {})[alias] = name
    if not imported_by:
        return found  # (no class of the file is based on a name it imports from a sibling)
    stems = set(imported_by)
    words = _vocabulary(tables)[3]
    folder = os.path.dirname(os.path.abspath(path))
    pieces, files, size = [], list(found.paths), 0
    for _name, (bases, text) in _top_classes(source).items():
        own: Optional[Set[str]] = None  # (the subclass's methods that convert: those a hook call may reach)
        checked: FrozenSet[str] = frozenset()
        for base in bases:
            for stem in stems:
                imported = imported_by[stem].get(base)
                other = os.path.join(folder, stem + ".py")
                if imported is None or other == os.path.abspath(path):
                    continue
                hooks = _base_hooks(other, imported, tables)
                if hooks is None or size + len(hooks[0]) > _MAX_CALLER_BYTES:
                    continue
                if own is None or not hooks[1] <= checked:
                    heads = [h for h in _DEF_NAME.finditer(text) if h.group(1).decode("ascii", "replace") in hooks[1]]
                    own, checked = own or set(), checked | hooks[1]
                    for head in heads:
                        after = _DEF_NAME.search(text, head.end())
                        if any_word(text[head.end() : after.start() if after else len(text)], words):
                            own.add(head.group(1).decode("ascii", "replace"))
                if not hooks[1] & own:
                    continue
                text_of = hooks[0].decode("utf-8", "replace")
                if imported != base:  # `from .base import Impl as Base`: the class under the file's name
                    text_of = re.sub(rf"^class[ \t]+{re.escape(imported)}\b", f"class {base}", text_of, count=1)
                pieces.append(text_of)
                size += len(hooks[0])
                if other not in files:
                    files.append(other)
    if not pieces:
        return found
    return Linked(
        text=(found.text + "\n\n" if found.text else "") + "\n\n".join(pieces),
        paths=tuple(files),
        learned=found.learned,
        kinds=found.kinds,
        own=found.own,
        renames=found.renames,
    )


def may_link_bases(path: str, source: bytes, tables: Tables) -> bool:
    """Would with_overridden_bases append a sibling module's base class to the file?"""
    return bool(with_overridden_bases(path, source, tables, Linked()).text)


_SIBLING_TEXTS: Dict[tuple, Optional[bytes]] = {}  # (path, signature) -> its bytes (None: unreadable, too big)


def _sibling_text(path: str) -> Optional[bytes]:
    sig = _signature(path)
    key = (path, sig)
    if sig is None:
        return None  # (gone, or not a regular file)
    if key not in _SIBLING_TEXTS:
        try:
            with open(path, "rb") as handle:
                text = handle.read(_MAX_CALLER_BYTES * 20 + 1)
        except OSError:
            text = None
        _SIBLING_TEXTS[key] = text if text is not None and len(text) <= _MAX_CALLER_BYTES * 20 else None
    return _SIBLING_TEXTS[key]


def _importing_definitions(path: str, wanted: FrozenSet[str], tables: Tables) -> List[Tuple[str, str]]:
    """(file, text) of the top-level definitions of path's sibling modules that call a function of
    wanted they import from path's module, each call spelled with the function's own name, and name
    a pool (the prefilter's vocabulary: what they pass may be one)."""
    folder, base = os.path.split(os.path.abspath(path))
    stem = base[:-3]
    out = []
    # (the folder's index is shared by its modules: built from every one of them, each skipping itself)
    for name in _folder_importers(folder).get(stem, ()):
        if name == base:
            continue
        other = os.path.join(folder, name)
        sig = _signature(other)
        if sig is None:
            continue
        key = (other, sig, stem, wanted)
        calls = _SIBLING_CALLS.get(key)
        if calls is None:
            calls = _SIBLING_CALLS[key] = _calls_into(other, stem, wanted, tables)
        out.extend((other, text) for _, _, text in calls)
    return out


def _calls(text: str, function: str) -> bool:
    """Does text call function, or a method of it (`ops.dense(...)` of an exported instance,
    `Reader.for_dtype(...)` of a class), or decorate with it (`@with_readers`: it runs on the class or def),
    or bind it wrapped in a class body (`_view = staticmethod(ops.dense)`: `self._view(...)` calls it)?"""
    if function not in text:
        return False  # (the pattern holds the name: the cheap test first)
    name = re.escape(function)
    return (
        re.search(rf"\b{name}\s*(?:\.\s*\w+\s*)?\(|^[ \t]*@{name}\b", text, re.M) is not None
        or re.search(rf"^[ \t]+\w+[ \t]*=[ \t]*[\w.]+[ \t]*\([ \t]*{name}\b", text, re.M) is not None
    )


def _calls_with_pool(text: str, function: str, tables: Tables) -> bool:
    """Does text call function (or hand it on as an argument, to a callee that may call it) and name a
    pool (what it passes may be one: `buf = mgr.get_buffers(i)` a line above `ops.dequantize_pool(buf,
    ...)`)?"""
    return (_calls(text, function) or _handed(text, function)) and _carries(text, tables)


def _handed(text: str, function: str) -> bool:
    """Does text pass function as an argument, uncalled (`self._submit(name, kv_layer, whole_layer)`,
    `run(fn=whole_layer)`)? _pooled_use then asks whether a pool goes beside it."""
    if function not in text:
        return False
    name = re.escape(function)
    return re.search(rf"[(,=]\s*{name}\s*[,)]", text) is not None


def _imports_named(source: bytes, stem: str) -> Dict[str, str]:
    """{local name: name} that `from .stem import a, b as c` (or `from pkg.stem import (...)`) binds, by text."""
    pattern = rb"from[ \t]+(?:\.|[\w.]+\.)" + re.escape(stem.encode()) + rb"[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
    out: Dict[str, str] = {}
    for listed in re.findall(pattern, source):
        for part in listed.decode("ascii", "replace").strip("()").replace("\\", " ").split(","):
            name, _, alias = part.split("#")[0].partition(" as ")
            name, alias = name.strip(), alias.strip() or name.strip()
            if name.isidentifier() and alias.isidentifier():
                out[alias] = name
    return out


_FROM_SIBLING = re.compile(rb"^[ \t]*from[ \t]+(?:\.|[\w.]+\.)(\w+)[ \t]+import", re.M)
_FROM_PACKAGE = re.compile(rb"^[ \t]*from[ \t]+\.[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
# (the same without the line's start: searched for by their literal `from`, far faster than `^` tried at
# every line; a match is kept where only blanks precede it on its line, _line_started)
_FROM_SIBLING_LOOSE = re.compile(rb"from[ \t]+(?:\.|[\w.]+\.)(\w+)[ \t]+import")
_FROM_PACKAGE_LOOSE = re.compile(rb"from[ \t]+\.[ \t]+import")


def _line_started(source: bytes, at: int) -> bool:
    """Do only blanks (spaces, tabs) precede offset at on its line?"""
    return not source[source.rfind(b"\n", 0, at) + 1 : at].strip(b" \t")


def _sibling_stems(source: bytes) -> List[bytes]:
    """_FROM_SIBLING.findall(source), by the literal `from` first. (A match of the loose pattern lies on
    one line, so one not at a line's start cannot overlap one that is.)"""
    return [m.group(1) for m in _FROM_SIBLING_LOOSE.finditer(source) if _line_started(source, m.start())]


def _from_package(source: bytes) -> List[bytes]:
    """_FROM_PACKAGE.findall(source), none without a loose match first (`from . import` anywhere)."""
    return _FROM_PACKAGE.findall(source) if _FROM_PACKAGE_LOOSE.search(source) is not None else []


def _modules_imported(source: bytes) -> Set[bytes]:
    """The sibling modules `from . import ops, quant as q` names, by text."""
    out: Set[bytes] = set()
    for listed in _from_package(source):
        for part in listed.strip(b"()").replace(b"\\", b" ").split(b","):
            name = part.split(b"#")[0].split(b" as ")[0].strip()
            if name.decode("ascii", "replace").isidentifier():
                out.add(name)
    return out


_IMPORTERS: Dict[tuple, Dict[str, Tuple[str, ...]]] = {}  # (folder, its mtime) -> {module stem: importers}


def _folder_importers(folder: str) -> Dict[str, Tuple[str, ...]]:
    """{module stem: the files of folder that import from a module of that name}, by text, once per
    folder version (at most _MAX_SIBLINGS files read)."""
    try:
        key = (folder, os.stat(folder).st_mtime_ns)
    except OSError:
        return {}
    found = _IMPORTERS.get(key)
    if found is None:
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".py"))
        except OSError:
            names = []
        by: Dict[str, List[str]] = {}
        reexported = _reexported(folder)
        for name in names[:_MAX_SIBLINGS]:
            text = _sibling_text(os.path.join(folder, name))
            stems = set(_sibling_stems(text or b"")) | _modules_imported(text or b"")
            if reexported and text:  # `from . import CacheReader` of the package's `from .reader import CacheReader`
                stems |= {reexported[n][0].encode() for n in _package_names(text, folder).values() if n in reexported}
            for stem in stems:
                by.setdefault(stem.decode("ascii", "replace"), []).append(name)
        found = _IMPORTERS[key] = {stem: tuple(files) for stem, files in by.items()}
    return found


def _reexported(folder: str) -> Dict[str, Tuple[str, str]]:
    """{name: (module stem, its name there)} that the folder's `__init__.py` re-exports from its modules
    (`from .reader import CacheReader`, `from .ops import dense as dense_latent`), by text."""
    init = os.path.join(folder, "__init__.py")
    text = _sibling_text(init) if os.path.exists(init) else None
    out: Dict[str, Tuple[str, str]] = {}
    if not text or b"from ." not in text:
        return out
    for stem in {m.decode("ascii", "replace") for m in _sibling_stems(text)}:
        for alias, name in _imports_named(text, stem).items():
            out[alias] = (stem, name)
    return out


def _package_names(source: bytes, folder: str) -> Dict[str, str]:
    """{local name: name} that a module of folder imports from its own package (`from . import a as b`,
    `from pkg.folder import a`), by text."""
    out: Dict[str, str] = {}
    package = re.escape(os.path.basename(folder).encode())
    found = re.findall(rb"from[ \t]+(?:\.|[\w.]+\.)?" + package + rb"[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", source)
    for listed in found + _from_package(source):
        for part in listed.decode("ascii", "replace").strip("()").replace("\\", " ").split(","):
            name, _, alias = part.split("#")[0].partition(" as ")
            name, alias = name.strip(), alias.strip() or name.strip()
            if name.isidentifier() and alias.isidentifier():
                out[alias] = name
    return out


class _Sibling:
    """What the importers' search reads of one sibling module, worked out once a process: its text,
    whether it names a pool, its top-level definitions as text spans, and (on first need) each span parsed."""

    def __init__(self, source: bytes, tables: Tables):
        self.source = source
        self._text: Optional[str] = None
        self.carries = _carries_bytes(source, tables)
        self._spans: Optional[list] = None
        self._trees: Dict[bytes, Optional[ast.AST]] = {}

    @property
    def text(self) -> str:
        """The source decoded (on first need: most siblings name no pool, and are never read further)."""
        if self._text is None:
            self._text = self.source.decode("utf-8", "replace")
        return self._text

    def spans(self) -> List[Tuple[str, bytes]]:
        """(name, text) of each top-level def or class, decorators included, by text (once)."""
        if self._spans is None:
            self._spans = _top_spans(self.source)
        return self._spans

    def definition(self, text: bytes) -> Optional[ast.AST]:
        """A span's definition, parsed on its own (its line numbers start at 1); None when it does not
        parse alone (a column-0 string inside it)."""
        found = self._trees.get(text, False)
        if found is False:
            try:
                body = ast.parse(text).body
            except (SyntaxError, ValueError):
                body = []
            found = self._trees[text] = body[0] if len(body) == 1 else None
        return found


_SPAN_START = re.compile(rb"^(?:@|(?:async[ \t]+)?def[ \t]|class[ \t])", re.M)


def _top_spans(source: bytes) -> List[Tuple[str, bytes]]:
    """(name, text) of the top-level definitions of source, each from its first decorator to the
    next statement at column 0, by text."""
    starts = sorted(set(_top_statements(source)) | {m.start() for m in _SPAN_START.finditer(source)})
    out = []
    previous_decorator = False
    merged: List[int] = []
    for start in starts:
        decorator = source.startswith(b"@", start)
        if merged and previous_decorator:
            previous_decorator = decorator
            continue  # (a decorator's definition: one span)
        merged.append(start)
        previous_decorator = decorator
    merged.append(len(source))
    for start, end in zip(merged, merged[1:]):
        text = source[start:end]
        found = _TOP_DEFINITION.search(text)
        if found is not None and _SPAN_START.match(text):
            out.append((found.group(1).decode("ascii", "replace"), text))
    return out


def _without_imports(lines: List[str], first: int, imports: Sequence[ast.ImportFrom]) -> str:
    """The text of a definition starting at line first, each of the given imports inside it (a
    function-local `from .ops import widen`) made a `pass` of the same lines: the linked module
    defines what they import, and an import left there would hide it."""
    lines = list(lines)
    for node in imports:
        start, end = node.lineno - first, (node.end_lineno or node.lineno) - first
        if 0 <= start < len(lines):
            head = lines[start]
            lines[start] = head[: len(head) - len(head.lstrip())] + "pass\n"
            for i in range(start + 1, min(end + 1, len(lines))):
                lines[i] = "\n"
    return "".join(lines)


_SIBLINGS: Dict[tuple, Optional[_Sibling]] = {}  # (path, signature, table set) -> what the search reads of it


def _sibling(path: str, tables: Tables) -> Optional[_Sibling]:
    key = (path, _signature(path), id(tables))
    if key not in _SIBLINGS:
        source = _sibling_text(path)
        _SIBLINGS[key] = None if source is None else _Sibling(source, tables)
    return _SIBLINGS[key]


def _calls_into(path: str, stem: str, wanted: FrozenSet[str], tables: Tables) -> Tuple[Tuple[str, str, str], ...]:
    """(local name, function, text) for each top-level definition of the module at path that calls a
    function of wanted imported from its sibling module stem (at any level: a `try`/`except
    ImportError` alternative too) on a line that names a pool."""
    sibling = _sibling(path, tables)
    if sibling is None or not sibling.carries:
        return ()  # (no name of a pool anywhere in it)
    named = _imports_named(sibling.source, stem)
    reexported = _reexported(os.path.dirname(path))
    if reexported:  # a name of stem the package's `__init__.py` re-exports, imported from the package
        for alias, name in _package_names(sibling.source, os.path.dirname(path)).items():
            source_of = reexported.get(name)  # (module stem, its name there)
            if source_of is not None and source_of[0] == stem:
                named[alias] = source_of[1]
    if stem.encode() in _modules_imported(sibling.source):
        named.update({f"{stem}.{function}": function for function in wanted})  # (an alias: the parse decides)
    local = {held: n for held, n in named.items() if n in wanted}
    modules = _module_aliases(sibling.source, stem)
    for module in modules:
        local.update({f"{module}.{function}": function for function in wanted})
    # `getattr(ops, f"dequant_{name}")`: a function of the module picked by a computed name
    picking = _picking(sibling.text, modules, tables)
    if not picking and not any(_calls(sibling.text, held) or _handed(sibling.text, held) for held in local):
        return ()  # (text first: no parse unless it calls one of them or hands one on)
    out = []
    spelled = [held.encode() for held in local]
    for name, raw in sibling.spans():
        if name in local:
            continue
        if not picking and not any(word in raw for word in spelled):
            continue  # (a call of one spells its name: _calls_with_pool finds none)
        text = raw.decode("utf-8", "replace")
        helds = [held for held in local if _calls_with_pool(text, held, tables)]
        picked: List[str] = []
        if picking and _picking(text, modules, tables) and _carries(text, tables):
            node = sibling.definition(raw)
            text, picked = _picked_by_name(text, node, modules, wanted, tables) if node is not None else (text, [])
        if not helds and not picked:
            continue
        node = sibling.definition(raw) if not picked else _parsed_alone(text)
        if node is None:
            continue
        local.update({function: function for function in picked})
        helds += [function for function in picked if function not in helds]
        lines = text.splitlines(keepends=True)
        called = [(held, local[held]) for held in helds if _pooled_use(node, held, tables, lines, 1)]
        if not called:
            continue
        text = _without_imports(lines, 1, _imports_of_stem(node, stem, wanted))
        for held, function in called:
            if held != function:
                text = re.sub(rf"\b{re.escape(held)}\b", function, text)
        out.append((called[0][0], called[0][1], text if text.endswith("\n") else text + "\n"))
    return tuple(out)


def _picking(text: str, modules: List[str], tables: Tables) -> bool:
    """Does text read an attribute of one of the module names by a name ([callables] attribute_getters:
    `getattr(ops, ...)`), by text?"""
    if not modules:
        return False
    getters = "|".join(re.escape(g.rsplit(".", 1)[-1]) for g in sorted(tables.attribute_getters))
    names = "|".join(re.escape(m) for m in modules)
    return re.search(rf"\b(?:{getters})\s*\(\s*(?:{names})\s*,", text) is not None


def _parsed_alone(text: str) -> Optional[ast.AST]:
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    return body[0] if len(body) == 1 else None


def _picked_by_name(
    text: str, node: ast.AST, modules: List[str], wanted: FrozenSet[str], tables: Tables
) -> Tuple[str, List[str]]:
    """text with each `getattr(module, name)` of the module names made a choice among the functions of
    wanted that name may spell (`(dequant_int8 if __name__ else dequant_fp8)`: the flow model takes
    either), and those functions. A constant names one; an f-string, a `+` or a `%` of constant parts
    the functions those parts match; any other name every function of wanted."""
    getters = {g.rsplit(".", 1)[-1] for g in tables.attribute_getters}

    def picks(n: ast.AST) -> bool:
        return (
            type(n) is ast.Call
            and len(n.args) >= 2
            and type(n.args[0]) is ast.Name
            and n.args[0].id in modules
            and (
                (type(n.func) is ast.Name and n.func.id in getters)
                or (type(n.func) is ast.Attribute and n.func.attr in getters)
            )
        )

    lines = text.splitlines(keepends=True)

    def span(n: ast.AST) -> str:  # (the text of n)
        first, last = n.lineno - 1, (n.end_lineno or n.lineno) - 1
        if first == last:
            return lines[first].encode("utf-8")[n.col_offset : n.end_col_offset].decode("utf-8", "replace")
        head = lines[first].encode("utf-8")[n.col_offset :].decode("utf-8", "replace")
        tail = lines[last].encode("utf-8")[: n.end_col_offset].decode("utf-8", "replace")
        return head + "".join(lines[first + 1 : last]) + tail

    called = {id(n.func): n for n in ast.walk(node) if type(n) is ast.Call and picks(n.func)}
    edits = []  # (the node replaced, the functions, the call's arguments after it: `(kv_cache, dtype)`)
    for n in ast.walk(node):
        if picks(n):
            pattern = _name_pattern(n.args[1])
            names = sorted(f for f in wanted if pattern.fullmatch(f))
            outer = called.get(id(n))
            rest = span(outer)[len(span(n)) :] if outer is not None else ""
            if names and "#" not in rest:
                edits.append((outer or n, names, " ".join(rest.split())))
    if not edits:
        return text, []
    picked: List[str] = []
    for n, names, rest in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        # `getattr(m, name)(x)` is `(f(x) if _ else g(x))`: the flow model follows a call of each
        first, last = n.lineno - 1, (n.end_lineno or n.lineno) - 1
        head = lines[first].encode("utf-8")[: n.col_offset].decode("utf-8", "replace")
        tail = lines[last].encode("utf-8")[n.end_col_offset :].decode("utf-8", "replace")
        choice = names[0] + rest if len(names) == 1 else "(" + " if __name__ else ".join(f + rest for f in names) + ")"
        lines[first] = head + choice + tail
        for i in range(first + 1, last + 1):
            lines[i] = "\n"
        picked += [f for f in names if f not in picked]
    return "".join(lines), picked


def _name_pattern(expr: ast.AST) -> "re.Pattern[str]":
    """What names expr may spell, as a pattern: its constant parts, anything between."""
    kind = type(expr)
    if kind is ast.Constant and type(expr.value) is str:
        return re.compile(re.escape(expr.value))
    parts: Optional[list] = None
    if kind is ast.JoinedStr:
        parts = expr.values
    elif kind is ast.BinOp and type(expr.op) in (ast.Add, ast.Mod):
        parts = [expr.left, expr.right] if type(expr.op) is ast.Add else None
        if type(expr.op) is ast.Mod and type(expr.left) is ast.Constant and type(expr.left.value) is str:
            return re.compile(
                ".*".join(re.escape(p) for p in re.split(r"%[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]", expr.left.value))
            )
    if parts is None:
        return re.compile(r"\w+")
    return re.compile(
        "".join(re.escape(p.value) if type(p) is ast.Constant and type(p.value) is str else r"\w*" for p in parts)
    )


def _module_aliases(source: bytes, stem: str) -> List[str]:
    """The names `from . import stem` (or `... as alias`) binds, by text."""
    out = []
    for listed in _from_package(source):
        for part in listed.strip(b"()").replace(b"\\", b" ").split(b","):
            name, _, alias = part.split(b"#")[0].partition(b" as ")
            if name.strip() == stem.encode():
                out.append((alias.strip() or name.strip()).decode("ascii", "replace"))
    return out


def _imports_of_stem(node: ast.AST, stem: str, wanted: FrozenSet[str]) -> List[ast.ImportFrom]:
    """The `from .stem import ...` statements inside a definition that bind one of wanted."""
    return [
        n
        for n in ast.walk(node)
        if type(n) is ast.ImportFrom
        and ((n.level == 1 and n.module == stem) or (n.level == 0 and (n.module or "").endswith("." + stem)))
        and any(a.name in wanted for a in n.names)
    ]


def _identifiers(node: ast.AST) -> str:
    """The names and attribute names under node, space-separated (what the pool vocabulary is matched on)."""
    return " ".join(
        n.id if type(n) is ast.Name else n.attr for n in ast.walk(node) if type(n) in (ast.Name, ast.Attribute)
    )


def _pooled_use(definition: ast.AST, held: str, tables: Tables, lines: List[str], first: int) -> bool:
    """Does a use of held in the definition (a sibling's top-level def or class) hand it what may be
    a pool? A call one of whose arguments names a pool, or a name or `self.x` bound from one (an
    assignment, a loop, a `with`, a parameter named as one, through other such names), or whose
    result is then called or sent such an argument (`gen = held(d); gen.send(kv_cache)`,
    `self.reader = Reader(); self.reader.dense(cache)`); a decorator use on a definition that names
    a pool; a reference passed on (`partial(held, ...)`, `map(held, caches)`) beside such an
    argument. The text gate before it (_calls_with_pool) only saw a call and a pool word somewhere
    in the definition: a whole nn.Module class that names the pool and calls a helper on its
    activations was linked for nothing. Names are resolved on demand, from the arguments back."""
    carries = _vocabulary(tables)[2].search
    dotted = held.split(".")
    is_class = type(definition) is ast.ClassDef
    if is_class and any(_is_held(d, dotted) for d in definition.decorator_list):
        return any(_names_pool(w, carries) for w in _identifiers(definition).split())
    units = [n for n in definition.body if type(n) in (ast.FunctionDef, ast.AsyncFunctionDef)] if is_class else []
    units = units or [definition]

    def text_of(node: ast.AST) -> str:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        return "".join(lines[start - first : (node.end_lineno or node.lineno) - first + 1])

    texts = [text_of(u) for u in units]
    name = dotted[-1]
    made_self = set()  # `self.x` bound to what calling held returns (`self.reader = Reader()`)
    if is_class:  # a class attribute wrapping held (`_view = staticmethod(held)`): `self._view(x)` calls it
        for node in definition.body:
            if type(node) is ast.Assign and (
                type(node.value) is ast.Call and any(_is_held(a, dotted) for a in node.value.args)
            ):
                made_self.update(t.id for t in node.targets if type(t) is ast.Name)
    for unit, text in zip(units, texts):
        if name in text:
            for node in ast.walk(unit):
                if type(node) is ast.Assign and _makes(node.value, dotted):
                    made_self.update(_self_attr(t) for t in node.targets if _self_attr(t))
    functions = [u for u, t in zip(units, texts) if name in t or any(f"self.{a}" in t for a in made_self)]
    self_values: List[Optional[Dict[str, List[ast.AST]]]] = [None]

    def self_bound() -> Dict[str, List[ast.AST]]:
        if self_values[0] is None:
            self_values[0] = _bound_values(list(ast.walk(definition)), self_attrs=True) if is_class else {}
        return self_values[0]

    for function in functions:
        nodes = list(ast.walk(function))
        if any(_is_held(d, dotted) for d in getattr(function, "decorator_list", ())):
            if any(_names_pool(w, carries) for w in _identifiers(function).split()):
                return True
        made = {
            t.id
            for node in nodes
            if type(node) is ast.Assign and _makes(node.value, dotted)
            for t in node.targets
            if type(t) is ast.Name
        }
        arguments = []
        for node in nodes:
            if type(node) is ast.Call:
                given = [*node.args, *(k.value for k in node.keywords)]
                if _is_held_or_member(node.func, dotted) or _made_by(node.func, made, made_self):
                    arguments.extend(given)
                elif any(_is_held(a, dotted) for a in given):  # `partial(held, ...)`, `map(held, xs)`
                    arguments.extend(given)
        if not arguments:
            continue
        bound = _bound_values(nodes)
        params = {a.arg for a in ast.walk(function.args) if type(a) is ast.arg} if hasattr(function, "args") else set()
        memo: Dict[str, bool] = {}

        def pooled_name(name: str, key: str, values) -> bool:
            if key not in memo:
                memo[key] = False  # (a cycle adds nothing)
                memo[key] = _names_pool(name, carries) or any(pooled(v) for v in values)
            return memo[key]

        def pooled(expr: ast.AST) -> bool:
            for n in ast.walk(expr):
                kind = type(n)
                if kind is ast.Name:
                    if n.id in bound or n.id in params:
                        if pooled_name(n.id, n.id, bound.get(n.id, ())):
                            return True
                    elif _names_pool(n.id, carries):
                        return True
                elif kind is ast.Attribute:
                    if _names_pool(n.attr, carries):
                        return True
                    attr = _self_attr(n)
                    if attr and pooled_name(attr, "self." + attr, self_bound().get("self." + attr, ())):
                        return True
                elif kind is ast.Constant and type(n.value) is str and n.value.isidentifier():
                    if _names_pool(n.value, carries):  # `kwargs["past_key_values"]`, `get_manager("kv_cache_manager")`
                        return True
            return False

        if any(pooled(a) for a in arguments):
            return True
    return False


def _is_held_or_member(node: ast.AST, dotted: List[str]) -> bool:
    """held, or a method or classmethod of it (`ops.dense`, `Reader.for_dtype`)?"""
    return _is_held(node, dotted) or (type(node) is ast.Attribute and _is_held(node.value, dotted))


def _makes(value: ast.AST, dotted: List[str]) -> bool:
    """Does a name bound to value hold held, or what calling it (or a method or classmethod of it)
    returns: `held(...)`, `Reader.for_dtype(...)`, `fn = held`, `fn = (held if int8 else other)`?"""
    kind = type(value)
    if kind is ast.Call:
        return _is_held_or_member(value.func, dotted)
    if kind is ast.IfExp:
        return _makes(value.body, dotted) or _makes(value.orelse, dotted)
    if kind is ast.BoolOp:
        return any(_makes(v, dotted) for v in value.values)
    return _is_held(value, dotted)


def _self_attr(node: ast.AST) -> Optional[str]:
    """x of `self.x`, else None."""
    if type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
        return node.attr
    return None


def _made_by(func: ast.AST, made: Set[str], made_self: Set[str]) -> bool:
    """Does func call (or call a method of) what a call of held made: `gen(...)`, `gen.send(...)`,
    `self.reader(...)`, `self.reader.dense(...)`?"""
    for node in (func, func.value if type(func) is ast.Attribute else None):
        if type(node) is ast.Name and node.id in made:
            return True
        if type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
            if node.attr in made_self:
                return True
    return False


def _is_held(node: ast.AST, dotted: List[str]) -> bool:
    """Is node the name `f` (or `mod.f`) that dotted spells?"""
    if len(dotted) == 1:
        return type(node) is ast.Name and node.id == dotted[0]
    return (
        type(node) is ast.Attribute
        and node.attr == dotted[-1]
        and type(node.value) is ast.Name
        and node.value.id == dotted[-2]
    )


def _bound_values(nodes: list, self_attrs: bool = False) -> Dict[str, List[ast.AST]]:
    """{name: the expressions it is bound from} among nodes (assignments, loops, `with ... as`,
    comprehensions); with self_attrs, `self.x` targets under "self.x"."""
    out: Dict[str, List[ast.AST]] = {}

    def bind(target: ast.AST, value: ast.AST) -> None:
        if type(target) is ast.Name and not self_attrs:
            out.setdefault(target.id, []).append(value)
        elif type(target) is ast.Attribute and self_attrs and type(target.value) is ast.Name:
            if target.value.id == "self":
                out.setdefault("self." + target.attr, []).append(value)
        elif type(target) in (ast.Tuple, ast.List):
            for element in target.elts:
                bind(element.value if type(element) is ast.Starred else element, value)

    for node in nodes:
        kind = type(node)
        if kind is ast.Assign:
            for target in node.targets:
                bind(target, node.value)
        elif kind in (ast.AnnAssign, ast.AugAssign, ast.NamedExpr) and node.value is not None:
            bind(node.target, node.value)
        elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
            bind(node.target, node.iter)
        elif kind is ast.withitem and node.optional_vars is not None:
            bind(node.optional_vars, node.context_expr)
    return out


def _names_pool(word: str, carries) -> bool:
    """Is word one of the pool vocabulary's names, alone or as an attribute or a call (`kv_cache`,
    `.k_buffer`, `.get_key_buffer(`)?"""
    return any(carries(form) is not None for form in (word, f".{word} ", f".{word}("))


def _imports_matter(resolver: _Resolver, own: ModuleIndex, imported: Tuple[str, Optional[str], int]) -> bool:
    """Can the import reach a module of the tree that matters (Resolver.read would read it)?"""
    module, attr, level = imported
    for dotted in [module, f"{module}.{attr}" if module else attr] if attr else [module]:
        if not dotted and not level:
            continue
        target = resolver.module_file(own, dotted, level)
        if target is not None and (
            os.path.basename(target) == "__init__.py"
            or _file_reaches(target, resolver.tables, resolver.converting)
            or (resolver.plans and _file_plans(target, resolver.tables))
        ):
            return True
    return False


def _link(path: str, source: bytes, tables: Tables, own_pool_possible: bool = True, uses: bool = False) -> Linked:
    own = module_index(path, tables, source=source)
    if own is None or not own.imports:
        return Linked()
    resolver = _Resolver(path, tables)
    resolver.plans = _plan_calls(tables).search(source.decode("utf-8", "replace")) is not None
    resolver.converting = own.carries and own_pool_possible
    if not any(_imports_matter(resolver, own, imported) for imported in own.imports.values()):
        return Linked()  # (before the walk of the module's names)
    own_converts = any(word in source for word in _vocabulary(tables)[3])
    wanted = _demand(own, resolver, tables) if uses else None
    roots = []  # (emitted name, module index, definition, the dotted name the file reads)
    for local in own.imports:
        if wanted is not None:  # (no walk of the whole file's names)
            names = sorted(n for n in wanted if n == local or n.startswith(local + "."))
        else:
            names = ([local] if local in own.used else []) + sorted(n for n in own.chains if n.startswith(local + "."))
        for name in names:
            found = resolver.resolve(own, name)
            if found is None:
                continue
            emitted = local if name == local else name.replace(".", "_")
            if emitted != local and (emitted in own.used or emitted in own.definitions):
                continue  # `m_f` is a name of the file already: no rename
            roots.append((emitted, found[0], found[1], name))
    # the file has a pool when it names one or a definition it uses hands it one (a base class)
    # the file has a pool when it names one or a definition it uses hands it one: itself or
    # through its bases (a helper its body calls hands the pool to it, not to the file)
    taught = frozenset().union(*(m.learned for m in resolver.visited.values()))
    own_pool = (
        (own.carries and own_pool_possible)
        or (own_converts and any(_hands_pool(resolver, index, d) for _, index, d, _ in roots))
        or any(f".{name}(".encode() in source for name in taught)
    )  # an accessor a pool class teaches
    roots = [
        root
        for root in roots
        if _useful_root(root[2], own_pool, own_converts, resolver.plans)
        # a class whose own body hands nothing, over a base (any modules away) that does
        or (own_converts and root[2].kind == "class" and _hands_pool(resolver, root[1], root[2]))
        # a partial (or alias) of a converting function, given the file's pool
        or (root[2].kind == "assign" and _converting_holder(resolver, root[1], root[2]))
        # a function that hands out a cast its module holds (`widen_for(dtype)` -> `methodcaller("to", dtype)`)
        or (root[2].kind == "function" and _returns_held_cast(resolver, root[1], root[2]))
    ]
    closures = [_closure(resolver, index, d, emitted) for emitted, index, d, _ in roots]
    # accessors the pool classes of the modules it imports define (their calls read a whole pool)
    teachers = [m for m in resolver.visited.values() if m.learned - set(tables.accessors)]
    learned = frozenset().union(*(m.learned for m in teachers)) - set(tables.accessors)
    kinds = tuple(sorted({k for m in teachers for k in m.kinds if k[0] in learned}))
    files = [m.path for m in teachers]
    taken: Dict[str, Tuple[str, str]] = {}  # emitted name -> (file, definition name)
    pieces: List[str] = []
    size = 0
    renames: List[Tuple[str, str]] = []
    for (emitted, _, _, dotted), closure in zip(roots, closures):
        if not closure:
            continue
        if emitted != dotted:
            renames.append((dotted, emitted))
        for name, where, d, inner in closure:
            if name in own.definitions or name in taken:
                continue
            if size + len(d.text) > _MAX_LINKED_BYTES:
                break
            taken[name] = (where.path, d.name)
            pieces.append(_renamed(d, name, inner))
            size += len(d.text)
            if where.path not in files:
                files.append(where.path)
    if not pieces:
        return Linked(paths=tuple(files), learned=learned, kinds=kinds)
    renamed = _rename_chains(source, own, [r for r in renames if r[1] in taken])
    text = "\n\n" + "\n\n".join(pieces)
    return Linked(
        text=text,
        paths=tuple(files),
        learned=learned,
        kinds=kinds,
        own=renamed,
        renames=tuple(r for r in renames if r[1] in taken),
    )


def _demand(own: ModuleIndex, resolver: "_Resolver", tables: Tables) -> FrozenSet[str]:
    """The imported names the file's own sites need (castlint.analysis.demand)."""
    from castlint.analysis import demand

    if own.tree is None:
        return frozenset()

    def acts(name: str) -> bool:  # converts what it is given, or plans
        if name.partition(".")[0] not in own.imports:
            return False
        named = resolver.resolve(own, name)
        if named is not None and _held_cast(named[1]):
            return True  # `to_half = partial(torch.Tensor.to, dtype=...)`: calling it converts
        found = _held_function(resolver, named)
        return found is not None and (found[1].converts or found[1].plans)

    return demand.demanded(own.tree, tables, acts)


_HELD = re.compile(r"(?:(?:functools\.)?partial\(\s*)?([A-Za-z_][\w.]*)\s*(?:[,)]|$)")
_HOLDERS = re.compile(r"\b(?:partial|namedtuple|NamedTuple|getattr|lambda|methodcaller)\b")


_MAX_CLASS_LINES = 600  # a bigger class is linked only as a base (a model runner, a scheduler)
_SMALL_PASSING_CLASS_LINES = 200  # a bigger class that only passes a value through is not linked


def _held_cast(definition: Definition) -> bool:
    """An assignment that holds a cast uncalled (`to_half = functools.partial(torch.Tensor.to, dtype=...)`,
    `up = methodcaller("float")`, a lambda that converts): calling it converts what it is given."""
    return (
        definition.kind == "assign"
        and definition.converts
        and (_HOLDERS.search(definition.text) is not None or "Tensor." in definition.text)
    )


def _converting_holder(resolver: _Resolver, index: ModuleIndex, definition: Definition) -> bool:
    if _held_cast(definition):
        return True
    found = _held_function(resolver, (index, definition))
    if found is not None and found[1].kind == "function" and found[1].converts:
        return True
    return found is not None and _returns_held_cast(resolver, *found)


def _returns_held_cast(resolver: _Resolver, index: ModuleIndex, definition: Definition) -> bool:
    """A small function that returns a cast its module holds uncalled, or an element of a table of them
    (`def widen_for(d): return WIDEN[d]` over `WIDEN = {dt: methodcaller("to", dt) for dt in ...}`): what it
    returns converts what it is given, wherever it is called."""
    if definition.kind != "function" or not _small(definition) or "return" not in definition.text:
        return False
    node = definition.node if definition.node is not None else _reparse(definition)
    if node is None:
        return False
    names = {
        sub.id
        for ret in ast.walk(node)
        if isinstance(ret, ast.Return) and ret.value is not None
        for sub in ast.walk(ret.value)
        if isinstance(sub, ast.Name)
    }
    for name in sorted(names & set(index.definitions)):
        held = index.definitions[name]
        if held.kind == "assign" and _held_cast(held):
            return True
    return False


def _held_function(resolver: _Resolver, found):
    """(module, definition) of the function that found names: itself, or what an assignment
    holds (`to_half = partial(_cast, dtype=...)`, `cast = _cast`), through the tree; else None."""
    for _ in range(_MAX_DEPTH):
        if found is None or found[1].kind != "assign":
            break
        held = _HELD.match(found[1].text.split("=", 1)[-1].strip())
        found = resolver.resolve(found[0], held.group(1)) if held is not None else None
    return found if found is not None and found[1].kind != "assign" else None


def _useful_root(definition: Definition, own_pool: bool, own_converts: bool, own_plans: bool = False) -> bool:
    """Can linking this definition (which the file uses) give the file a finding of its own?
    A finding is a conversion in the file's lines (or a call of a conversion the linked code
    makes: reported where the file passes a pool). So: the file converts something, and the
    definition hands it a pool, or passes through or converts a pool the file has. CL002's:
    a plan helper the file calls (a mixin's method, a module function that plans), and, for
    a file that plans, the helpers that give its plan dtypes."""
    if definition.plans and not (definition.kind == "class" and definition.text.count("\n") > _MAX_CLASS_LINES):
        return True
    if own_plans and definition.kind != "class" and _small(definition) and definition.gives_dtypes:
        return True
    if not own_converts:
        return definition.converts and definition.kind == "function"
    if definition.kind == "class" and definition.text.count("\n") > _MAX_CLASS_LINES:
        return False
    if definition.kind == "assign":
        return definition.carries or _HOLDERS.search(definition.text) is not None
    if definition.provides:
        return True
    if definition.kind == "class" and definition.text.count("\n") > _SMALL_PASSING_CLASS_LINES:
        return False  # a layer or a model that passes its input on (forward(x) -> f(x)), not a reader
    return own_pool and (definition.passes or definition.converts)


def _hands_pool(resolver: _Resolver, index: ModuleIndex, definition: Definition, depth: int = 0) -> bool:
    """Does the definition, or a base of it across the tree, hand its user a pool (Definition.provides)?"""
    if definition.provides:
        return True
    if depth >= _MAX_DEPTH:
        return False
    for base in definition.bases:
        found = resolver.resolve(index, base)
        if found is not None and _hands_pool(resolver, found[0], found[1], depth + 1):
            return True
    return False


def _useful_ref(definition: Definition) -> bool:
    """Is a definition that a linked one names worth linking after it? A pool it hands back,
    a small helper that passes a value through or converts it, a record or partial."""
    if definition.kind == "assign":
        return definition.carries or _HOLDERS.search(definition.text) is not None
    if definition.kind == "class" and definition.text.count("\n") > _MAX_CLASS_LINES:
        return False
    if definition.provides:
        return True
    if definition.kind != "class" and _small(definition) and definition.plans:
        return True  # a plan helper
    return definition.kind == "function" and _small(definition) and (definition.passes or definition.converts)


def _closure(resolver: _Resolver, index: ModuleIndex, definition: Definition, emitted: str):
    """[(emitted name, module index, definition, dotted names its text reads as renamed)]:
    the definition and what it needs from its module and the tree: its bases when they (or
    their own bases, across any number of modules) matter, and the helpers, classes and
    records it names that _useful_ref keeps; [] when a class and its bases do nothing."""
    out = []
    seen: Set[tuple] = set()

    def visit(where: ModuleIndex, current: Definition, name: str, depth: int) -> bool:
        key = (where.path, current.name)
        if key in seen:
            return True
        seen.add(key)
        slot = len(out)
        out.append(None)
        inner: Set[str] = set()
        kept_base = False
        if depth < _MAX_DEPTH:
            for base in current.bases:
                found = resolver.resolve(where, base)
                if found is not None and visit(found[0], found[1], base.rpartition(".")[2], depth + 1):
                    kept_base = True
        useful = (
            current.provides
            or current.passes
            or current.converts
            or current.plans
            or current.kind == "assign"
            or kept_base
        )
        if not useful and current.kind == "class":
            del out[slot:]
            seen.discard(key)
            return False
        if depth < _MAX_DEPTH:
            for ref in sorted(current.refs):
                found = resolver.resolve(where, ref)
                if found is None or (found[0].path, found[1].name) in seen or not _useful_ref(found[1]):
                    continue
                if "." in ref:
                    inner.add(ref)
                visit(found[0], found[1], ref.replace(".", "_") if "." in ref else ref, depth + 1)
        out[slot] = (name, where, current, frozenset(inner))
        return True

    visit(index, definition, emitted, 0)
    return [entry for entry in out if entry is not None]


def _small(definition: Definition) -> bool:
    """A helper or an assignment small enough to link whatever it names: it may pass a
    pool through (a view, a reshape, a partial of an accessor)."""
    return definition.kind == "assign" or (
        definition.kind == "function" and definition.text.count("\n") <= _SMALL_FUNCTION_LINES
    )


def _renamed(definition: Definition, name: str, inner=()) -> str:
    """definition's text with `name` as the name it defines, and the module attributes it
    reads (`common.f`) under the names they are linked by (`common_f`)."""
    text = definition.text
    for dotted in sorted(inner, key=len, reverse=True):
        text = re.sub(rf"(?<![\w.]){re.escape(dotted)}\b", dotted.replace(".", "_"), text)
    if name == definition.name:
        return text
    lines = text.splitlines(keepends=True)
    header = lines[definition.header]
    pattern = (
        rf"^(\s*(?:async\s+)?(?:class|def)\s+){re.escape(definition.name)}\b"
        if definition.kind != "assign"
        else rf"^(){re.escape(definition.name)}\b"
    )
    lines[definition.header] = re.sub(pattern, lambda m: m.group(1) + name, header, count=1)
    return "".join(lines)


def _rename_chains(source: bytes, own: ModuleIndex, renames: List[Tuple[str, str]]) -> bytes:
    """source with each module attribute the file reads through a linked definition
    (`mod.f`, `pkg.mod.X`) spelled as the linked name (`mod_f`): the same length, so every
    line and column stays where it is. b"" when nothing is renamed."""
    if not renames:
        return b""
    lines = source.splitlines(keepends=True)
    changed = False
    for dotted, emitted in renames:
        old, new = dotted.encode(), emitted.encode()
        for line, column in own.chains.get(dotted, ()):
            if line - 1 < len(lines) and lines[line - 1][column : column + len(old)] == old:
                row = lines[line - 1]
                lines[line - 1] = row[:column] + new + row[column + len(old) :]
                changed = True
    return b"".join(lines) if changed else b""


def restore_names(findings: list, path: str) -> list:
    """findings with the module attributes that the last link() of path renamed (`mod_f`)
    spelled as the file spells them (`mod.f`) in their messages."""
    renames = _RENAMED.get(os.path.abspath(path), ())
    if not renames:
        return findings
    import dataclasses

    out = []
    for finding in findings:
        message = finding.message
        for dotted, emitted in renames:
            message = re.sub(rf"\b{re.escape(emitted)}\b", dotted, message)
        out.append(finding if message == finding.message else dataclasses.replace(finding, message=message))
    return out


def linked_source(
    path: str, source: bytes, tables: Tables, own_pool: bool = True, mode: Union[bool, str] = True
) -> Tuple[bytes, int, Linked]:
    """(source with the linked definitions appended, the module's own line count, what
    was linked), by follow-imports mode: True (every import), "uses" (per use, and the
    callers), "callers" (only the sibling modules' calls of its converting helpers). The
    source is returned as it is when nothing is linked."""
    linked = Linked() if mode == "callers" else link(path, source, tables, own_pool, mode == "uses")
    if mode in ("uses", "callers"):  # the sibling modules that call its converting helpers
        linked = with_importing_callers(path, source, tables, linked)
        if mode == "callers":  # the casts its sibling modules hold as values, imported by name
            linked = with_imported_casts(path, source, tables, linked)
        # the sibling modules' base classes whose per-step methods call the file's overrides
        linked = with_overridden_bases(path, source, tables, linked)
    own_lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
    if not linked.text:
        return source, own_lines, linked
    own = linked.own or source
    joined = own if own.endswith(b"\n") or not own else own + b"\n"
    return joined + linked.text.encode("utf-8"), own_lines, linked
