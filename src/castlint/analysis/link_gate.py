"""A text-level gate before linking: can any name a file imports from the tree act on it?

`follow-imports` analyses a file that the prefilter skips (no trigger word) when a definition
of another module of the tree that it uses can bring it a pool (tree_index.may_link). Deciding
that with `ast` (the file's demand, the definitions' roles) parses the file and every module it
imports from; most such files (a scheduler, a model file, a server module: they convert
something and import a module that names a pool) link nothing. This gate answers first from the
text alone, with no parse: each name the file imports from a module of the tree and reads
outside its imports (a call, a base, an annotation, `m.f` of a module alias) is resolved through
the tree's text (re-exports of a package's `__init__.py`, `from x import *`, relative and
absolute imports, module aliases), to its definition's lines; the definition can act when they
name a pool (the prefilter's vocabulary: what `provides` needs), hold a plan call, name a dtype
(for a file that plans), convert (for a file that converts nothing), hold a partial or record,
or when its module may define a pool class (accessors it teaches), or through a base class that
can. A module with a lazy `__getattr__` or a name defined conditionally answers "can" (unsure).
A superset of what link() keeps: when no name can act, link() would link nothing and the file
is skipped; else link() decides as before.
"""

from __future__ import annotations

import bisect
import os
import re
from typing import Dict, List, Optional, Tuple

from castlint.tables import Tables

_MAX_DEPTH = 6

