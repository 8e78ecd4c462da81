# Hazard case bodies for make_cases.py (round 6): (name, family, doc, code). Each code block follows the
# shared header (toy pool + _rand) and defines run_case(torch). Families not covered by rounds 1-5: code
# that runs implicitly under a construct or a read-only call whose dunder list (rules/casts.toml
# [cast_motion]) does not name it, or outside any listed construct.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


def std(name, family, doc, prelude, between, args="", call_args="", setup="", ret="0", cast=".float()",
        teardown=""):
    """The usual shape: Backend.forward casts the layer's K buffer, runs `between`, gathers."""
    between = textwrap.indent(textwrap.dedent(between).strip("\n"), " " * 8)
    setup = textwrap.indent(textwrap.dedent(setup).strip("\n"), " " * 4) if setup else ""
    if teardown:
        call = ("    try:\n        out = Backend(pool).forward(1, torch.tensor([3, 1])" + call_args + ")\n"
                "    finally:\n" + textwrap.indent(textwrap.dedent(teardown).strip("\n"), " " * 8))
    else:
        call = "    out = Backend(pool).forward(1, torch.tensor([3, 1])" + call_args + ")"
    case(name, family, doc, textwrap.dedent(prelude).strip("\n") + f'''


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices{args}):
        k = self.token_to_kv_pool.get_key_buffer(layer_id){cast}
{between}
        return k[kv_indices], {ret}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
{setup}
{call}
    return {{"out": out, "k": pool.k_buffer}}
''')


# ================================================================ A. copy.copy / copy.deepcopy
FAM_COPY = ("copy.copy / copy.deepcopy (tabled as view functions, so read-only) run the argument's copy protocol: "
            "__copy__, __deepcopy__, __reduce_ex__, __getstate__, __setstate__ of the file, which writes")

std("copy_copy_dunder", FAM_COPY,
    "snap = copy.copy(meta) between: the file's __copy__ commits the staged K row before it copies", '''
import copy


class StepMeta:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __copy__(self):
        # a snapshot must see the committed rows: commit the staged one first
        self.pool.k_buffer[1][3] = 0.5
        return StepMeta(self.pool, self.n)
''', "snap = copy.copy(meta)", args=", meta", call_args=", StepMeta(pool, 2)", ret="snap.n")

std("deepcopy_dunder", FAM_COPY,
    "snap = copy.deepcopy(meta) between: the file's __deepcopy__ commits the staged K row", '''
import copy


class StepMeta:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __deepcopy__(self, memo):
        self.pool.k_buffer[1][3] = 0.5
        return StepMeta(self.pool, self.n)
''', "snap = copy.deepcopy(meta)", args=", meta", call_args=", StepMeta(pool, 2)", ret="snap.n")

std("copy_reduce_ex", FAM_COPY,
    "copy.copy(meta) calls the file's __reduce_ex__ (no __copy__), which flushes the staged K row", '''
import copy


class StepMeta:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __reduce_ex__(self, protocol):
        self.pool.k_buffer[1][3] = 0.5
        return (StepMeta, (self.pool, self.n))
''', "snap = copy.copy(meta)", args=", meta", call_args=", StepMeta(pool, 2)", ret="snap.n")

std("copy_getstate", FAM_COPY,
    "copy.copy(meta): object.__reduce_ex__ calls the file's __getstate__ (it commits the staged K row)", '''
import copy


class StepMeta:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __getstate__(self):
        self.pool.k_buffer[1][3] = 0.5
        return {"pool": self.pool, "n": self.n}
''', "snap = copy.copy(meta)", args=", meta", call_args=", StepMeta(pool, 2)", ret="snap.n")

std("copy_setstate", FAM_COPY,
    "copy.copy(meta): the copy is rebuilt by the file's __setstate__ (it re-applies the staged K row)", '''
import copy


class StepMeta:
    pool = None

    def __init__(self, n):
        self.n = n

    def __setstate__(self, state):
        StepMeta.pool.k_buffer[1][3] = 0.5
        self.__dict__.update(state)
''', "snap = copy.copy(meta)", args=", meta", call_args=", StepMeta(2)", setup="StepMeta.pool = pool",
    ret="snap.n")

