# Hazard case bodies for make_cases.py (round 5): (name, family, doc, code). Each code block follows the
# shared header (toy pool + _rand) and defines run_case(torch). Families not covered by rounds 1-4, or
# new spellings of old ones that a proof may miss.
CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


BACKEND = '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
'''

RUN = '''

def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
'''

# ================================================================ A. nn.Module conversions
FAM_MODULE = ("an nn.Module conversion method with a read-only name (to / bfloat16 / type) converts the module's "
              "Parameters in place (param.data = ...); the pool's buffer is one of them")

case("module_to_param_swap", FAM_MODULE,
     "self.snapshot.to(torch.float8_e5m2) between: the snapshot module holds the pool's K buffers as frozen "
     "Parameters, so the pool buffer itself becomes e5m2 (moved, the gather reads the rounded values)", '''
class KVSnapshot(torch.nn.Module):
    """Holds the pool's per-layer K buffers as frozen parameters (for a state_dict dump)."""

    def __init__(self, pool):
        super().__init__()
        self.keys = torch.nn.ParameterList([torch.nn.Parameter(b, False) for b in pool.k_buffer])
        pool.k_buffer = list(self.keys)


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.snapshot = KVSnapshot(pool)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.snapshot.to(torch.float8_e5m2)
        return k[kv_indices]
''' + RUN)

case("self_module_bfloat16", FAM_MODULE,
     "self.bfloat16() between, on an attention module that registered the (float32) pool's K buffer as a "
     "Parameter: the pool buffer becomes bf16 in place", '''
class Attn(torch.nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.token_to_kv_pool = pool
        self.k_arena = torch.nn.Parameter(pool.k_buffer[1], False)
        pool.k_buffer[1] = self.k_arena

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).double()
        self.bfloat16()
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.float32)
    out = Attn(pool)(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("module_type_param_swap", FAM_MODULE,
     "self.mirror.type(torch.float16) between (Module.type converts every parameter in place); the mirror's "
     "parameter is the float32 pool's K buffer", '''
class Mirror(torch.nn.Module):
    def __init__(self, buf):
        super().__init__()
        self.k = torch.nn.Parameter(buf, False)


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.mirror = Mirror(pool.k_buffer[1])
        pool.k_buffer[1] = self.mirror.k

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).double()
        self.mirror.type(torch.float16)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.float32)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ B. library dunders calling the file's code
FAM_MIXIN = ("a library dunder (a stdlib base class, mixin or generated method) calls code of the file that the "
             "construct's own dunder names do not show")

case("userlist_len_data_property", FAM_MIXIN,
     "len(self.pending): UserList.__len__ reads self.data, a property of the file's subclass that commits "
     "the staged K stores", '''
import collections


class PendingStores(collections.UserList):
    """Staged K stores; .data is what has been committed, so reading it commits what is staged."""

    def __init__(self, pool, staged):
        self.pool = pool
        self.staged = list(staged)
        self.committed = []

    @property
    def data(self):
        for layer, slot in self.staged:
            self.pool.k_buffer[layer][slot] = 0.5
            self.committed.append((layer, slot))
        self.staged = []
        return self.committed


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.pending = PendingStores(pool, [(1, 3)])

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = len(self.pending)
        return k[kv_indices], n
''' + RUN)

case("fraction_round_numerator", FAM_MIXIN,
     "round(budget): Fraction.__round__ reads self.numerator, a property of the file's Fraction subclass "
     "that settles pending K stores", '''
import fractions


class TokenBudget(fractions.Fraction):
    """A fractional page budget; its numerator is settled lazily (pending KV stores land first)."""

    pool = None

    @property
    def numerator(self):
        if TokenBudget.pool is not None:
            TokenBudget.pool.k_buffer[1][3] = 0.5
        return self._numerator
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, budget):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        pages = round(budget)
        return k[kv_indices], pages


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    budget = TokenBudget(7, 2)
    TokenBudget.pool = pool
    out = Backend(pool).forward(1, torch.tensor([3, 1]), budget)
    return {"out": out, "k": pool.k_buffer}
''')

case("total_ordering_max", FAM_MIXIN,
     "max(a, b) calls __gt__, which functools.total_ordering generated from the file's __le__ (that writes)", '''
import functools


@functools.total_ordering
class Request:
    def __init__(self, pool, prio, slots):
        self.pool = pool
        self.prio = prio
        self.slots = slots

    def __eq__(self, other):
        return self.prio == other.prio

    def __le__(self, other):
        # ranking a request settles its lazily written KV
        self.pool.k_buffer[1][3] = 0.5
        return self.prio <= other.prio
''' + BACKEND + '''
    def forward(self, layer_id, a, b):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        req = max(a, b)
        return k[req.slots]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    a = Request(pool, 1, torch.tensor([3, 1]))
    b = Request(pool, 2, torch.tensor([3, 2]))
    out = Backend(pool).forward(1, a, b)
    return {"out": out, "k": pool.k_buffer}
''')

case("mapping_mixin_eq_getitem", FAM_MIXIN,
     "meta == {...}: Mapping.__eq__ (the mixin's) builds dict(self.items()), which calls the file's "
     "__getitem__ (it publishes staged KV)", '''
import collections.abc


class BatchMeta(collections.abc.Mapping):
    """Read-only view of the step's metadata; reading an entry first publishes the staged KV."""

    def __init__(self, pool, d):
        self.pool = pool
        self._d = dict(d)

    def __getitem__(self, key):
        self.pool.k_buffer[1][3] = 0.5
        return self._d[key]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, meta):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        decode = meta == {"mode": "decode"}
        return k[kv_indices], decode


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]), BatchMeta(pool, {"mode": "decode"}))
    return {"out": out, "k": pool.k_buffer}