# one import statement (parenthesised names across lines, backslash continuations)
_IMPORTS = re.compile(
    rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*(?:\\\r?\n[^\n#;]*)*)"
    rb"|import[ \t]+([^\n#;]*(?:\\\r?\n[^\n#;]*)*))",
    re.M,
)
_HEADER = re.compile(rb"^(?:async[ \t]+)?(def|class)[ \t]+(\w+)|^(\w+)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
_INDENTED = rb"^[ \t]+(?:async[ \t]+)?(?:def|class)[ \t]+%s\b|^[ \t]+%s[ \t]*(?::[^=\n]*)?=(?!=)"
_NEXT_TOP = re.compile(rb"^[^\s#)\]}@]", re.M)
_LAZY = re.compile(rb"^def[ \t]+__getattr__[ \t]*\(", re.M)
_RETURNS = re.compile(rb"\b(?:return|yield)\b")
_FIELD = re.compile(rb"^[ \t]+\w+[ \t]*:[^=\n]*(?:=|$)", re.M)  # an annotated field
_SMALL_PASSING_CLASS_LINES = 200  # (tree_index's)
_HOLDERS = re.compile(rb"\b(?:partial|namedtuple|NamedTuple|getattr|lambda|methodcaller)\b")


class _Text:
    """One module's text with its imports and top-level definitions (by regex)."""

    def __init__(self, path: str, source: bytes):
        self.path = path
        self.source = source
        self.imports: Dict[str, Tuple[str, Optional[str], int]] = {}
        self.stars: List[Tuple[str, int]] = []
        self.import_spans: List[Tuple[int, int]] = []
        for match in _IMPORTS.finditer(source):
            self.import_spans.append(match.span())
            if match.group(3) is not None:
                for part in _split(match.group(3)):
                    name, _, alias = part.partition(" as ")
                    name, alias = name.strip(), alias.strip()
                    if alias:
                        self.imports.setdefault(alias, (name, None, 0))
                    elif name:
                        top = name.split(".")[0]
                        self.imports.setdefault(top, (top, None, 0))
                continue
            module = match.group(1).decode("ascii", "replace")
            level = len(module) - len(module.lstrip("."))
            module = module.lstrip(".")
            for part in _split(match.group(2)):
                name, _, alias = part.partition(" as ")
                name, alias = name.strip(), alias.strip()
                if name == "*":
                    self.stars.append((module, level))
                elif name.isidentifier():
                    self.imports.setdefault(alias or name, (module, name, level))
        self.definitions: Dict[str, Tuple[int, int, bytes]] = {}  # name -> (start, end, kind)
        for match in _HEADER.finditer(source):
            kind = match.group(1) or b"assign"
            name = (match.group(2) or match.group(3)).decode("ascii", "replace")
            following = _NEXT_TOP.search(source, match.end())
            end = following.start() if following is not None else len(source)
            self.definitions.setdefault(name, (match.start(), end, kind))
        self.lazy = _LAZY.search(source) is not None

    def uses(self) -> Dict[str, List[str]]:
        """Each imported local name the text reads outside its imports: [""] for the name
        itself, ["f", "sub.f", ...] for the attributes read through it (`m.f`)."""
        spans = self.import_spans
        out: Dict[str, List[str]] = {}
        if not self.imports:
            return out
        locals_ = b"|".join(re.escape(local.encode()) for local in sorted(self.imports, key=len, reverse=True))
        pattern = re.compile(rb"(?<![\w.])(" + locals_ + rb")\b((?:[ \t]*\.[ \t]*\w+)*)")
        for match in pattern.finditer(self.source):
            at = match.start()
            if any(a <= at < b for a, b in spans):
                continue
            rest = re.sub(rb"\s", b"", match.group(2)).decode("ascii", "replace").lstrip(".")
            out.setdefault(match.group(1).decode("ascii", "replace"), []).append(rest)
        return out


def _split(names: bytes) -> List[str]:
    text = names.decode("ascii", "replace").replace("\\\n", " ").replace("\\\r\n", " ")
    text = re.sub(r"#[^\n]*", "", text).strip().strip("()")
    return [" ".join(part.split()) for part in text.split(",") if part.strip()]


_TEXTS: Dict[str, Tuple[Optional[tuple], Optional[_Text]]] = {}


def _text(path: str) -> Optional[_Text]:
    from castlint.analysis.tree_index import _MAX_MODULE_BYTES, _signature

    sig = _signature(path)
    hit = _TEXTS.get(path)
    if hit is not None and hit[0] == sig:
        return hit[1]
    found = None
    if sig is not None and sig[0] <= _MAX_MODULE_BYTES:
        try:
            with open(path, "rb") as fh:
                found = _Text(path, fh.read())
        except OSError:
            found = None
    _TEXTS[path] = (sig, found)
    return found


class Gate:
    """Answers for one importing file; resolver is a tree_index._Resolver of it."""

    def __init__(self, resolver, tables: Tables, own: bytes, converts: bool):
        from castlint.analysis import tree_index

        self.resolver = resolver
        self.tables = tables
        self.converts = converts
        vocabulary = tree_index._vocabulary(tables)
        self.names = _pool_words(tables)
        self.conversions = vocabulary[5]
        self.plans = re.compile(tree_index._plan_calls(tables).pattern.encode())
        self.own_plans = self.plans.search(own) is not None
        self.dtypes = tuple(w.encode() for w in tables.dtype_words)
        self.seen: Dict[tuple, bool] = {}
        self.own = own
        self.own_pool = self.names.search(own) is not None

    def _holder(self, path: str):
        from castlint.analysis.tree_index import ModuleIndex, _package_of

        return ModuleIndex(path=path, package=_package_of(path)[1])

    def _module(self, where: str, module: str, level: int) -> Optional[str]:
        if not module and not level:
            return None
        return self.resolver.module_file(self._holder(where), module, level)

    def acts(self, where: _Text, name: str, depth: int = 0) -> bool:
        """Can `name` (dotted: `m.f`) as the module `where` reads it act on an importer?"""
        key = (where.path, name)
        hit = self.seen.get(key)
        if hit is not None:
            return hit
        self.seen[key] = False  # (a cycle answers no)
        answer = self._acts(where, name, depth)
        self.seen[key] = answer
        return answer

    def _acts(self, where: _Text, name: str, depth: int) -> bool:
        if depth > _MAX_DEPTH:
            return True  # unsure
        head, _, rest = name.partition(".")
        found = where.definitions.get(head)
        if found is not None:
            return self._definition_acts(where, found)
        imported = where.imports.get(head)
        if imported is None:
            if where.lazy or re.search(_INDENTED % ((re.escape(head.encode()),) * 2), where.source, re.M):
                return True  # a lazy re-export, or a definition made under `if`/`try`: unsure
            for module, level in where.stars:
                target = self._module(where.path, module, level)
                other = _text(target) if target else None
                if other is not None and self.acts(other, name, depth + 1):
                    return True
            return False
        module, attr, level = imported
        if attr is None:  # `import a.b as m`: `m.f`, `m.sub.f`
            return self._through_module(where, module, rest, level, depth)
        if rest:  # `from pkg import mod` then `mod.f`
            target = self._module(where.path, f"{module}.{attr}" if module else attr, level)
            if target is not None:
                other = _text(target)
                return other is None or self.acts(other, rest, depth + 1)
        target = self._module(where.path, module, level)
        if target is None:
            return False  # not the tree's
        other = _text(target)
        if other is None:
            return True
        return self.acts(other, attr + (f".{rest}" if rest else ""), depth + 1)

    def _through_module(self, where: _Text, module: str, rest: str, level: int, depth: int) -> bool:
        parts = rest.split(".") if rest else []
        for cut in range(len(parts), -1, -1):  # the longest prefix that is a module
            if cut == len(parts) and not parts:
                break
            dotted = ".".join([module] + parts[:cut])
            target = self._module(where.path, dotted, level)
            if target is not None:
                leaf = ".".join(parts[cut:])
                other = _text(target)
                if not leaf:
                    return False  # the module itself (`m` passed along): nothing of it is called
                return other is None or self.acts(other, leaf, depth + 1)
        return False

    def _definition_acts(self, where: _Text, found: Tuple[int, int, bytes]) -> bool:
        start, end, kind = found
        block = where.source[start:end]
        words = self.names.search(block) is not None  # (what `provides` taints from: whole identifiers)
        if words and (kind == b"assign" or _RETURNS.search(block) is not None or _FIELD.search(block) is not None):
            return True  # hands back what it names (a return, a yield, a record's cache field, a value)
        if self.plans.search(block) is not None:
            return True
        if self.own_plans and any(w in block for w in self.dtypes):
            return True
        # a file with a pool of its own (a whole pool word): a helper or small class it hands the
        # pool may pass it through or convert it (tree_index._useful_root's `passes`/`converts`)
        if self.own_pool and (kind == b"def" or block.count(b"\n") <= _SMALL_PASSING_CLASS_LINES):
            if self.conversions.search(block) is not None or (self.converts and _RETURNS.search(block) is not None):
                return True
        learned = _learned(where, self.tables)
        if learned is not None and (learned.search(block) is not None or learned.search(self.own) is not None):
            return True  # an accessor its module's pool classes teach, read here or by the file
        if kind == b"assign":
            return _HOLDERS.search(block) is not None
        if kind == b"class":
            header = re.match(rb"class[ \t]+\w+[ \t]*\(([^:]*)\)[ \t]*:", block, re.S)
            if header is not None:
                for base in _split(header.group(1)):
                    base = re.sub(r"\[.*", "", base).strip()
                    if "=" in base or not re.fullmatch(r"[\w.]+", base):
                        continue
                    if self.acts(where, base, 1):
                        return True
        return False


def _learned(where: _Text, tables: Tables):
    """A regex of the accessors the module's pool classes teach (castlint.analysis.pool_classes,
    parsed only for a module that may define one), or None."""
    from castlint.analysis import pool_classes

    key = (where.path, id(tables))
    hit = _TEACH.get(key)
    if hit is None or hit[0] is not where:
        names = sorted(pool_classes.learn_source(where.source, tables).names - set(tables.accessors))
        pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in names) + rb")\b") if names else None
        hit = _TEACH[key] = (where, pattern)
    return hit[1]


_TEACH: Dict[tuple, tuple] = {}
_WORDS: Dict[int, tuple] = {}


def _pool_words(tables: Tables):
    """The pool identifiers (tree_index._pool_names) as one bytes regex of whole words."""
    hit = _WORDS.get(id(tables))
    if hit is None or hit[0] is not tables:
        from castlint.analysis.tree_index import _pool_names

        words = sorted(_pool_names(tables))
        pattern = rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in words) + rb")\b" if words else rb"(?!)"
        hit = _WORDS[id(tables)] = (tables, re.compile(pattern))
    return hit[1]