std("deepcopy_list_item", FAM_COPY,
    "copy.deepcopy([meta, 2]): deep-copying a list runs its items' __deepcopy__ (of the file: it writes)", '''
import copy


class StepMeta:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __deepcopy__(self, memo):
        self.pool.k_buffer[1][3] = 0.5
        return StepMeta(self.pool, self.n)
''', "snap = copy.deepcopy([meta, 2])", args=", meta", call_args=", StepMeta(pool, 2)", ret="snap[0].n")

# ================================================================ B. a dunder's result runs another dunder
FAM_RESULT = ("a dunder's result runs another dunder that the construct's list does not name: __len__'s result "
              "is converted by its __index__, a rich comparison's result is tested by its __bool__")

COUNT = '''
class LazyCount:
    """A count settled lazily: converting it to an index commits the staged K row first."""

    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __index__(self):
        self.pool.k_buffer[1][3] = 0.5
        return self.n


class Batch:
    def __init__(self, count):
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        if i >= 2:
            raise IndexError(i)
        return i
'''

std("len_result_index", FAM_RESULT,
    "n = len(batch): __len__ (read-only) returns a LazyCount, which len() converts by its __index__ (writes)",
    COUNT, "n = len(batch)", args=", batch", call_args=", Batch(LazyCount(pool, 2))", ret="n")

std("truth_len_result_index", FAM_RESULT,
    "'busy' if batch else 'idle': the truth test calls __len__ and converts its result by __index__ (writes)",
    COUNT, 'state = "busy" if batch else "idle"', args=", batch", call_args=", Batch(LazyCount(pool, 2))",
    ret="state")

std("reversed_len_result_index", FAM_RESULT,
    "list(reversed(batch)) of a sequence: reversed() calls __len__ and converts its result by __index__",
    COUNT, "order = list(reversed(batch))", args=", batch", call_args=", Batch(LazyCount(pool, 2))", ret="order")

VERDICT = '''
class Verdict:
    """A comparison outcome settled lazily: testing it commits the staged K row first."""

    def __init__(self, pool):
        self.pool = pool

    def __bool__(self):
        self.pool.k_buffer[1][3] = 0.5
        return True


class Req:
    def __init__(self, pool, prio):
        self.prio = prio
        self.verdict = Verdict(pool)

    def __eq__(self, other):
        return self.verdict

    def __lt__(self, other):
        return self.verdict

    def __gt__(self, other):
        return self.verdict

    __hash__ = object.__hash__
'''

std("in_list_eq_result_bool", FAM_RESULT,
    "req in [None, 'pad']: list.__contains__ tests the result of req.__eq__ (read-only) by its __bool__",
    VERDICT, 'pad = req in [None, "pad"]', args=", req", call_args=", Req(pool, 1)", ret="pad")

std("sorted_lt_result_bool", FAM_RESULT,
    "sorted([a, b]): the sort tests the result of __lt__ (read-only) by its __bool__ (writes)",
    VERDICT, "order = [r.prio for r in sorted([a, b])]", args=", a, b",
    call_args=", Req(pool, 1), Req(pool, 2)", ret="order")

std("max_gt_result_bool", FAM_RESULT,
    "max(a, b): max tests the result of __gt__ (read-only) by its __bool__ (writes)",
    VERDICT, "top = max(a, b).prio", args=", a, b", call_args=", Req(pool, 1), Req(pool, 2)", ret="top")

std("chained_compare_result_bool", FAM_RESULT,
    "0 < req < 9: a chained comparison tests the first comparison's result (req.__gt__, read-only) by its "
    "__bool__ before it goes on", VERDICT, "inside = 0 < req < 9", args=", req", call_args=", Req(pool, 1)",
    ret="inside is req.verdict")

# ================================================================ C. augmented assignment fallbacks
FAM_AUG = ("an augmented assignment falls back to the binary or the reflected operator when the target has no "
           "in-place one: n += x runs x.__radd__, acc += 1 runs acc.__add__, |= / -= / *= the reflected ones")

std("iadd_falls_back_radd", FAM_AUG,
    "n = kv_indices.numel(); n += extra: int has no __iadd__ for it, so extra.__radd__ runs (it writes)", '''
class Extra:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __radd__(self, other):
        self.pool.k_buffer[1][3] = 0.5
        return other + self.n
''', "n = kv_indices.numel()\nn += extra", args=", extra", call_args=", Extra(pool, 2)", ret="n")