''')

case("counter_add_items", FAM_MIXIN,
     "hits + new_hits: Counter.__add__ iterates self.items(), overridden by the file's Counter subclass "
     "(it publishes staged KV so the counts match the pool)", '''
import collections


class Hits(collections.Counter):
    pool = None

    def items(self):
        if Hits.pool is not None:
            Hits.pool.k_buffer[1][3] = 0.5
        return super().items()
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, hits, new_hits):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        total = hits + new_hits
        return k[kv_indices], sorted(total.values())


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    hits, new_hits = Hits({3: 1}), Hits({3: 2, 1: 1})
    Hits.pool = pool
    out = Backend(pool).forward(1, torch.tensor([3, 1]), hits, new_hits)
    return {"out": out, "k": pool.k_buffer}
''')

case("dataclass_repr_descriptor_get", FAM_MIXIN,
     "repr(info) of a dataclass: the generated __repr__ reads a field that is a descriptor of the file "
     "(its __get__ commits the staged row)", '''
import dataclasses


class Committed:
    """Descriptor: reading the field commits the staged K row first."""

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return 0
        obj.pool.k_buffer[1][3] = 0.5
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        setattr(obj, self.name, value)


@dataclasses.dataclass
class StepInfo:
    pool: object = dataclasses.field(repr=False)
    n_rows: int = Committed()
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, info):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        tag = repr(info)
        return k[kv_indices], tag


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    info = StepInfo(pool, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]), info)
    return {"out": out, "k": pool.k_buffer}
''')

case("abc_subclasses_override", FAM_MIXIN,
     "isinstance(req, KVOp) of an ABC: ABCMeta's subclass check calls cls.__subclasses__(), a classmethod of "
     "the file that builds its registry lazily (and flushes staged writes)", '''
import abc


class KVOp(abc.ABC):
    pool = None

    @classmethod
    def __subclasses__(cls):
        if KVOp.pool is not None:
            KVOp.pool.k_buffer[1][3] = 0.5
        return []


class Req:
    pass
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, req):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        is_op = isinstance(req, KVOp)
        return k[kv_indices], is_op


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    KVOp.pool = pool
    out = Backend(pool).forward(1, torch.tensor([3, 1]), Req())
    return {"out": out, "k": pool.k_buffer}
''')

case("integral_mixin_slice_bound", FAM_MIXIN,
     "kv_indices[:live] with live a numbers.Integral: the mixin's __index__ calls int(self), the file's "
     "__int__ (it waits for and commits the pending stores)", '''
import numbers


class LiveCount(numbers.Integral):
    """How many of the step's slots are live; converting it to an int commits the pending stores."""

    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __int__(self):
        self.pool.k_buffer[1][3] = 0.5
        return self.n


