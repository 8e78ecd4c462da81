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
import sys
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from castlint.analysis import pool_classes
from castlint.common import pyast
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
    _refs: Optional[FrozenSet[str]] = field(default=None, repr=False, compare=False)

    @property
    def refs(self) -> FrozenSet[str]:
        """Module-level names it uses (`m.attr` also as "m.attr"), read when first asked."""
        if self._refs is None:
            self._refs = frozenset(_names(self.node) - {self.name})
            self.node = None
        return self._refs


@dataclass
class ModuleIndex:
    path: str
    package: str  # the dotted package the module's relative imports start from
    definitions: Dict[str, Definition] = field(default_factory=dict)
    imports: Dict[str, Tuple[str, Optional[str], int]] = field(default_factory=dict)  # local -> (module, attr, level)
    learned: FrozenSet[str] = frozenset()  # accessors its pool classes define
    carries: bool = False  # the module's text names a pool at all
    used: FrozenSet[str] = frozenset()  # every name the module reads (`m.attr` also as "m.attr")


@dataclass(frozen=True)
class Linked:
    text: str = ""  # source to append after the module's own
    paths: Tuple[str, ...] = ()  # the files it came from
    learned: FrozenSet[str] = frozenset()  # accessors the linked modules' pool classes define

    def __bool__(self) -> bool:
        return bool(self.text or self.learned)


# -- the vocabulary --------------------------------------------------------------

_WORDS: Dict[int, tuple] = {}


def _vocabulary(tables: Tables):
    """(tables, the words that make code carry a pool: those the prefilter starts from, their regex)."""
    hit = _WORDS.get(id(tables))
    if hit is None or hit[0] is not tables:
        from castlint.triggers import TriggerWords

        words = TriggerWords(tables)
        pool = set(words.pools) | set(words.helpers) | set(words.cache_parameters) | set(words.dequantizing_accessors)
        ordered = tuple(sorted(pool))
        pattern = re.compile("|".join(re.escape(w) for w in ordered) or "(?!)")
        conversions = tuple(sorted(w.encode() for w in words.conversions))
        hit = _WORDS[id(tables)] = (tables, ordered, pattern, conversions, re.compile(pattern.pattern.encode()))
    return hit


def _carries(text: str, tables: Tables) -> bool:
    return _vocabulary(tables)[2].search(text) is not None


# -- modules on disk -------------------------------------------------------------

def _package_of(path: str) -> Tuple[str, str]:
    """(the folder above the module's top-level package, the module's dotted package).
    A module outside any package is its own folder's: ("folder", "")."""
    folder = os.path.dirname(os.path.abspath(path))
    parts: List[str] = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.insert(0, os.path.basename(folder))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder, ".".join(parts)


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
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def module_index(path: str, tables: Tables, source: Optional[bytes] = None) -> Optional[ModuleIndex]:
    """The index of one module (read from disk unless source is given), once per process
    per file version."""
    sig = _signature(path) if source is None else ("source", hash(source))
    key = os.path.abspath(path)
    hit = _MODULES.get(key)
    if hit is not None and hit[0] == (sig, id(tables)):
        return hit[1]
    index = None
    if source is None and sig is not None and sig[0] <= _MAX_MODULE_BYTES:
        try:
            with open(path, "rb") as fh:
                source = fh.read()
        except OSError:
            source = None
    if source is not None:
        index = _index(path, source, tables, keep_used=sig[0] == "source")
    _MODULES[key] = ((sig, id(tables)), index)
    return index


def _index(path: str, source: bytes, tables: Tables, keep_used: bool = False) -> Optional[ModuleIndex]:
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    _, package = _package_of(path)  # an __init__.py is its own package, as its folder is
    index = ModuleIndex(path=path, package=package, carries=_carries(text, tables))
    if not index.carries and "import" not in text:
        return index
    try:
        tree = pyast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.splitlines(keepends=True)
    if keep_used:
        index.used = frozenset(_names(tree))
    for statement in _top_level(tree.body):
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            _record_imports(index, statement)
        elif isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign)):
            definition = _definition(statement, lines, tables)
            if definition is not None:
                index.definitions.setdefault(definition.name, definition)
    if index.carries:
        index.learned = frozenset(pool_classes.accessors_in(source, set(tables.cache_attributes)))
    return index


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