std("iadd_falls_back_add", FAM_AUG,
    "acc += 1 on an object with __add__ only (no __iadd__): the file's __add__ runs (it writes)", '''
class Acc:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __add__(self, other):
        self.pool.k_buffer[1][3] = 0.5
        return Acc(self.pool, self.n + other)
''', "acc += 1", args=", acc", call_args=", Acc(pool, 2)", ret="acc.n")

std("ior_falls_back_ror", FAM_AUG,
    "mask = 0; mask |= flags: int | Flags falls back to Flags.__ror__ (it writes)", '''
class Flags:
    def __init__(self, pool, bits):
        self.pool = pool
        self.bits = bits

    def __ror__(self, other):
        self.pool.k_buffer[1][3] = 0.5
        return other | self.bits
''', "mask = 0\nmask |= flags", args=", flags", call_args=", Flags(pool, 6)", ret="mask")

std("isub_falls_back_rsub", FAM_AUG,
    "left = 100; left -= used: int - Used falls back to Used.__rsub__ (it writes)", '''
class Used:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __rsub__(self, other):
        self.pool.k_buffer[1][3] = 0.5
        return other - self.n
''', "left = 100\nleft -= used", args=", used", call_args=", Used(pool, 7)", ret="left")

std("imul_falls_back_rmul", FAM_AUG,
    "scale = 1.0; scale *= factor: float * Factor falls back to Factor.__rmul__ (it writes)", '''
class Factor:
    def __init__(self, pool, f):
        self.pool = pool
        self.f = f

    def __rmul__(self, other):
        self.pool.k_buffer[1][3] = 0.5
        return other * self.f
''', "scale = 1.0\nscale *= factor", args=", factor", call_args=", Factor(pool, 0.5)", ret="scale")

# ================================================================ D. %-formatting
FAM_PERCENT = ("%-formatting of a string runs dunders of its operand that the binary-operator list does not name: "
               "%f's __float__, %d's __int__, %(name)s's mapping __getitem__")

std("percent_f_float", FAM_PERCENT,
    "'ratio=%.2f' % ratio: %f converts the operand by its __float__ (of the file: it writes)", '''
class Ratio:
    def __init__(self, pool, v):
        self.pool = pool
        self.v = v

    def __float__(self):
        self.pool.k_buffer[1][3] = 0.5
        return self.v
''', 'tag = "ratio=%.2f" % ratio', args=", ratio", call_args=", Ratio(pool, 0.25)", ret="tag")

std("percent_d_int", FAM_PERCENT,
    "'rows=%d' % count: %d converts the operand by its __int__ (of the file: it writes)", '''
class Count:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __int__(self):
        self.pool.k_buffer[1][3] = 0.5
        return self.n
''', 'tag = "rows=%d" % count', args=", count", call_args=", Count(pool, 2)", ret="tag")

std("percent_mapping_getitem", FAM_PERCENT,
    "'%(mode)s' % meta: a non-tuple operand with __getitem__ is a mapping, read by its __getitem__ (it writes)", '''
class Meta:
    def __init__(self, pool, d):
        self.pool = pool
        self.d = d

    def __getitem__(self, key):
        self.pool.k_buffer[1][3] = 0.5
        return self.d[key]
''', 'tag = "mode=%(mode)s" % meta', args=", meta", call_args=', Meta(pool, {"mode": "decode"})', ret="tag")

# ================================================================ E. the import system
FAM_IMPORT = ("the import system runs code of the file: an import statement asks the sys.meta_path finders "
              "(find_spec), `from m import x` and `m.x` call a module's __getattr__ (PEP 562, a function, not a "
              "class member)")

std("import_meta_path_finder", FAM_IMPORT,
    "try: import _kv_fast_kernels except ImportError between: the import asks the file's meta_path finder, "
    "whose find_spec flushes the staged K row", '''
import sys


class PluginFinder:
    def __init__(self, pool):
        self.pool = pool

    def find_spec(self, name, path=None, target=None):
        if name == "_kv_fast_kernels_fb6":
            self.pool.k_buffer[1][3] = 0.5
        return None
''', '''
try:
    import _kv_fast_kernels_fb6  # noqa: F401
    fast = True
except ImportError:
    fast = False''', setup="finder = PluginFinder(pool)\nsys.meta_path.insert(0, finder)",
    teardown="sys.meta_path.remove(finder)", ret="fast")