LiveCount.__abstractmethods__ = frozenset()
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, live):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        sel = kv_indices[:live]
        return k[sel]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1, 2]), LiveCount(pool, 2))
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ C. hashing by displays and `in`
FAM_HASH = "a set / dict display or an `in` test of a set literal hashes an object: its __hash__ (of the file) writes"

REQ_HASH = '''
class Req:
    def __init__(self, pool, rid):
        self.pool = pool
        self.rid = rid

    def __hash__(self):
        # hashing a request publishes its pending KV (a set of requests sees the stored rows)
        self.pool.k_buffer[1][3] = 0.5
        return hash(self.rid)

    def __eq__(self, other):
        return self is other
'''


def hash_case(name, doc, stmt, ret):
    case(name, FAM_HASH, doc, REQ_HASH + BACKEND + f'''
    def forward(self, layer_id, kv_indices, req):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        {stmt}
        return k[kv_indices], {ret}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]), Req(pool, 7))
    return {{"out": out, "k": pool.k_buffer}}
''')


hash_case("set_display_hash", "batch = {req}: a set display hashes req", "batch = {req}", "len(batch)")
hash_case("dict_display_key_hash", "owners = {req: layer_id}: a dict display hashes its key", "owners = {req: layer_id}",
          "len(owners)")
hash_case("in_set_literal_hash", "req in {None, 'pad'}: membership in a set literal hashes req",
          'padded = req in {None, "pad"}', "padded")

# ================================================================ D. match statements
FAM_MATCH = "a match statement runs implicit code: a class pattern's attribute read, a mapping pattern's get, a sequence pattern's items, a value pattern's =="

case("match_class_pattern_property", FAM_MATCH,
     "case Batch(slots=slots): the class pattern reads batch.slots, a property that settles the staged KV", '''
class Batch:
    def __init__(self, pool, slots):
        self.pool = pool
        self._slots = slots

    @property
    def slots(self):
        # the slot list is final once the pending stores are in
        self.pool.k_buffer[1][3] = 0.5
        return self._slots
''' + BACKEND + '''
    def forward(self, layer_id, batch):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        match batch:
            case Batch(slots=slots):
                return k[slots]
        return None


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, Batch(pool, torch.tensor([3, 1])))
    return {"out": out, "k": pool.k_buffer}
''')

case("match_mapping_pattern_getitem", FAM_MATCH,
     "case {'slots': slots}: a mapping pattern calls meta.get(), the Mapping mixin's, which calls the file's "
     "__getitem__ (it publishes staged KV)", '''
import collections.abc


class BatchMeta(collections.abc.Mapping):
    def __init__(self, pool, d):
        self.pool = pool
        self._d = dict(d)

    def __getitem__(self, key):
        self.pool.k_buffer[1][3] = 0.5
        return self._d[key]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)
''' + BACKEND + '''
    def forward(self, layer_id, meta):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        match meta:
            case {"slots": slots}:
                return k[slots]
        return None


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, BatchMeta(pool, {"slots": torch.tensor([3, 1])}))
    return {"out": out, "k": pool.k_buffer}
''')

case("match_sequence_pattern_getitem", FAM_MATCH,
     "case [first, second]: a sequence pattern reads the items of a collections.abc.Sequence of the file "
     "(its __getitem__ allocates the slot, storing its pending KV)", '''
import collections.abc


class SlotList(collections.abc.Sequence):
    def __init__(self, pool, slots):
        self.pool = pool
        self._slots = list(slots)

    def __len__(self):
        return len(self._slots)

    def __getitem__(self, i):
        self.pool.k_buffer[1][3] = 0.5
        return self._slots[i]
''' + BACKEND + '''
    def forward(self, layer_id, slots):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        match slots:
            case [first, second]:
                return k[[first, second]]
        return None


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, SlotList(pool, [3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("match_value_pattern_eq", FAM_MATCH,
     "case Modes.DECODE: a value pattern compares phase == 'decode', the file's __eq__ (it settles the "
     "pending KV of the last phase)", '''
class Modes:
    DECODE = "decode"
    EXTEND = "extend"


class Phase:
    def __init__(self, pool, name):
        self.pool = pool
        self.name = name

    def __eq__(self, other):
        self.pool.k_buffer[1][3] = 0.5
        return self.name == other

    __hash__ = object.__hash__
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, phase):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        match phase:
            case Modes.DECODE:
                return k[kv_indices]
            case _:
                return None


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]), Phase(pool, "decode"))
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ E. torch calls running their arguments' dunders
FAM_TORCH_ARG = ("a read-only torch function or tensor method runs a dunder of its argument (the sequence protocol, "
                 "__index__ for a size or a bound) that writes")

