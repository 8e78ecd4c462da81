"""The trigger vocabulary: named word sets, from the tables, that rules build their trigger
groups from (castlint.checks.base.Rule.triggers) and the analysis reads to tell which code
can carry a pool (castlint.analysis.tree_index).

It sits below the analysis and the rules; castlint.prefilter, above the rule registry,
turns every rule's groups into the text test a file must pass to be parsed.
"""

from __future__ import annotations

import re
from typing import FrozenSet, Tuple

from castlint.tables import ATTRIBUTE_ENDS, Tables

SUPPRESSION_WORDS = frozenset({"castlint", "noqa: CL", "noqa:CL", "NOQA: CL"})
_IDENTIFIER_STARTS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"


# the text of a store into a slice (`buf[:] = src`, `buf[...] = src`, `buf[:, 1] = src`, `buf[..., :d] = src`)
SLICE_STORE_WORDS = frozenset({":] = ", "...] = ", "[:, ", "[..., "})


class TriggerWords:
    """Named word sets, from the tables, that rules build their trigger groups from."""

    def __init__(self, tables: Tables):
        # `.kv_cache[`, `.kv_cache)`, ... but not `.kv_cache_dtype`: the attribute itself, for
        # the names that other attributes extend; the others as they are (fewer words to scan)
        # accessors as a method of something (`.get_key_buffer`: called, or held uncalled as a
        # bound method or a partial) or named in getattr(obj, "get_key_buffer")
        named = {f"{q}{name}{q}" for name in tables.accessors for q in "'\""}
        # ... and cache attributes named to an attribute getter (`getattr_static(engine, "gpu_cache")`)
        named |= {f"{q}{name}{q}" for name in tables.cache_attributes for q in "'\""}
        self.pools: FrozenSet[str] = frozenset(
            {f".{name}" for name in tables.accessors}
            | named
            | {
                f".{name}{after}" if name in tables.cache_attributes_whole else f".{name}"
                for name in tables.cache_attributes
                for after in ATTRIBUTE_ENDS
            }
            # a parameter that holds the caches by its name (`def bind(cls, gpu_cache):`)
            | {f"{name}{after}" for name in tables.cache_parameter_names for after in (",", ")", ":")}
        )
        # a cast called (`.to(`), or held uncalled to be called later: unbound
        # (`partial(torch.Tensor.to, ...)`, `{"bf16": torch.Tensor.bfloat16}`) or by its name
        # (`methodcaller("to", d)`, `getattr(t, "float")`)
        methods = {*tables.casts, *tables.copy_methods}
        receivers = {receiver.rsplit(".", 1)[-1] for receiver in tables.unbound_receivers}
        self.casts = frozenset(
            {f".{method}(" for method in methods}
            | {f"{receiver}.{method}" for receiver in receivers for method in methods}
            # an op of a namespace, its overload called (`torch.ops.aten._to_copy.default(pool, dtype=d)`)
            | {f"{ns.rsplit('.', 1)[-1]}.{method}" for ns in tables.op_namespaces for method in methods}
            | {f"{q}{method}{q}" for method in methods for q in "'\""}
            # `torch.as_tensor(pool, dtype=d)`: a constructor that converts what it is given, a name,
            # attribute or call on the line (its data written out, `torch.tensor([0, n])`, is no pool's)
            | {
                f"{name.rsplit('.', 1)[-1]}({first}"
                for name in tables.conversion_constructors
                for first in _IDENTIFIER_STARTS
            }
            | {f".{name}(" for name in tables.conversion_constructor_methods}
            # `torch.nested.nested_tensor([k, v], dtype=d)`: a list of tensors, each converted
            | {f"{name.rsplit('.', 1)[-1]}(" for name in tables.conversion_element_constructors}
        )
        wrappers = set()
        for wrapper in tables.wrappers:
            wrappers.update({wrapper.cls, wrapper.q_dtype.keyword, wrapper.kv_dtype.keyword, *wrapper.aliases})
        self.wrappers = frozenset(wrappers)
        self.kv_dtype_reach = frozenset(
            tables.kv_cache_dtype_attributes | tables.kv_cache_dtype_holders | tables.kv_cache_dtype_holder_attributes
        )
        self.helpers = frozenset(tables.conversion_helpers)
        # a kernel that reads a pool by row index, and an accessor that may dequantize it whole
        self.row_kernels = frozenset(row["function"] for row in tables.row_kernels)
        self.dequantizing_accessors = frozenset(
            f".{a[k]}(" for a in tables.dequantizing_accessors for k in ("key", "value")
        )
        self.cache_parameters = frozenset(name for p in tables.cache_parameters for name in p.params)
        self.conversions = self.casts | self.helpers
        # an operation converting its input first when given a dtype (`torch.sum(pool, dtype=d)`, `pool.mean(dtype=d)`:
        # rules/casts.toml [dtype_arguments]): its name called, with the keyword written beside it
        self.dtype_arguments = frozenset(
            {f"{name}(" for name in tables.dtype_argument_functions}  # (dotted: `torch.sum(`, not the builtin `sum(`)
            | {f".{name}(" for name in tables.dtype_argument_methods}
        )
        self.dtype_argument_keywords = frozenset(f"{k}=" for k in tables.dtype_argument_keywords)
        # each entry: the word sets a conversion needs all of (a cast word; or a dtype-argument call and its keyword)
        converting: Tuple[tuple, ...] = ((self.conversions,),)
        if self.dtype_arguments and self.dtype_argument_keywords:
            converting += ((self.dtype_arguments, self.dtype_argument_keywords),)
        self.suppressions = SUPPRESSION_WORDS
        # a whole cache that arrives as a parameter: its name, the other parameters of
        # the engine's calling convention, and a conversion; one group per convention
        # (a row whose methods are only registration hooks, [hot_path] setup: the hook's name as well, since
        # its parameters' names are common words: `def register_cross_layers_kv_cache(self, kv_cache, ...)`)
        by_requires: dict = {}
        setup = set(tables.run_once_methods)
        for p in tables.cache_parameters:
            if p.beside:
                continue  # read from **kwargs only (below)
            hooks = tuple(sorted(f"def {m}(" for m in p.methods)) if set(p.methods) <= setup and p.requires else ()
            by_requires.setdefault((tuple(sorted(p.requires)), hooks), set()).update(p.params)
        self.conventions: Tuple[tuple, ...] = tuple(
            (frozenset(params), *(frozenset(w) for w in (requires, hooks) if w), *conversion)
            for (requires, hooks), params in sorted(by_requires.items())
            for conversion in converting
        )
        # ... or read by its keyword from the `**kwargs` of a method of the convention (`def forward(self, **kwargs)`
        # reading `kwargs["past_key_values"]`, `kwargs.get('kv_cache')`)
        # (a row with `beside`: one of those methods' defs as well, a CUDA-graph runner's `def capture(`)
        by_methods: dict = {}
        for p in tables.cache_parameters:
            key = (tuple(sorted(p.methods)), tuple(sorted(p.requires)), tuple(sorted(p.beside)))
            by_methods.setdefault(key, set()).update(p.params)
        for (methods, requires, beside), params in sorted(by_methods.items()):
            reads = frozenset(
                f"{read}{q}{name}{q}{end}"
                for name in params
                for q in "'\""
                for read, end in (("[", "]"), (".get(", ""), (".pop(", ""))
            )
            defs = frozenset(f"def {m}(" for m in methods)
            # (the convention's other parameters, named or read from the same `**kwargs`, each by its word)
            others = tuple(frozenset({r}) for r in requires)
            if beside:
                others += (frozenset(f"def {m}(" for m in beside),)
            self.conventions += tuple(
                (reads, frozenset({"**"}), defs, *others, *conversion) for conversion in converting
            )
        # a pool and a conversion, or a whole cache that arrives as a parameter (CL001, CL003, CL005)
        # ... or a store of one into a slice of a buffer (`buf[:] = pool`, `st.wide[:, 1] = buf[:, 1]`): a copy
        self.slice_stores = SLICE_STORE_WORDS
        self.pool_conversions: Tuple[tuple, ...] = (
            (self.pools, self.casts),
            (self.pools, self.slice_stores),
            *((self.pools, *conversion) for conversion in converting[1:]),
        ) + self.conventions