std("from_import_module_getattr", FAM_IMPORT,
    "from _kv_plugins_fb6 import page_size between: the module's __getattr__ (a function set in run_case) "
    "flushes the staged K row", '''
import sys
import types


def _make_module(pool):
    mod = types.ModuleType("_kv_plugins_fb6")

    def lazy(name):
        if name == "page_size":
            pool.k_buffer[1][3] = 0.5
            return 16
        raise AttributeError(name)

    mod.__getattr__ = lazy
    return mod
''', "from _kv_plugins_fb6 import page_size", setup='sys.modules["_kv_plugins_fb6"] = _make_module(pool)',
    teardown='del sys.modules["_kv_plugins_fb6"]', ret="page_size")

std("module_attr_module_getattr", FAM_IMPORT,
    "plugins.page_size between, plugins a module object of the file whose __getattr__ (a module-level "
    "function) flushes the staged K row", '''
import types

plugins = types.ModuleType("kv_plugins")
_POOL = []


def _lazy_attr(name):
    if name == "page_size" and _POOL:
        _POOL[0].k_buffer[1][3] = 0.5
        return 16
    raise AttributeError(name)


plugins.__getattr__ = _lazy_attr
''', "ps = plugins.page_size", setup="_POOL.append(pool)", teardown="_POOL.clear()", ret="ps")

# ================================================================ F. audit hooks
FAM_AUDIT = ("a read-only builtin or attribute read raises an audit event (sys.addaudithook): id() raises "
             "builtins.id, reading a function's __code__ raises object.__getattr__; the file's hook writes")

AUDIT = '''
import sys

_ARMED = []


def _hook(event, args):
    if _ARMED and event in ("builtins.id", "object.__getattr__"):
        pool = _ARMED.pop()
        pool.k_buffer[1][3] = 0.5


def _score(a, b):
    return a + b
'''

std("audit_id_event", FAM_AUDIT,
    "key = id(req) between: id() raises the builtins.id audit event; the file's audit hook flushes the staged "
    "K row", AUDIT, "key = id(req)", args=", req", call_args=", object()",
    setup="sys.addaudithook(_hook)\n_ARMED.append(pool)", teardown="_ARMED.clear()", ret="key > 0")

std("audit_code_attr_event", FAM_AUDIT,
    "nargs = _score.__code__.co_argcount between: reading __code__ raises the object.__getattr__ audit event",
    AUDIT, "nargs = _score.__code__.co_argcount", setup="sys.addaudithook(_hook)\n_ARMED.append(pool)",
    teardown="_ARMED.clear()", ret="nargs")

std("audit_getattr_code_event", FAM_AUDIT,
    "getattr(_score, '__code__') between (a read-only builtin on a function of the file): the audit event "
    "object.__getattr__ runs the hook", AUDIT, 'code = getattr(_score, "__code__")',
    setup="sys.addaudithook(_hook)\n_ARMED.append(pool)", teardown="_ARMED.clear()", ret="code.co_argcount")

# ================================================================ G. raise constructs a class
FAM_RAISE = ("raising a class constructs it (no call is spelled): `raise Cls` and `raise X from Cls` run the "
             "file's __init__, which writes")

FLUSH = '''
class FlushRequest(Exception):
    pool = None

    def __init__(self, *args):
        super().__init__(*args)
        if FlushRequest.pool is not None:
            FlushRequest.pool.k_buffer[1][3] = 0.5
'''

std("raise_class_init", FAM_RAISE,
    "try: raise FlushRequest except FlushRequest: between: the raise instantiates the class (its __init__ writes)",
    FLUSH, '''
try:
    raise FlushRequest
except FlushRequest:
    flushed = True''', setup="FlushRequest.pool = pool", teardown="FlushRequest.pool = None", ret="flushed")

std("raise_from_class_init", FAM_RAISE,
    "raise KeyError(...) from FlushRequest (caught): the cause, a class, is instantiated (its __init__ writes)",
    FLUSH, '''
try:
    raise KeyError("slot") from FlushRequest
except KeyError as e:
    cause = type(e.__cause__).__name__''', setup="FlushRequest.pool = pool", teardown="FlushRequest.pool = None",
    ret="cause")