case("torch_tensor_sequence_protocol", FAM_TORCH_ARG,
     "idx = torch.tensor(src): torch.tensor reads a sequence through __len__/__getitem__; the file's "
     "__getitem__ allocates the slot (storing its pending KV)", '''
class SlotSource:
    def __init__(self, pool, slots):
        self.pool = pool
        self.slots = list(slots)

    def __len__(self):
        return len(self.slots)

    def __getitem__(self, i):
        self.pool.k_buffer[1][3] = 0.5
        return self.slots[i]
''' + BACKEND + '''
    def forward(self, layer_id, src):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        idx = torch.tensor(src)
        return k[idx]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, SlotSource(pool, [3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

COUNT = '''
class PendingCount:
    """A count that is final once the pending stores are committed (__index__ commits them)."""

    def __init__(self, pool, n):
        self.pool = pool
        self.n = n

    def __index__(self):
        self.pool.k_buffer[1][3] = 0.5
        return self.n
'''


def count_case(name, doc, stmt, ret):
    case(name, FAM_TORCH_ARG, doc, COUNT + BACKEND + f'''
    def forward(self, layer_id, kv_indices, n):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        {stmt}
        return {ret}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]), PendingCount(pool, 2))
    return {{"out": out, "k": pool.k_buffer}}
''')


count_case("torch_zeros_index_dunder", "pad = torch.zeros(n): the size's __index__ commits pending stores",
           "pad = torch.zeros(n)", "k[kv_indices], pad")
count_case("new_zeros_index_dunder", "mask = kv_indices.new_zeros(n): the size's __index__ commits pending stores",
           "mask = kv_indices.new_zeros(n)", "k[kv_indices], mask")
count_case("narrow_index_dunder", "sel = kv_indices.narrow(0, 0, n): the length's __index__ commits pending stores",
           "sel = kv_indices.narrow(0, 0, n)", "k[sel]")

# ================================================================ F. the cast variable read implicitly
FAM_IMPLICIT_READ = ("the cast variable is read implicitly after the gather (locals(), eval, a frame's f_locals, a "
                     "traceback's frame): the fix leaves the unconverted pool under the name")

case("locals_snapshot", FAM_IMPLICIT_READ, "self.last_locals = dict(locals()) after the gather (a debug dump)", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        self.last_locals = dict(locals())
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward(1, torch.tensor([3, 1]))
    return {"out": out, "dumped_k": be.last_locals["k"], "k": pool.k_buffer}
''')