def _definition(node, lines: List[str], tables: Tables) -> Optional[Definition]:
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
    text = "".join(lines[first - 1:end])
    if not text.endswith("\n"):
        text += "\n"
    bases = tuple(filter(None, (_dotted(b) for b in node.bases))) if isinstance(node, ast.ClassDef) else ()
    return Definition(name=name, kind=kind, text=text, header=node.lineno - first, bases=bases,
                      carries=_carries(text, tables), node=node)


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

    def read(self, target: Optional[str]) -> Optional[ModuleIndex]:
        """The index of a module of the tree, when it can matter: its text names a pool, or
        it is a package's __init__ (re-exports). Other modules are never parsed."""
        if target is None:
            return None
        if not _file_carries(target, _vocabulary(self.tables)[4]):
            if os.path.basename(target) != "__init__.py":
                return None
        index = module_index(target, self.tables)
        if index is not None and index.carries:
            self.visited.setdefault(index.path, index)
        return index

    def module_file(self, index: ModuleIndex, module: str, level: int) -> Optional[str]:
        """The file of `module` as imported from the module that index describes."""
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
            return None  # another distribution (torch, flashinfer, ...): not the checked tree
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
            return None
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


_LINKS: Dict[tuple, Tuple[Tables, Linked]] = {}
_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+([\w, \t]+)|import[ \t]+([\w.]+))", re.M)
_CARRIES: Dict[str, Tuple[Optional[tuple], bool]] = {}


def may_link(path: str, source: bytes, tables: Tables) -> bool:
    """Could linking give a file the prefilter skips a pool? (It converts something, and a
    module it imports from the tree names a pool; then link() decides.) A prefilter: cheap
    text tests first."""
    vocabulary = _vocabulary(tables)
    if b"import" not in source or not any(word in source for word in vocabulary[3]):
        return False
    root, package = _package_of(path)
    holder = ModuleIndex(path=path, package=package)
    resolver = _Resolver(path, tables)
    for match in _IMPORT.finditer(source):
        module = (match.group(1) or match.group(3) or b"").decode("ascii", "replace")
        level = len(module) - len(module.lstrip("."))
        modules = [module.lstrip(".")]
        if match.group(2):  # `from pkg import mod`: maybe a submodule
            modules += [f"{modules[0]}.{n.strip()}" if modules[0] else n.strip()
                        for n in match.group(2).decode("ascii", "replace").split(",") if n.strip().isidentifier()]
        for dotted in modules:
            target = resolver.module_file(holder, dotted, level) if (dotted or level) else None
            if target is not None and _file_carries(target, vocabulary[4]):
                linked = link(path, source, tables)
                return bool(linked.text) or any(f".{name}".encode() in source for name in linked.learned)
    return False


def _file_carries(path: str, pattern) -> bool:
    sig = _signature(path)
    hit = _CARRIES.get(path)
    if hit is not None and hit[0] == sig:
        return hit[1]
    carries = False
    if sig is not None and sig[0] <= _MAX_MODULE_BYTES:
        try:
            with open(path, "rb") as fh:
                carries = pattern.search(fh.read()) is not None
        except OSError:
            carries = False
    _CARRIES[path] = (sig, carries)
    return carries


def link(path: str, source: bytes, tables: Tables) -> Linked:
    """The definitions of the tree that the module at path (with this source) uses,
    with what they need, as source to append to it; nothing when none of them names a pool."""
    if b"import" not in source:
        return Linked()
    key = (os.path.abspath(path), hash(source))
    hit = _LINKS.get(key)
    if hit is not None and hit[0] is tables:
        return hit[1]
    found = _link(path, source, tables)
    _LINKS[key] = (tables, found)
    return found