# ================================================================ H. drops by bindings that are not assignments
FAM_DROP = ("the last reference to an object with a __del__ of the file is dropped by a binding that is not an "
            "assignment, a for target or a walrus: an `except ... as e` target, `import ... as e`, a `def e`, a "
            "slice store emptying the list that held it")

STAGED = '''
class StagedRow:
    """Drops its staged K row into the pool when it is collected."""

    def __init__(self, pool):
        self.pool = pool

    def __del__(self):
        self.pool.k_buffer[1][3] = 0.5
'''


def drop_case(name, doc, stmt, ret="0"):
    case(name, FAM_DROP, doc, STAGED + '''

class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.staged = [StagedRow(pool)]

    def forward(self, layer_id, kv_indices):
        e = self.staged.pop()
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
''' + textwrap.indent(textwrap.dedent(stmt).strip("\n"), " " * 8) + f'''
        return k[kv_indices], {ret}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {{"out": out, "k": pool.k_buffer}}
''')


drop_case("except_as_rebind_del",
          "try: int('x') except ValueError as e: between: binding the handler's name drops the StagedRow that e "
          "held (its __del__ writes)", '''
try:
    int("x")
except ValueError as e:
    bad = str(e)''', ret="bad")

drop_case("import_as_rebind_del",
          "import math as e between: the import binds e, dropping the StagedRow it held (its __del__ writes)",
          "import math as e", ret="e.floor(2.5)")

drop_case("def_rebind_del",
          "def e(): ... between: a nested def binds e, dropping the StagedRow it held (its __del__ writes)", '''
def e():
    return 2''', ret="e()")