case("eval_reads_cast_var", FAM_IMPLICIT_READ, "eval('k.dtype') after the gather", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        return rows, str(eval("k.dtype"))
''' + RUN)

case("getframe_f_locals", FAM_IMPLICIT_READ, "sys._getframe().f_locals['k'] after the gather", '''
import sys
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        seen = sys._getframe().f_locals["k"]
        return rows, seen.dtype
''' + RUN)

case("traceback_frame_locals", FAM_IMPLICIT_READ,
     "forward raises after the gather; the caller reads k from the traceback's frame (e.__traceback__.tb_next."
     "tb_frame.f_locals), as a post-mortem logger does", BACKEND + '''
    def forward(self, layer_id, kv_indices, limit):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        if rows.abs().max() > limit:
            raise OverflowError("kv rows out of range")
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    try:
        out = Backend(pool).forward(1, torch.tensor([3, 1]), 0.0)
    except OverflowError as e:
        frame = e.__traceback__.tb_next.tb_frame
        out = str(frame.f_locals["k"].dtype)
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ G. aliases from expressions that look fresh
FAM_FRESH_ALIAS = ("an alias of the pool from an expression that looks like it makes a new value (a boolean "
                   "operator, .real, to_dense(), dropout in eval, a file operator returning the buffer), written between")


def fresh_alias(name, doc, make, store="alias[3] = 0.5", pre="", init=""):
    case(name, FAM_FRESH_ALIAS, doc, pre + f'''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool{init}

    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        alias = {make}
        k = buf.float()
        {store}
        return k[kv_indices]
''' + RUN)


fresh_alias("boolop_and_alias_store", "alias = layer_id >= 0 and buf: `and` returns its last operand, the buffer itself",
            "layer_id >= 0 and buf")
fresh_alias("boolop_or_alias_store", "alias = self.staging or buf: `or` returns buf when there is no staging buffer",
            "self.staging or buf", init="\n        self.staging = None")
fresh_alias("real_attr_alias_store", "alias = buf.real: .real of a real tensor is the tensor itself", "buf.real")
fresh_alias("to_dense_alias_store", "alias = buf.to_dense(): a strided tensor's to_dense() is the tensor itself",
            "buf.to_dense()")
fresh_alias("dropout_eval_alias_store", "alias = F.dropout(buf, 0.0, False): not training, dropout returns its input",
            "torch.nn.functional.dropout(buf, 0.0, False)")

case("dunder_add_returns_pool", FAM_FRESH_ALIAS,
     "alias = self.layers + layer_id: the file's __add__ (read-only) returns the pool's buffer of that layer; "
     "alias[3] = 0.5 writes the pool", '''
class LayerTable:
    """`table + i` is layer i's K buffer (an offset into the table)."""

    def __init__(self, pool):
        self.pool = pool

    def __add__(self, offset):
        return self.pool.k_buffer[offset]


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.layers = LayerTable(pool)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        alias = self.layers + layer_id
        alias[3] = 0.5
        return k[kv_indices]
''' + RUN)

# ================================================================ H. writers under read-only method names
FAM_READONLY_NAME = ("a writer reached under a read-only method name (tolist / item) through a library object or a "
                     "generated constructor: a Mock's side_effect, a dataclass / namedtuple field, __getattr__, a "
                     "class-body alias")

case("mock_side_effect_tolist", FAM_READONLY_NAME,
     "self.sched = mock.Mock(**{'tolist.side_effect': self._admit}); sched.tolist() runs _admit, which stores K", '''
from unittest import mock


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.sched = mock.Mock(**{"tolist.side_effect": self._admit})

    def _admit(self):
        self.token_to_kv_pool.k_buffer[1][3] = 0.5
        return [3, 1]

    def forward(self, layer_id):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        slots = self.sched.tolist()
        return k[slots]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1)
    return {"out": out, "k": pool.k_buffer}
''')

case("dataclass_field_item", FAM_READONLY_NAME,
     "Hooks(self._sync) of a dataclass with a field named item: hooks.item() is the bound writer (the "
     "generated __init__ stores it)", '''
import dataclasses
import typing


@dataclasses.dataclass
class Hooks:
    item: typing.Callable[[], int]


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.hooks = Hooks(self._sync)

    def _sync(self):
        self.token_to_kv_pool.k_buffer[1][3] = 0.5
        return 2

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = self.hooks.item()
        return k[kv_indices[:n]]
''' + RUN)

case("namedtuple_field_tolist", FAM_READONLY_NAME,
     "Sched = namedtuple('Sched', ['tolist']); Sched(self._admit).tolist() calls the writer", '''
import collections

Sched = collections.namedtuple("Sched", ["tolist"])


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.sched = Sched(self._admit)

    def _admit(self):
        self.token_to_kv_pool.k_buffer[1][3] = 0.5
        return [3, 1]

    def forward(self, layer_id):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        slots = self.sched.tolist()
        return k[slots]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1)
    return {"out": out, "k": pool.k_buffer}
''')

case("getattr_returns_writer", FAM_READONLY_NAME,
     "hooks.item(): Hooks.__getattr__ (read-only itself) returns the writer for any name", '''
class Hooks:
    def __init__(self, sync):
        self._sync = sync

    def __getattr__(self, name):
        return self._sync


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.hooks = Hooks(self._sync)

    def _sync(self):
        self.token_to_kv_pool.k_buffer[1][3] = 0.5
        return 2

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = self.hooks.item()
        return k[kv_indices[:n]]
''' + RUN)

case("class_body_alias_tolist", FAM_READONLY_NAME,
     "class Sched: tolist = _admit_slots (a module function bound by a class-body assignment, no def tolist)", '''
def _admit_slots(sched):
    sched.pool.k_buffer[1][3] = 0.5
    return [3, 1]


class Sched:
    tolist = _admit_slots

    def __init__(self, pool):
        self.pool = pool


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.sched = Sched(pool)

    def forward(self, layer_id):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        slots = self.sched.tolist()
        return k[slots]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1)
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ I. the dtype expression changed through another name
FAM_DTYPE_ALIAS = ("the dtype expression's value is changed through another name (an alias of its dict, "
                   "self.__dict__, globals()): moved, the cast reads the new dtype")

case("dtype_table_alias_store", FAM_DTYPE_ALIAS,
     "pool.to(KV_DTYPES['k']); between, table = KV_DTYPES; table['k'] = torch.float16", '''
KV_DTYPES = {"k": torch.bfloat16}
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(KV_DTYPES["k"])
        table = KV_DTYPES
        table["k"] = torch.float16
        return k[kv_indices]
''' + RUN)

case("dtype_attr_via_dict_store", FAM_DTYPE_ALIAS,
     "pool.to(self.compute_dtype); between, self.__dict__['compute_dtype'] = torch.float16 (a config reload)", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.compute_dtype = torch.bfloat16

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(self.compute_dtype)
        self.__dict__["compute_dtype"] = torch.float16
        return k[kv_indices]
''' + RUN)

case("dtype_global_via_globals_alias", FAM_DTYPE_ALIAS,
     "pool.to(KV_COMPUTE_DTYPE); between, _G['KV_COMPUTE_DTYPE'] = torch.float16 with _G = globals() at module level", '''
KV_COMPUTE_DTYPE = torch.bfloat16
_G = globals()
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(KV_COMPUTE_DTYPE)
        _G["KV_COMPUTE_DTYPE"] = torch.float16
        return k[kv_indices]
''' + RUN)

# ================================================================ J. the pool's memory owned by a Python buffer
FAM_BUFFER = ("the pool's memory is owned by a Python buffer (torch.frombuffer over a bytearray / a ctypes array), "
              "written through it (a slice store, no tensor in sight)")

case("frombuffer_bytearray_store", FAM_BUFFER,
     "layer 1's K buffer is torch.frombuffer(arena); self.host_arena[24:32] = bytes(8) zeroes slot 3", '''
class Backend:
    def __init__(self, pool, arena):
        self.token_to_kv_pool = pool
        self.host_arena = arena  # the bytes behind layer 1's K buffer (a shared-memory segment stand-in)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.host_arena[24:32] = bytes(8)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    arena = bytearray(bytes(pool.k_buffer[1].view(torch.uint8).reshape(-1).tolist()))
    pool.k_buffer[1] = torch.frombuffer(arena, dtype=torch.float8_e4m3fn).view(16, 2, 4)
    out = Backend(pool, arena).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("frombuffer_ctypes_array_store", FAM_BUFFER,
     "layer 1's K buffer is torch.frombuffer over a ctypes array; self.raw[24:32] = [0] * 8 zeroes slot 3", '''
import ctypes


class Backend:
    def __init__(self, pool, raw):
        self.token_to_kv_pool = pool
        self.raw = raw

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.raw[24:32] = [0] * 8
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    raw = (ctypes.c_uint8 * 128)(*pool.k_buffer[1].view(torch.uint8).reshape(-1).tolist())
    pool.k_buffer[1] = torch.frombuffer(raw, dtype=torch.float8_e4m3fn).view(16, 2, 4)
    out = Backend(pool, raw).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ K. finalizers run by drops that are not `x = None`
FAM_DROP = ("a finalizer (__del__ of the file) runs when the last reference is dropped by a dict entry overwrite, "
            "a for target or a walrus (not a plain local assignment)")

STAGED = '''
class Staged:
    """A staged K row: when the last reference goes, it is committed into the pool."""

    def __init__(self, pool, layer, slot):
        self.pool = pool
        self.layer = layer
        self.slot = slot

    def __del__(self):
        self.pool.k_buffer[self.layer][self.slot] = 0.5


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.staging = {1: Staged(pool, 1, 3)}
'''

case("del_dict_entry_overwrite", FAM_DROP, "self.staging[layer_id] = None drops the last reference to a Staged row",
     STAGED + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.staging[layer_id] = None
        return k[kv_indices]
''' + RUN)

case("del_for_target_rebind", FAM_DROP, "staged held in a local; `for staged in [None]:` rebinds it (the old row is committed)",
     STAGED + '''
    def forward(self, layer_id, kv_indices):
        staged = self.staging.pop(layer_id)
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = 0
        for staged in [None]:
            n += 1
        return k[kv_indices], n
''' + RUN)

case("del_walrus_rebind", FAM_DROP, "staged held in a local; done = (staged := None) is None rebinds it in an expression",
     STAGED + '''
    def forward(self, layer_id, kv_indices):
        staged = self.staging.pop(layer_id)
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        done = (staged := None) is None
        return k[kv_indices], done
''' + RUN)

# ================================================================ L. a list index that is a tuple index
FAM_LIST_TUPLE = ("a list index holding a slice, None or a tensor is read as a tuple (basic indexing: a view of "
                  "the converted copy), written, then read by a later gather")


def list_view(name, doc, sel, op):
    case(name, FAM_LIST_TUPLE, doc, BACKEND + f'''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        part = k[{sel}]
        {op}
        return part, k[kv_indices]
''' + RUN)


list_view("list_slice_index_view", "part = k[[slice(0, 8), 0]] (rows 0-7, head 0); part *= 2 shows in k[kv_indices]",
          "[slice(0, 8), 0]", "part *= 2.0")
list_view("list_none_index_view", "part = k[[3, None]] (slot 3 with a new dim); part += 1 shows in k[kv_indices]",
          "[3, None]", "part += 1.0")
list_view("list_zero_dim_tensor_index_view",
          "part = k[[kv_indices[0]]] (a list holding a 0-d tensor: slot 3 itself); part -= 1 shows in k[kv_indices]",
          "[kv_indices[0]]", "part -= 1.0")

# ================================================================ M. suspension inside the cast / gather expression
FAM_SUSPEND = "a suspension point inside the cast's dtype expression or the gather's index, or an async for between"

case("await_in_dtype_expr", FAM_SUSPEND,
     "pool.to(await self.compute_dtype())[idx]: the pool is read after the await (another task wrote slot 3); "
     "moved, the gather runs before the await", '''
import asyncio


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.dtype_ready = asyncio.Event()

    async def compute_dtype(self):
        await self.dtype_ready.wait()
        return torch.bfloat16

    async def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(await self.compute_dtype())[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)

    async def main():
        be = Backend(pool)
        step = asyncio.ensure_future(be.forward(1, torch.tensor([3, 1])))
        await asyncio.sleep(0)
        pool.k_buffer[1][3] = 0.5
        be.dtype_ready.set()
        return await step

    out = asyncio.run(main())
    return {"out": out, "k": pool.k_buffer}
''')

case("yield_in_index_expr", FAM_SUSPEND,
     "rows = pool.float()[(yield 'need slots')]: the cast runs before the yield; the caller stores slot 3, then "
     "sends the index (moved, the gather reads the new row)", BACKEND + '''
    def rows_when_ready(self, layer_id):
        rows = self.token_to_kv_pool.get_key_buffer(layer_id).float()[(yield "need slots")]
        yield rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    g = Backend(pool).rows_when_ready(1)
    first = next(g)
    pool.set_kv_buffer(1, torch.tensor([3]), torch.full((1, 2, 4), 0.5), torch.full((1, 2, 4), 0.5))
    out = g.send(torch.tensor([3, 1]))
    return {"out": out, "first": first, "k": pool.k_buffer}
''')

case("async_for_between", FAM_SUSPEND,
     "async for _ in self.ticks(): between (the async generator awaits; a writer task stores slot 3)", '''
import asyncio


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    async def ticks(self):
        await asyncio.sleep(0)
        yield 1

    async def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        async for _ in self.ticks():
            pass
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)

    async def writer():
        pool.k_buffer[1][3] = 0.5

    async def main():
        w = asyncio.ensure_future(writer())
        out = await Backend(pool).forward(1, torch.tensor([3, 1]))
        await w
        return out

    out = asyncio.run(main())
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ N. the cast warns (a complex pool)
FAM_WARN = ("a cast to a convertible dtype that warns (a complex pool: 'discards the imaginary part'), the warning "
            "an error under a warnings filter: the cast raises, and code between runs first when moved")

case("complex_cast_warning_as_error_counter", FAM_WARN,
     "under filterwarnings('error', ...) the whole-pool .float() raises UserWarning before self.reads += 1; moved, the counter runs first",
     '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.reads = 0

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.reads += 1
        return k[kv_indices]


def run_case(torch):
    import warnings

    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.complex64)
    be = Backend(pool)
    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # the cast's warning is a warn-once in C++: warn on every run
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message="Casting complex values")
            try:
                out = be.forward(1, torch.tensor([3, 1]))
            except UserWarning as e:
                out = str(e)[:40]
    finally:
        torch.set_warn_always(warn_always)
    return {"out": out, "reads": be.reads, "k": pool.k_buffer}
''')

# ================================================================ O. properties of the converted copy observed
FAM_OBSERVE = "a property of the converted copy observed besides the gather (itemsize, storage_offset)"

case("itemsize_of_converted", FAM_OBSERVE, "return k[idx], k.itemsize (4 for the float32 copy, 1 for the FP8 pool)",
     BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices], k.itemsize
''' + RUN)