def _link(path: str, source: bytes, tables: Tables) -> Linked:
    own = module_index(path, tables, source=source)
    if own is None or not own.imports:
        return Linked()
    resolver = _Resolver(path, tables)
    roots = []
    for local in own.imports:
        for name in sorted(n for n in own.used if n == local or n.startswith(local + ".")):
            found = resolver.resolve(own, name)
            if found is not None:
                roots.append((name.rpartition(".")[2] if "." in name else local, found))
    closures = [_closure(resolver, index, definition, emitted) for emitted, (index, definition) in roots]
    # accessors the pool classes of the modules it imports define (their calls read a whole pool)
    teachers = [m for m in resolver.visited.values() if m.learned - set(tables.accessors)]
    learned = frozenset().union(*(m.learned for m in teachers)) - set(tables.accessors)
    files = [m.path for m in teachers]
    if not any(d.carries for closure in closures for _, _, d in closure):
        return Linked(paths=tuple(files), learned=learned)  # nothing it uses from the tree names a pool
    taken: Dict[str, Tuple[str, str]] = {}  # emitted name -> (file, definition name)
    pieces: List[str] = []
    size = 0
    for closure in closures:
        _, _, root = closure[0]
        if not (any(d.carries for _, _, d in closure) or _small(root)):
            continue  # a class of the tree that holds no pool (a config, a metadata record)
        for name, where, d in closure:
            if name in own.definitions or name in taken:
                continue
            if size + len(d.text) > _MAX_LINKED_BYTES:
                break
            taken[name] = (where.path, d.name)
            pieces.append(_renamed(d, name))
            size += len(d.text)
            if where.path not in files:
                files.append(where.path)
    text = "\n\n" + "\n\n".join(pieces) if pieces else ""
    return Linked(text=text, paths=tuple(files), learned=learned)


def _closure(resolver: _Resolver, index: ModuleIndex, definition: Definition, emitted: str):
    """[(emitted name, module index, definition)]: the definition and what it needs
    from its module and the tree: its bases always, and the helpers, classes and
    records it names when they are small or carry a pool themselves."""
    out = [(emitted, index, definition)]
    seen = {(index.path, definition.name)}
    queue = [(index, definition, 0, True)]
    while queue:
        where, current, depth, _ = queue.pop(0)
        if depth >= _MAX_DEPTH:
            continue
        wanted = [(b, True) for b in current.bases] + [(r, False) for r in sorted(current.refs)]
        for name, is_base in wanted:
            found = resolver.resolve(where, name)
            if found is None:
                continue
            other, needed = found
            key = (other.path, needed.name)
            if key in seen:
                continue
            if not (is_base or needed.carries or _small(needed)):
                continue
            seen.add(key)
            local = name.rpartition(".")[2]
            out.append((local, other, needed))
            queue.append((other, needed, depth + 1, is_base))
    return out


def _small(definition: Definition) -> bool:
    """A helper or an assignment small enough to link whatever it names: it may pass a
    pool through (a view, a reshape, a partial of an accessor)."""
    return definition.kind == "assign" or (
        definition.kind == "function" and definition.text.count("\n") <= _SMALL_FUNCTION_LINES)


def _renamed(definition: Definition, name: str) -> str:
    """definition's text with `name` as the name it defines."""
    if name == definition.name:
        return definition.text
    lines = definition.text.splitlines(keepends=True)
    header = lines[definition.header]
    pattern = (rf"^(\s*(?:async\s+)?(?:class|def)\s+){re.escape(definition.name)}\b"
               if definition.kind != "assign" else rf"^(){re.escape(definition.name)}\b")
    lines[definition.header] = re.sub(pattern, lambda m: m.group(1) + name, header, count=1)
    return "".join(lines)


def linked_source(path: str, source: bytes, tables: Tables) -> Tuple[bytes, int, Linked]:
    """(source with the linked definitions appended, the module's own line count, what
    was linked). The source is returned as it is when nothing is linked."""
    linked = link(path, source, tables)
    own_lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
    if not linked.text:
        return source, own_lines, linked
    joined = source if source.endswith(b"\n") or not source else source + b"\n"
    return joined + linked.text.encode("utf-8"), own_lines, linked