case("slice_store_drops_del", FAM_DROP,
     "pending[:] = [] between, pending a local list holding the only reference to a StagedRow: the slice "
     "store drops it (its __del__ writes)", STAGED + '''

class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        pending = [StagedRow(self.token_to_kv_pool)]
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        pending[:] = []
        return k[kv_indices], len(pending)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ I. library descriptors on members
FAM_DESCR = ("a member read runs a getter through a library descriptor that the property list does not name: "
             "abc.abstractproperty, types.DynamicClassAttribute, enum.property, builtins.property, "
             "classmethod stacked on property")


def descr_case(name, doc, imp, deco, read="meta.pending"):
    std(name, FAM_DESCR, doc, f'''
{imp}


class StepMeta:
    pool = None

    def __init__(self, n):
        self.n = n

{deco}
    def pending(self):
        # reading the pending count first commits the staged K row
        StepMeta.pool.k_buffer[1][3] = 0.5
        return 2
''', f"n = {read}", args=", meta", call_args=", StepMeta(2)", setup="StepMeta.pool = pool", ret="n")


descr_case("abstractproperty_read", "meta.pending, a getter under @abc.abstractproperty (a property subclass of "
           "the library) on a class without ABC", "import abc", "    @abc.abstractproperty")
descr_case("dynamic_class_attribute_get", "meta.pending, a getter under @types.DynamicClassAttribute (read)",
           "import types", "    @types.DynamicClassAttribute")
descr_case("enum_property_read", "meta.pending, a getter under @enum.property on a plain class (not an Enum)",
           "import enum", "    @enum.property")
descr_case("builtins_property_read", "meta.pending, a getter under @builtins.property (property spelled through "
           "the builtins module)", "import builtins", "    @builtins.property")
descr_case("classmethod_property_read", "type(meta).pending, a getter under @classmethod stacked on @property "
           "(Python 3.9-3.12 run it on a class attribute read)", "import functools  # noqa: F401",
           "    @classmethod\n    @property", read="type(meta).pending")

# ================================================================ J. class checks read attributes
FAM_CLASSCHECK = ("isinstance / issubclass read attributes that their dunder list does not name: the instance's "
                  "__class__ through the file's __getattribute__, a class-like object's __bases__ property")

std("isinstance_getattribute_class", FAM_CLASSCHECK,
    "isinstance(req, int): the check reads req.__class__ through the file's __getattribute__ (it writes)", '''
class Req:
    pool = None

    def __getattribute__(self, name):
        if name == "__class__" and Req.pool is not None:
            Req.pool.k_buffer[1][3] = 0.5
        return object.__getattribute__(self, name)
''', "is_int = isinstance(req, int)", args=", req", call_args=", Req()", setup="Req.pool = pool",
    teardown="Req.pool = None", ret="is_int")

BASES = '''
class ClassSpec:
    """A class-like spec object; its bases are resolved lazily (the staged K row is committed first)."""

    pool = None

    @property
    def __bases__(self):
        ClassSpec.pool.k_buffer[1][3] = 0.5
        return ()
'''

std("issubclass_bases_property", FAM_CLASSCHECK,
    "issubclass(spec, int), spec an object with a __bases__ property: the check reads it (it writes)", BASES,
    "sub = issubclass(spec, int)", args=", spec", call_args=", ClassSpec()", setup="ClassSpec.pool = pool",
    ret="sub")

std("isinstance_bases_property_cls", FAM_CLASSCHECK,
    "isinstance(3, spec), spec an object with a __bases__ property as the class: the check reads it (writes)",
    BASES, "inst = isinstance(3, spec)", args=", spec", call_args=", ClassSpec()", setup="ClassSpec.pool = pool",
    ret="inst")

# ================================================================ K. a builtin's other argument
FAM_ARGS = ("a read-only builtin runs a dunder of an argument its callback entry does not list: round()'s "
            "ndigits and sorted()'s reverse (__index__), zip()'s strict (__bool__), getattr/hasattr's name (a str "
            "subclass's __hash__), iter(f, sentinel)'s sentinel (__eq__)")

INDEX = '''
class Digits:
    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __index__(self):
        self.pool.k_buffer[1][3] = 0.5
        return self.n

    def __bool__(self):
        self.pool.k_buffer[1][3] = 0.5
        return True
'''

std("round_ndigits_index", FAM_ARGS, "round(0.123456, digits): round converts ndigits by its __index__ (writes)",
    INDEX, "scale = round(0.123456, digits)", args=", digits", call_args=", Digits(pool, 3)", ret="scale")

std("sorted_reverse_index", FAM_ARGS, "sorted(slots, reverse=desc): reverse is converted by its __index__",
    INDEX, "order = sorted([3, 1, 2], reverse=desc)", args=", desc", call_args=", Digits(pool, 1)", ret="order")

std("zip_strict_bool", FAM_ARGS, "list(zip(a, b, strict=check)): strict is tested by its __bool__ (writes)",
    INDEX, "pairs = list(zip([1, 2], [3, 4], strict=check))", args=", check", call_args=", Digits(pool, 1)",
    ret="pairs")

NAME = '''
class AttrName(str):
    """An attribute name that commits the staged K row when it is hashed (looked up)."""

    pool = None

    def __hash__(self):
        if AttrName.pool is not None:
            AttrName.pool.k_buffer[1][3] = 0.5
        return str.__hash__(self)

    __eq__ = str.__eq__


class Conf:
    page_size = 16
'''

std("getattr_str_subclass_name_hash", FAM_ARGS,
    "getattr(conf, name), name a str subclass: the attribute lookup hashes the name (its __hash__ writes)",
    NAME, "ps = getattr(conf, name)", args=", conf, name", call_args=', Conf(), AttrName("page_size")',
    setup="AttrName.pool = pool", teardown="AttrName.pool = None", ret="ps")

std("hasattr_str_subclass_name_hash", FAM_ARGS,
    "hasattr(conf, name), name a str subclass: the lookup hashes the name (its __hash__ writes)",
    NAME, "has = hasattr(conf, name)", args=", conf, name", call_args=', Conf(), AttrName("page_size")',
    setup="AttrName.pool = pool", teardown="AttrName.pool = None", ret="has")

std("iter_sentinel_eq", FAM_ARGS,
    "next(iter(self.poll, stop)): the callable iterator compares each result with the sentinel, whose "
    "reflected __eq__ (of the file) writes", '''
class Stop:
    def __init__(self, pool):
        self.pool = pool

    def __eq__(self, other):
        self.pool.k_buffer[1][3] = 0.5
        return False

    __hash__ = object.__hash__


def poll():
    return 5
''', "first = next(iter(poll, stop))", args=", stop", call_args=", Stop(pool)", ret="first")

# ================================================================ L. statements
FAM_STMT = ("a statement runs a dunder of the file: assert's and while's truth test (__bool__), `del obj.attr` "
            "(a descriptor's __delete__, __delattr__), `del obj[key]` (__delitem__), a store into a local dict "
            "(the key's __hash__)")

GATE = '''
class Gate:
    def __init__(self, pool):
        self.pool = pool

    def __bool__(self):
        self.pool.k_buffer[1][3] = 0.5
        return True
'''

std("assert_bool", FAM_STMT, "assert gate, 'closed' between: the assert tests gate by its __bool__ (writes)",
    GATE, 'assert gate, "closed"', args=", gate", call_args=", Gate(pool)", ret="1")

std("while_bool", FAM_STMT, "while gate: ... break between: the loop tests gate by its __bool__ (writes)",
    GATE, '''
spins = 0
while gate:
    spins += 1
    break''', args=", gate", call_args=", Gate(pool)", ret="spins")

std("del_attr_descriptor_delete", FAM_STMT,
    "del meta.hint between: a data descriptor of the file's __delete__ runs (it writes)", '''
class Hint:
    pool = None

    def __get__(self, obj, objtype=None):
        return 0

    def __set__(self, obj, value):
        pass

    def __delete__(self, obj):
        Hint.pool.k_buffer[1][3] = 0.5


class StepMeta:
    hint = Hint()
''', "del meta.hint", args=", meta", call_args=", StepMeta()", setup="Hint.pool = pool")

std("del_attr_delattr", FAM_STMT, "del meta.hint between: the file's __delattr__ runs (it writes)", '''
class StepMeta:
    def __init__(self, pool):
        object.__setattr__(self, "pool", pool)
        object.__setattr__(self, "hint", 1)

    def __delattr__(self, name):
        self.pool.k_buffer[1][3] = 0.5
        object.__delattr__(self, name)
''', "del meta.hint", args=", meta", call_args=", StepMeta(pool)")

std("del_item_file_delitem", FAM_STMT,
    "del table[0] between, table an object of the file: its __delitem__ runs (it writes)", '''
class SlotTable:
    def __init__(self, pool):
        self.pool = pool
        self.rows = [0, 1]

    def __delitem__(self, i):
        self.pool.k_buffer[1][3] = 0.5
        del self.rows[i]
''', "del table[0]", args=", table", call_args=", SlotTable(pool)", ret="table.rows")

std("dict_store_key_hash", FAM_STMT,
    "seen = {}; seen[req] = 1 between: the store into a local dict hashes the key (its __hash__ writes)", '''
class Req:
    def __init__(self, pool, rid):
        self.pool = pool
        self.rid = rid

    def __hash__(self):
        self.pool.k_buffer[1][3] = 0.5
        return hash(self.rid)
''', "seen = {}\nseen[req] = 1", args=", req", call_args=", Req(pool, 7)", ret="len(seen)")

# ================================================================ M. the gather is not defined for the stored dtype
FAM_GDTYPE = ("the gather is not implemented on CPU for the stored dtype (uint16 / uint32 / complex32, spellings "
              "round 3 did not use): moved before the cast, it raises NotImplementedError")


def gdtype_case(name, doc, dtype, cast, gather, ret_buf="k"):
    case(name, FAM_GDTYPE, doc, f'''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        mask = torch.zeros(16, 2, 4, dtype=torch.bool)
        mask[kv_indices] = True
        k = self.token_to_kv_pool.get_key_buffer(layer_id){cast}
        return {gather}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype={dtype})
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {{"out": out, "k": pool.k_buffer}}
''')


gdtype_case("masked_select_uint16", "k.masked_select(mask) of a uint16 pool's .float(): masked_select has no "
            "UInt16 kernel", "torch.uint16", ".float()", "k.masked_select(mask)")
gdtype_case("torch_masked_select_uint32", "torch.masked_select(k, mask) of a uint32 pool's .double(): no UInt32 "
            "kernel", "torch.uint32", ".double()", "torch.masked_select(k, mask)")
gdtype_case("take_complex32", "torch.take(k, idx) of a complex32 pool's .to(torch.complex64): take has no "
            "ComplexHalf kernel", "torch.complex32", ".to(torch.complex64)", "torch.take(k, kv_indices)")