case("storage_offset_of_converted", FAM_OBSERVE,
     "k = buf[:, 1].float(): the copy starts at offset 0, the pool's head-1 view at 4; k.storage_offset() is returned",
     BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id)[:, 1].float()
        return k[kv_indices], k.storage_offset()
''' + RUN)

# ================================================================ P. attribute stores running the file's code another way
FAM_SETATTR = ("an attribute store runs the file's code another way: nn.Module.__setattr__ calling an overridden "
               "register_parameter, a __setattr__ attached by a class decorator's setattr(), a "
               "types.DynamicClassAttribute setter")

case("module_register_parameter_override", FAM_SETATTR,
     "self.k_scale = <Parameter>: nn.Module.__setattr__ calls self.register_parameter, overridden to re-quantize "
     "the staged row into the pool", '''
class Attn(torch.nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.token_to_kv_pool = pool

    def register_parameter(self, name, param):
        if name == "k_scale":
            # a new K scale: re-quantize the staged row into the pool
            self.token_to_kv_pool.k_buffer[1][3] = 0.5
        super().register_parameter(name, param)

    def forward(self, layer_id, kv_indices, k_scale):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.k_scale = k_scale
        return k[kv_indices] * self.k_scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Attn(pool)(1, torch.tensor([3, 1]), torch.nn.Parameter(torch.full((1,), 2.0), False))
    return {"out": out, "k": pool.k_buffer}
''')

case("class_decorator_setattr_dunder", FAM_SETATTR,
     "@commit_on_set: the class decorator attaches __setattr__ with setattr(cls, '__setattr__', f); self.step += 1 "
     "then commits the staged row", '''
def _commit_then_set(self, name, value):
    pool = self.__dict__.get("token_to_kv_pool")
    if pool is not None and name == "step":
        pool.k_buffer[1][3] = 0.5
    object.__setattr__(self, name, value)


def commit_on_set(cls):
    """Class decorator: an attribute store on an instance first commits the staged K rows."""
    setattr(cls, "__setattr__", _commit_then_set)
    return cls


@commit_on_set
class Backend:
    def __init__(self, pool):
        self.step = 0
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.step += 1
        return k[kv_indices]
''' + RUN)

case("dynamic_class_attribute_setter", FAM_SETATTR,
     "k_scale = types.DynamicClassAttribute(_get, _set) in the class body; self.k_scale = s runs _set (it writes)", '''
import types


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self._scale = 1.0

    def _get_scale(self):
        return self._scale

    def _set_scale(self, value):
        # a new K scale: re-quantize the staged row into the pool
        self.token_to_kv_pool.k_buffer[1][3] = 0.5
        self._scale = value

    k_scale = types.DynamicClassAttribute(_get_scale, _set_scale)

    def forward(self, layer_id, kv_indices, scale):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.k_scale = scale
        return k[kv_indices] * scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]), 2.0)
    return {"out": out, "k": pool.k_buffer}
''')