_PLAN_TESTS: dict = {}  # id(Tables) -> (the tables, (method call words, fewest positional arguments, reach words))


def may_plan_by_arity(source: bytes, tables: Tables) -> bool:
    """Could the text hold a plan() that CL002 tells by its arity alone (a wrapper's method called with as
    many positional arguments as reach its kv dtype, on a receiver the file does not name: a mixin's or
    helper module's `wrapper.plan(qo, kv, idx, lens, heads, 512, 64, 1, False, scale, q_dt, kv_dt)`),
    with a KV-cache dtype in reach? No wrapper word need appear (the prefilter's CL002 group). Cheap:
    only a file that calls such a method is scanned, one call's brackets at a time."""
    hit = _PLAN_TESTS.get(id(tables))
    if hit is None or hit[0] is not tables:
        methods, fewest = set(), None
        for wrapper in tables.wrappers:
            if wrapper.function or wrapper.kv_dtype.index is None:
                continue
            methods.update(wrapper.methods)
            fewest = wrapper.kv_dtype.index if fewest is None else min(fewest, wrapper.kv_dtype.index)
        reach = tuple(
            w.encode()
            for w in sorted(
                tables.kv_cache_dtype_attributes
                | tables.kv_cache_dtype_holders
                | tables.kv_cache_dtype_holder_attributes
            )
        )
        # `w.plan(`, and a plan called by its name held as data (`methodcaller("plan", ...)`: [callables]
        # method_callers), whose own arguments after the name are the plan's
        callers = sorted({c.rsplit(".", 1)[-1] for c in tables.method_callers})
        named = re.compile(
            rb"\b(?:%s)\(\s*[\"'](?:%s)[\"']"
            % (b"|".join(re.escape(c.encode()) for c in callers), b"|".join(m.encode() for m in sorted(methods)))
        )
        words = tuple(f".{m}(".encode() for m in sorted(methods))
        hit = _PLAN_TESTS[id(tables)] = (tables, (words, fewest, reach, named, tuple(c.encode() for c in callers)))
    words, fewest, reach, named, callers = hit[1]
    if fewest is None or not any(r in source for r in reach):
        return False
    starts = []
    for word in words:
        start = source.find(word)
        while start != -1:
            starts.append(start + len(word))
            start = source.find(word, start + 1)
    if callers and any(c in source for c in callers):
        starts += [m.end() for m in named.finditer(source)]  # the plan's own arguments follow its name
    for start in starts:
        commas, spread = _top_level_arity(source, start)
        if commas >= fewest or (spread and commas >= fewest // 2):
            # (a `*seq` spread may stand for the positions up to the kv dtype: `w.plan(*geo, *dts)`)
            return True
    return False


def _top_level_commas(source: bytes, start: int, reach: int = 2000) -> int:
    """The commas at the bracket depth of a call whose `(` ends just before start, up to its `)`."""
    return _top_level_arity(source, start, reach)[0]


def _top_level_arity(source: bytes, start: int, reach: int = 2000) -> Tuple[int, bool]:
    """(the commas at the bracket depth of a call whose `(` ends just before start, up to its `)`;
    whether an argument there is a `*` spread)."""
    depth, commas, spread, last = 0, 0, False, 0x28  # `(`
    for i in range(start, min(len(source), start + reach)):
        c = source[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                return commas, spread
            depth -= 1
        elif c == 0x2C and depth == 0:  # `,`
            commas += 1
        elif c == 0x2A and depth == 0 and last in (0x28, 0x2C) and source[i + 1 : i + 2] != b"*":
            spread = True  # `(*args` or `, *args`, not `**kwargs` nor a product
        if c not in b" \t\r\n":
            last = c
    return commas, spread


_ARENA_TESTS: dict = {}  # id(Tables) -> (the tables, _arena_patterns(tables))
_OPEN, _CLOSE = b"([{", b")]}"


def may_allocate_arenas(source: bytes, tables: Tables, converts: bool = True) -> bool:
    """Could the text allocate per-layer arenas (an `[allocation]` call as the element of a
    comprehension: `[torch.zeros((size + 1, h, d)) for _ in range(layer_num)]`, a dict of those,
    a (k, v) pair of them) and convert something? Such a class's buffers are whole pools wherever
    they are read (`self.pool.arenas["k"][i]`) under any name, so no trigger word names them; the
    flow model decides from the allocation. Also an allocation stored into a container in a loop
    (`d[name] = torch.zeros(...)`, `xs.append(torch.empty(...))`) and one tensor of every layer
    (`torch.empty((num_layers, num_blocks, ...))`: a layer word, then a pool word, written there),
    and an allocation bound to a name in a loop over the layers.
    converts=False: the allocation alone (one class of a file that converts elsewhere). Cheap
    text tests first."""
    hit = _ARENA_TESTS.get(id(tables))
    if hit is None or hit[0] is not tables:
        hit = _ARENA_TESTS[id(tables)] = (tables, _arena_patterns(tables))
    calls, casts, layer_range, stacked, bound, self_stored, per_element, handed, pool_sized, weights = hit[1]
    if converts and not any(cast in source for cast in casts):
        return False
    allocations = [(m.start(), m.end()) for m in calls.finditer(source)]  # the name, just past its `(`
    if not allocations:
        return False  # every test below starts from one
    if any(stacked.match(source, end) for _, end in allocations):
        return True
    if b"for " in source and any(_stored(source, start) for start, _ in allocations):
        return True
    if any(  # (the line tests first: the construction's is a search of the whole text)
        pool_sized.match(source, end)
        and self_stored.match(source, source.rfind(b"\n", 0, start) + 1, start)
        and not weights.search(source, source.rfind(b"\n", 0, start) + 1, start)
        for start, end in allocations
    ) and (converts is False or _per_layer_construction(source, per_element, layer_range)):
        # `self.k = torch.empty(...)`, `self.register_buffer("k", nn.Buffer(torch.zeros(...)))` of a class
        # built once per element (`nn.ModuleList(Slot(...) for _ in ...)`, `xs.append(Slot(...))`)
        return True
    if b" for " not in source:
        return False
    if any(
        bound.search(source, m.end(), m.end() + 800) or handed.search(source, m.end(), m.end() + 800)
        for m in layer_range.finditer(source)
    ):
        return True  # `for _ in range(num_layers): k = torch.empty(...)`, `for n in group.layer_names`: one per layer
    return any(_comprehension_element(source, end, layer_range) for _, end in allocations)


def _arena_patterns(tables: Tables) -> tuple:
    """(an allocation call up to its `(`, the cast words, a loop over the layers, what a
    stacked allocation's arguments start with, an allocation bound to a name)."""
    import re

    functions = sorted(tables.allocation_functions, key=len, reverse=True)
    alternatives = b"|".join(re.escape(name.encode()) for name in functions)
    # (a lookahead of the names' first letters: the scan tries the alternatives at far fewer places)
    first = re.escape(bytes(sorted({name.encode()[0] for name in functions})))
    calls = re.compile((rb"\b(?=[" + first + rb"])(?:" if functions else rb"\b(?:") + alternatives + rb")\(")
    casts = tuple(f".{method}(".encode() for method in (*tables.casts, *tables.copy_methods))
    # the loop runs over the layers: its iterable names them ([allocation] layer_words): `for _ in
    # range(num_layers)`, `for name in group.layer_names` (ModuleAnalysis._in_layer_loop)
    layer_range = re.compile(
        rb"for\s+[\w, ()]+\s+in\s+[^:\n]{0,80}?(?:"
        + b"|".join(re.escape(w.encode()) for w in sorted(tables.layer_words))
        + rb")",
        re.IGNORECASE,
    )

    def words(group):
        return b"|".join(re.escape(w.encode()) for w in sorted(group))

    dimension = rb"[\w.]*?(?<![a-zA-Z0-9])(?:%s)(?![a-zA-Z0-9])[\w.]*"  # a word of it, `_`-separated
    # one tensor of every layer: `torch.empty((num_layers, num_blocks, ...))`, after the call's `(`
    # (or a pool's blocks first and its layers second: `(num_blocks, num_layers, 2, ...)`)
    stacked = re.compile(
        rb"\s*(?:size\s*=\s*)?[(\[]?\s*(?:"
        + dimension % words(tables.layer_words)
        + rb"\s*,\s*"
        + dimension % words(tables.pool_words)
        + rb"|"
        + dimension % words(tables.pool_words)
        + rb"\s*,\s*"
        + dimension % words(tables.layer_words)
        + rb")",
        re.IGNORECASE,
    )
    bound = re.compile(rb"=\s*(?:[\w.]*\.)?(?:" + alternatives + rb")\(")
    # an allocation stored on self, as it is or through a setter or wrapper ([callables] attribute_setters,
    # identity_wrappers): one layer's pool where its class is built once per layer (ModuleAnalysis._instance_arena)
    setters = sorted({n.rsplit(".", 1)[-1] for n in (*tables.attribute_setters, *tables.identity_wrappers)})
    self_stored = re.compile(
        rb"[^\n]*?(?:\bself\.\w+\s*(?::[^=\n]*)?=\s*|\b(?:"
        + b"|".join(re.escape(n.encode()) for n in setters)
        + rb")\()[^\n]*?(?:[\w.]*\.)?$"
    )
    # a construction made once per element: a comprehension's element (the `for` beside it), one in a
    # module container ([containers] module_containers), or stored in a container or set under a computed
    # name (in a loop: layer_range)
    containers = b"|".join(re.escape(n.rsplit(".", 1)[-1].encode()) for n in sorted(tables.module_containers))
    per_element = (
        re.compile(rb"\b[A-Z]\w*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)[ \t]+(?=for\b)"),
        re.compile(rb"\b(?:" + containers + rb")\(\s*[\[{(*]*\s*(?:[\w\"']+\s*:\s*)?[A-Z]\w*\(")
        if containers
        else None,
        re.compile(rb"\.append\(\s*[A-Z]\w*\(|\]\s*=\s*[A-Z]\w*\(|setattr\(\s*self\s*,\s*f[\"']"),
    )
    weights = re.compile(
        b"|".join(rb"\b" + re.escape(n.rsplit(".", 1)[-1].encode()) + rb"\(" for n in sorted(tables.weight_wrappers))
        or rb"(?!)"
    )
    # an allocation handed to a call (`Registry.publish(i, torch.empty(...))`): in a loop over the layers, one per layer
    handed = re.compile(rb"[(,]\s*(?:[\w.]*\.)?(?:" + alternatives + rb")\(")
    # the allocation's first dimension may be a pool's: a pool word or a shape name written there
    # (ModuleAnalysis._pool_sized), after the call's `(`
    pool_sized = re.compile(
        rb"\s*(?:size\s*=\s*)?[(\[]?\s*" + dimension % words(tables.pool_words | tables.extent_attributes),
        re.IGNORECASE,
    )
    return calls, casts, layer_range, stacked, bound, self_stored, per_element, handed, pool_sized, weights


def _per_layer_construction(source: bytes, per_element: tuple, layer_range) -> bool:
    """Could the text build an object once per layer: a comprehension over the layers whose element is a
    construction, a construction in a module container, or one stored in a loop over the layers?"""
    beside, contained, stored = per_element
    if contained is not None and contained.search(source):
        return True
    if any(layer_range.match(source, m.end()) for m in beside.finditer(source)):
        return True
    return any(stored.search(source, m.end(), m.end() + 800) for m in layer_range.finditer(source))


_WORD_OR_DOT = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
_SPACE = frozenset(b" \t\n\r\f\v")


def _stored(source: bytes, start: int) -> bool:
    """Is the allocation call whose name starts at start stored into a container:
    `d[k] = torch.zeros(...)`, `xs.append(torch.empty(...))`, `.insert(i, ...)`'s first
    argument (read backwards: `]` `=`, or `.append(` / `.insert(`, then an optional
    `torch.`-like prefix)?"""
    i = start
    if i and source[i - 1] == 0x2E:  # `.`: the prefix is the whole run of word characters and dots
        while i and source[i - 1] in _WORD_OR_DOT:
            i -= 1
    while i and source[i - 1] in _SPACE:
        i -= 1
    if not i:
        return False
    if source[i - 1] in b"([":  # `d[k] = (torch.empty(...), ...)`: the first of a (k, v) pair stored
        j = i - 1
        while j and source[j - 1] in _SPACE:
            j -= 1
        if j and source[j - 1] == 0x3D:
            i = j
    if source[i - 1] == 0x3D:  # `=`
        k = i - 1
        while k and source[k - 1] in _SPACE:
            k -= 1
        return bool(k) and source[k - 1] == 0x5D  # `]`
    if source[i - 1] == 0x28:  # `(`
        return source.endswith(b".append", 0, i - 1) or source.endswith(b".insert", 0, i - 1)
    return False


def _comprehension_element(source: bytes, start: int, layer_range, reach: int = 800) -> bool:
    """Is the call opened just before start the element of a comprehension: does a `for`
    follow at the bracket depth of the call's own expression, before its bracket closes?"""
    depth = 1
    for token in _TOKENS.finditer(source, start, min(len(source), start + reach)):
        c = token.group()
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth < -1:
                return False  # the enclosing bracket closed: no `for` in it
        elif depth in (0, -1) and c == b"for":  # -1: the call is a part of a (k, v) pair
            # `for` beside the call, over the layers (`for _ in range(num_layers)`): one arena per layer
            return layer_range.match(source, token.start()) is not None and _inside_a_bracket(source, start)
    return False


_TOKENS = __import__("re").compile(rb"[()\[\]{}]|(?<![\w.])for\b")


def _inside_a_bracket(source: bytes, start: int, reach: int = 800) -> bool:
    """Is the call whose `(` ends just before start inside an open bracket (scanning back)?"""
    depth, i = 0, start - 2  # start - 1 is the call's own `(`
    while i >= max(0, start - reach):
        c = source[i]
        if c in _CLOSE:
            depth += 1
        elif c in _OPEN:
            if depth == 0:
                return True
            depth -= 1
        i -= 1
    return False