def may_act(path: str, source: bytes, tables: Tables, resolver, converts: bool) -> bool:
    """Can a name that the file (path, source) imports from the tree and reads act on it?"""
    own = _Text(os.path.abspath(path), source)
    from castlint.analysis.tree_index import dynamic_imports

    for local, module, level in dynamic_imports(source, tables):  # `m = importlib.import_module(".pool", __package__)`
        parent, _, last = module.rpartition(".")
        own.imports.setdefault(local, (parent, last, level) if level else (module, None, 0))
        own.definitions.pop(local, None)  # (the assignment is the import, not a definition of the file)
    gate = Gate(resolver, tables, source, converts)
    for local, rests in own.uses().items():
        for rest in dict.fromkeys(rests):
            if gate.acts(own, f"{local}.{rest}" if rest else local):
                return True
    return False


# -- the name gate (follow-imports = "uses": before the gate above) ---------------------------

_HEADERS = re.compile(rb"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)
_SELF_SET = re.compile(rb"\bself[ \t]*\.[ \t]*(\w+)[ \t]*(?::[^=\n]*)?=(?!=)([^\n]*)")
_DTYPE_PARAMETER = re.compile(rb"dtype|data_type", re.I)
_MEMBERS = re.compile(rb"\.[ \t]*(\w+)|(?<!def )(?<!class )\b(\w+)[ \t]*\(")


class Hands:
    """What one module can hand an importer, by name (text only): definitions (functions,
    methods) whose body names a pool and returns or yields, attributes (`self.x = `, fields,
    module-level names) set from a pool word, the accessors its pool classes teach; the
    definitions that convert (for an importer with a pool of its own), that plan, and that
    name a dtype (for an importer that plans)."""

    __slots__ = ("provides", "converts", "plans", "dtypes")

    def __init__(self, provides=frozenset(), converts=frozenset(), plans=frozenset(), dtypes=frozenset()):
        self.provides, self.converts, self.plans, self.dtypes = provides, converts, plans, dtypes


_EMPTY = Hands()


def union(parts: List[Hands]) -> Hands:
    if not parts:
        return _EMPTY
    if len(parts) == 1:
        return parts[0]
    return Hands(
        frozenset().union(*(p.provides for p in parts)),
        frozenset().union(*(p.converts for p in parts)),
        frozenset().union(*(p.plans for p in parts)),
        frozenset().union(*(p.dtypes for p in parts)),
    )


def _blocks(source: bytes):
    """(name, indent, start, end) of each def/class of the text (nested ones too), the block
    running to the next header indented no deeper, or the next top-level statement for a
    top-level one."""
    headers = [(len(m.group(1).expandtabs()), m.start(), m.group(3)) for m in _HEADERS.finditer(source)]
    ends = [len(source)] * len(headers)
    open_: List[int] = []
    for i, (indent, start, _) in enumerate(headers):
        while open_ and headers[open_[-1]][0] >= indent:
            ends[open_.pop()] = start
        open_.append(i)
    for i, (indent, start, name) in enumerate(headers):
        end = ends[i]
        if indent == 0:
            following = _NEXT_TOP.search(source, source.find(b"\n", start) + 1 or len(source), end)
            if following is not None:
                end = following.start()
        yield name.decode("ascii", "replace"), indent, start, end


_RETURN_LINE = re.compile(rb"\b(?:return|yield)\b([^\n]*)")
_ASSIGN_LINE = re.compile(rb"^[ \t]*([\w, \t()\[\]*.]+?)[ \t]*(?::[^=\n]*)?=(?!=)([^\n]*)", re.M)
_IDENT = re.compile(rb"[A-Za-z_]\w*")


def _statement(block: bytes, start: int) -> bytes:
    """The text from start to the end of its logical line (brackets balanced, at most 12 lines)."""
    end = start
    depth = 0
    for _ in range(12):
        line_end = block.find(b"\n", end)
        if line_end < 0:
            return block[start:]
        piece = block[end:line_end]
        depth += piece.count(b"(") + piece.count(b"[") + piece.count(b"{")
        depth -= piece.count(b")") + piece.count(b"]") + piece.count(b"}")
        end = line_end + 1
        if depth <= 0 and not piece.rstrip().endswith(b"\\"):
            break
    return block[start:end]


_INNER = re.compile(rb"\([^()\[\]{}]*\)|\[[^()\[\]{}]*\]|\{[^()\[\]{}]*\}")
_SCALARS = frozenset(
    b"shape size dtype device numel nbytes data_ptr stride element_size item tolist dim ndim is_cuda"
    b" is_contiguous storage_offset untyped_storage __len__ len".split()
)


def _spines(value: bytes) -> List[bytes]:
    """Each top-level element of an expression (`a, b`) with what its brackets hold dropped:
    `pool.get_key_buffer(layer.layer_id)[:, 0]` -> `pool.get_key_buffer()[]`, so that a pool
    word passed as an argument of an unrelated call (`out = attend(q, kv_buffer)`) is not read
    as the value itself."""
    value = value.split(b"#", 1)[0]
    for _ in range(8):
        stripped = _INNER.sub(lambda m: m.group(0)[:1] + m.group(0)[-1:], value)
        if stripped == value:
            break
        value = stripped
    return [part.strip().lstrip(b"(*[").strip() for part in value.split(b",")]


_OPERATORS = re.compile(rb"==|!=|<|>|\b(?:is|not|and|or|in|if)\b")


def _is_pool(spine: bytes, words, tainted, gathers=frozenset()) -> bool:
    """Can the value (a _spines element) be a whole pool: it names a pool word or starts from a
    tainted local, and is no property of one (`.shape`), no test (`x is not None`), no gather."""
    idents = _IDENT.findall(spine)
    if not idents or idents[-1] in _SCALARS or _OPERATORS.search(spine) is not None:
        return False  # `.shape`, `.dtype`: a property of the pool, not the pool
    if gathers and any(i in gathers for i in idents[1:]):
        return False  # `pool.index_select(0, rows)`: rows of it
    if idents[0] in (b"lambda", b"not", b"len", b"isinstance", b"type", b"id", b"hash", b"str", b"int"):
        return False
    return words.search(spine) is not None or idents[0] in tainted


def _returns_pool(block: bytes, words, gathers=frozenset()) -> bool:
    """Does a return or yield of the definition hand back a pool: its value (not an argument
    of a call in it) names a pool word, or a local that an assignment of the block sets from
    one (followed twice)?"""
    returned = [_statement(block, m.start(1)) for m in _RETURN_LINE.finditer(block)]
    if not returned:
        return False
    spines = [spine for value in returned for spine in _spines(value)]
    if any(_is_pool(spine, words, (), gathers) for spine in spines):
        return True
    tainted: set = set()
    assignments = [(m.group(1), _spines(_statement(block, m.start(2)))) for m in _ASSIGN_LINE.finditer(block)]
    for _ in range(2):
        for target, values in assignments:
            if any(_is_pool(spine, words, tainted, gathers) for spine in values):
                tainted.update(_IDENT.findall(target))
    return bool(tainted) and any(_is_pool(spine, words, tainted, gathers) for spine in spines)


def _returns_own(block: bytes, owned, gathers=frozenset()) -> bool:
    """Does a return of the method hand back a buffer its object allocated (`self.k[i]`)?"""
    for match in _RETURN_LINE.finditer(block):
        for spine in _spines(_statement(block, match.start(1))):
            idents = _IDENT.findall(spine)
            if len(idents) > 1 and idents[0] == b"self" and idents[1] in owned:
                if _is_pool(spine, _NEVER, (b"self",), gathers):
                    return True
    return False


_NEVER = re.compile(rb"(?!)")
_STORES: Dict[int, tuple] = {}


def _allocated(source: bytes, tables: Tables) -> frozenset:
    """The attributes of self that the text sets from an allocation (`self.k = torch.zeros(...)`,
    a list of them, `self.k.append(torch.empty(...))`): a pool class's buffers, by text."""
    hit = _STORES.get(id(tables))
    if hit is None or hit[0] is not tables:
        words = "|".join(re.escape(f) for f in sorted(tables.allocation_functions)) or "(?!)"
        hit = _STORES[id(tables)] = (tables, re.compile(rf"\b(?:{words})\(".encode()))
    allocation = hit[1]
    out = set()
    for match in _SELF_SET.finditer(source):
        if allocation.search(_statement(source, match.start(2))) is not None:
            out.add(match.group(1))
    for match in re.finditer(rb"\bself\.(\w+)\.(?:append|extend)\(", source):
        if allocation.search(_statement(source, match.end())) is not None:
            out.add(match.group(1))
    return frozenset(out)


def _returns_dtype(block: bytes, dtypes) -> bool:
    return any(any(w in _statement(block, m.start(1)) for w in dtypes) for m in _RETURN_LINE.finditer(block))


def _within(positions: List[int], start: int, end: int) -> bool:
    """Is one of the (sorted) positions in [start, end)?"""
    at = bisect.bisect_left(positions, start)
    return at < len(positions) and positions[at] < end


def _hands_of(source: bytes, tables: Tables) -> Hands:
    from castlint.analysis import pool_classes, tree_index

    vocabulary = tree_index._vocabulary(tables)
    words = _pool_words(tables)
    dtypes = tuple(w.encode() for w in tables.dtype_words)
    provides, converts, planning, typed = set(), set(), set(), set()
    pools = [m.start() for m in words.finditer(source)]  # (one scan of each vocabulary per module)
    converting = [m.start() for m in vocabulary[5].finditer(source)]
    plans = [m.start() for m in _plan_bytes(tables).finditer(source)]
    owned = _allocated(source, tables) if pool_classes.candidate(source, tables) else frozenset()
    gathers = frozenset(w.encode() for w in (*tables.gather_methods, *tables.gather_functions))
    for name, indent, start, end in _blocks(source):
        if name.startswith("__") and name.endswith("__") and name not in ("__call__", "__getitem__", "__iter__"):
            continue
        if not source.startswith(b"def", start + indent) and not source.startswith(b"async", start + indent):
            continue  # (a class hands what its methods and fields hand, by their names)
        pooled = _within(pools, start, end)
        if pooled and _returns_pool(source[start:end], words, gathers):
            provides.add(name)
        elif owned and indent and _returns_own(source[start:end], owned, gathers):
            provides.add(name)  # an accessor a pool class may teach (pool_classes.learn_source's, by text)
        if indent == 0 and _within(converting, start, end):
            converts.add(name)  # a helper that converts what it is given (at a call with a pool word)
        if _within(plans, start, end) and _DTYPE_PARAMETER.search(source, start, source.find(b":\n", start, end)):
            planning.add(name)  # a plan helper given the caller's dtypes
        if not indent and _returns_dtype(source[start:end], dtypes):
            typed.add(name)
    if converting:  # `to_half = functools.partial(torch.Tensor.to, dtype=...)`: a module-level cast held for later
        for match in _HEADER.finditer(source):
            if match.group(3) is not None:
                value = _statement(source, match.end())
                if _within(converting, match.end(), match.end() + len(value)):
                    converts.add(match.group(3).decode("ascii", "replace"))
    if pools:
        for match in _SELF_SET.finditer(source):  # `self.kv = runner.pool.kv_buffer`
            value = _statement(source, match.start(2))
            if _within(pools, match.start(2), match.start(2) + len(value)) and any(
                _is_pool(spine, words, (), gathers) for spine in _spines(value)
            ):
                provides.add(match.group(1).decode("ascii", "replace"))
        for match in _HEADER.finditer(source):  # module-level names set from a pool word
            if match.group(3) is not None:
                value = _statement(source, match.end())
                if _within(pools, match.end(), match.end() + len(value)) and any(
                    _is_pool(spine, words, (), gathers) for spine in _spines(value)
                ):
                    provides.add(match.group(3).decode("ascii", "replace"))
        for match in _FIELD.finditer(source):  # a record's field named as a pool
            field = match.group(0).partition(b":")[0]
            if _within(pools, match.start(), match.start() + len(field)):
                provides.add(field.strip().decode("ascii", "replace"))
    return Hands(frozenset(provides), frozenset(converts), frozenset(planning), frozenset(typed))


_PLAN_BYTES: Dict[int, tuple] = {}


def _plan_bytes(tables: Tables):
    hit = _PLAN_BYTES.get(id(tables))
    if hit is None or hit[0] is not tables:
        from castlint.analysis import tree_index

        hit = _PLAN_BYTES[id(tables)] = (tables, re.compile(tree_index._plan_calls(tables).pattern.encode()))
    return hit[1]


_HANDS: Dict[tuple, Tuple[Optional[tuple], Optional[Hands]]] = {}


def hands(path: str, tables: Tables) -> Optional[Hands]:
    """Hands of the module at path (once per file version and tables)."""
    from castlint.analysis.tree_index import _signature

    sig = _signature(path)
    key = (path, id(tables))
    hit = _HANDS.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    text = _text(path)
    found = _hands_of(text.source, tables) if text is not None else None
    _HANDS[key] = (sig, found)
    return found


_CALL_WITH = re.compile(rb"(\w+)[ \t]*\(([^\n]*)")


def pooled_calls(source: bytes, tables: Tables) -> frozenset:
    """The names the text calls with a pool word in the call's line (`cast_like(pool.k_buffer, q)`)."""
    words = _pool_words(tables)
    return frozenset(
        m.group(1).decode("ascii", "replace") for m in _CALL_WITH.finditer(source) if words.search(m.group(2))
    )


def members(source: bytes) -> frozenset:
    """The names the text reads as a member (`.x`) or calls (`f(`)."""
    return frozenset((a or b).decode("ascii", "replace") for a, b in _MEMBERS.findall(source))


def names_act(
    read: frozenset, found: Hands, own_pool: bool, own_plans: bool, converts: bool = True, pooled_calls=None
) -> bool:
    """Does the importer (the names it reads) use a name that the module (found) hands it?
    converts: the importer converts something (else what hands it a pool cannot matter)."""
    if converts and not read.isdisjoint(found.provides) or not read.isdisjoint(found.plans):
        return True
    if own_pool and not read.isdisjoint(found.converts):
        return pooled_calls is None or not pooled_calls.isdisjoint(found.converts)
    return own_plans and not read.isdisjoint(found.dtypes)
