# Hazard case bodies for make_cases.py (round 3): (name, family, doc, code). Each code block follows the
# shared header (toy pool + _rand) and defines run_case(torch). Families not covered by rounds 1-2.
CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


BACKEND = '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
'''

# ---------------------------------------------------------------- the gather is not defined for the stored dtype
case("gather_method_fp8", "gather op not implemented for the stored dtype", "k.gather(0, index) on float32 works; on the FP8 pool (CPU) it raises NotImplementedError", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        index = kv_indices.view(-1, 1, 1).expand(-1, 2, 4)
        return k.gather(0, index)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("torch_take_fp8", "gather op not implemented for the stored dtype", "torch.take(k, flat) of the bf16 copy works; take of the FP8 pool raises", BACKEND + '''
    def forward(self, layer_id, flat_idx):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        return torch.take(k, flat_idx)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([5, 17, 100]))
    return {"out": out, "k": pool.k_buffer}
''')

case("take_along_dim_fp8", "gather op not implemented for the stored dtype", "k.take_along_dim(idx, dim=0) on the FP8 pool raises (scatter_gather not implemented)", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_value_buffer(layer_id).half()
        return k.take_along_dim(kv_indices.view(-1, 1, 1), dim=0)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([7, 2]))
    return {"out": out, "v": pool.v_buffer}
''')

case("gather_out_kwarg", "gather op not implemented for the stored dtype", "torch.index_select(k, 0, idx, out=float32 staging): with the FP8 pool as input the out dtype no longer matches", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.staging = torch.empty(2, 2, 4)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return torch.index_select(k, 0, kv_indices, out=self.staging)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([9, 4]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- the cast itself raises
case("cast_raises_counter_between", "the cast raises: code between now runs first", "kv_cache_dtype is sglang's string 'fp8_e4m3', so .to() raises; moved after `self.reads += 1`, the counter moves", '''
class Backend:
    def __init__(self, pool, kv_cache_dtype):
        self.token_to_kv_pool = pool
        self.kv_cache_dtype = kv_cache_dtype
        self.reads = 0

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(self.kv_cache_dtype)
        self.reads += 1
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool, "fp8_e4m3")
    try:
        out = be.forward(1, torch.tensor([3, 1]))
    except RuntimeError as e:
        out = str(e)
    return {"out": out, "reads": be.reads, "k": pool.k_buffer}
''')

case("cast_raises_vs_index_error", "the cast raises: the gather's IndexError now wins", "to(float4) raises NotImplementedError; moved after an out-of-range gather, IndexError is raised (and caught) instead", BACKEND + '''
    def forward(self, layer_id, kv_indices, dtype: torch.dtype):
        try:
            return self.token_to_kv_pool.get_key_buffer(layer_id).to(dtype)[kv_indices]
        except IndexError:
            return None


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    try:
        out = Backend(pool).forward(0, torch.tensor([3, 40]), torch.float4_e2m1fn_x2)
    except NotImplementedError:
        out = "unsupported kv dtype"
    return {"out": out, "k": pool.k_buffer}
''')

case("type_string_raises", "the cast raises: code between now runs first", ".type('torch.Float8Tensor') raises ValueError; moved, the attribute store before the gather happens first", '''
class Backend:
    def __init__(self, pool, tensor_type):
        self.token_to_kv_pool = pool
        self.tensor_type = tensor_type
        self.last_layer = None

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).type(self.tensor_type)
        self.last_layer = layer_id
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool, "torch.Float8Tensor")
    try:
        out = be.forward(1, torch.tensor([2]))
    except ValueError as e:
        out = str(e)
    return {"out": out, "last": be.last_layer, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- the dtype expression: evaluation time / count
case("dtype_call_order", "dtype expression evaluated after the index", "pool.to(self.next_dtype())[self.next_indices(b)]: the index call advances the step the dtype call reads", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.step = 0
        self.schedule = [torch.bfloat16, torch.float16]

    def next_dtype(self):
        return self.schedule[self.step % 2]

    def next_indices(self, base):
        self.step += 1
        return base + self.step

    def forward(self, layer_id, base):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(self.next_dtype())[self.next_indices(base)]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("dtype_call_twice", "dtype expression evaluated once per gather", "k = pool.to(self.kv_dtype()) gathered twice: moved, the counting dtype call runs twice", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.dtype_queries = 0

    def kv_dtype(self):
        self.dtype_queries += 1
        return torch.bfloat16

    def forward(self, layer_id, a, b):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(self.kv_dtype())
        return k[a], k[b]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward(0, torch.tensor([1]), torch.tensor([2, 3]))
    return {"out": out, "queries": be.dtype_queries, "k": pool.k_buffer}
''')

case("dtype_data_swap", "dtype expression's object mutated (.data =)", "k = pool.to(q.dtype); q.data = q.data.half(): q is not rebound but q.dtype changes", BACKEND + '''
    def forward(self, q, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(q.dtype)
        q.data = q.data.to(torch.float16)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    q = _rand((2, 2, 4), 3)
    out = Backend(pool).forward(q, 1, torch.tensor([6, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("dtype_property_state", "dtype expression is a property of mutable state", "self.compute_dtype is a property of self._precision, which is assigned between", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self._precision = "bf16"

    @property
    def compute_dtype(self):
        return torch.bfloat16 if self._precision == "bf16" else torch.float16

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(self.compute_dtype)
        self._precision = "fp16"
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([4, 5]))
    return {"out": out, "k": pool.k_buffer}
''')

case("dtype_key_rebound", "dtype expression's dict key rebound", "pool.to(DTYPES[self.mode]); self.mode = 'fp16' between (the key, not the dict entry)", '''
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.mode = "bf16"

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(DTYPES[self.mode])
        self.mode = "fp16"
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([0, 8]))
    return {"out": out, "k": pool.k_buffer}
''')

case("dtype_keyerror_vs_indexerror", "dtype expression raises: the gather's error now comes first", "pool.to(DTYPES[name])[idx] with an unknown name and an out-of-range idx: KeyError before the move, IndexError after (caught by the caller)", '''
DTYPES = {"bf16": torch.bfloat16}


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, name, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(DTYPES[name])[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    try:
        out = Backend(pool).forward(0, "fp4", torch.tensor([99]))
    except (KeyError, IndexError) as e:
        out = type(e).__name__
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- aliases from no-op conversions and read-only view functions
case("noop_cast_alias_store", "store through a no-op cast alias", "the pool is bf16, so buf.bfloat16() returns buf itself; a store into it writes the pool", BACKEND + '''
    def forward(self, layer_id, loc, kv_indices, k_new):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        same = buf.bfloat16()
        same[loc] = k_new
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(1, torch.tensor([3]), torch.tensor([3, 1]), _rand((1, 2, 4), 5))
    return {"out": out, "k": pool.k_buffer}
''')

case("cpu_alias_store", "store through a no-op .cpu() alias", "on a CPU pool buf.cpu() is buf; host[loc] = 0 zeroes pool rows", BACKEND + '''
    def forward(self, layer_id, loc, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.float32)
        host = buf.cpu()
        host[loc] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(0, torch.tensor([2]), torch.tensor([2, 5]))
    return {"out": out, "k": pool.k_buffer}
''')

case("torch_transpose_store", "store through a torch.transpose view", "torch.transpose(buf, 1, 2)[loc] = 0 (a read function returning a view)", BACKEND + '''
    def forward(self, layer_id, loc, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        torch.transpose(buf, 1, 2)[loc] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(1, torch.tensor([7]), torch.tensor([7, 0]))
    return {"out": out, "k": pool.k_buffer}
''')

case("torch_reshape_iadd", "augmented store through a torch.reshape view", "flat = torch.reshape(buf, (-1,)); flat[:8] += 1 adds to pool row 0", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.float32)
        flat = torch.reshape(buf, (-1,))
        flat[:8] += 1
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(0, torch.tensor([0, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("getattr_view_store", "store through getattr(buf, 'mT')", "getattr (read-only builtin) returns the .mT view; a subscript store on it writes the pool", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        getattr(buf, "mT")[3] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(1, torch.tensor([3, 4]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- aliases made before the cast by non-view calls
case("dlpack_alias_store", "store through a DLPack alias made before the cast", "alias = torch.from_dlpack(buf) before the cast; alias[loc] = 0 between", BACKEND + '''
    def forward(self, layer_id, loc, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        alias = torch.from_dlpack(buf)
        k = buf.float()
        alias[loc] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(0, torch.tensor([6]), torch.tensor([6, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("untyped_storage_store", "store through the pool's untyped_storage()", "st = buf.untyped_storage() before the cast; st[24] = 0 zeroes a byte of row 3 between", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        st = buf.untyped_storage()
        k = buf.float()
        st[24] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 9]))
    return {"out": out, "k": pool.k_buffer}
''')

case("set_alias_store", "store through a tensor set_() onto the pool before the cast", "alias = torch.empty(0, dtype=buf.dtype).set_(buf) before the cast; alias[loc] = 0 between", BACKEND + '''
    def forward(self, layer_id, loc, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        alias = torch.empty(0, dtype=buf.dtype).set_(buf)
        k = buf.to(torch.float32)
        alias[loc] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(1, torch.tensor([5]), torch.tensor([5, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- writes into the converted copy itself
case("store_into_cast_result", "subscript store into the cast result", "k = pool.float(); k[loc] = new rows (a local working copy); k[idx]: moved, the store hits the pool", BACKEND + '''
    def forward(self, layer_id, loc, kv_indices, k_new):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        k[loc] = k_new
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([4]), torch.tensor([4, 0]), _rand((1, 2, 4), 12, torch.float32))
    return {"out": out, "k": pool.k_buffer}
''')

case("aug_store_into_cast_result", "augmented subscript store into the cast result", "k[loc] += delta on the converted copy", BACKEND + '''
    def forward(self, layer_id, loc, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32)
        k[loc] += 0.001
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(0, torch.tensor([2]), torch.tensor([2, 3]))
    return {"out": out, "k": pool.k_buffer}
''')

case("int_index_view_inplace", "in-place op on a basic-index view of the cast result", "k[slot].zero_() (an int index is a view of the copy, not a gather); then k[idx]", BACKEND + '''
    def forward(self, layer_id, slot, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        k[slot].zero_()
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, 5, torch.tensor([5, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("basic_index_alias_iadd", "augmented assignment on a basic-index view of the cast result", "row = k[slot]; row += 1 writes the copy; k[idx] then reads it", BACKEND + '''
    def forward(self, layer_id, slot, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        row = k[slot]
        row += 1
        return k[kv_indices], row


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, 3, torch.tensor([3, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("chained_assign_alias", "chained assignment: a second name for the cast result", "k = scratch = pool.float(); scratch[loc] = 0; k[idx]", BACKEND + '''
    def forward(self, layer_id, loc, kv_indices):
        k = scratch = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        scratch[loc] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([8]), torch.tensor([8, 9]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- implicit code the protocol tables may miss
COMMIT = '''
PENDING = []


def _commit():
    while PENDING:
        pool, layer_id, loc, rows = PENDING.pop()
        pool.set_kv_buffer(layer_id, loc, rows, rows)
'''

case("index_tuple_subclass_iter", "gather index runs __iter__ (tuple subclass)", "k[slots] with slots a tuple subclass: torch iterates it (__iter__), which commits pending writes to the pool", COMMIT + '''

class Slots(tuple):
    def __iter__(self):
        _commit()
        return super().__iter__()
''' + BACKEND + '''
    def forward(self, layer_id, slots):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[slots]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 1, torch.tensor([3]), _rand((1, 2, 4), 21)))
    out = Backend(pool).forward(1, Slots((torch.tensor([3, 1]),)))
    return {"out": out, "k": pool.k_buffer}
''')

case("dict_missing_between", "dict subclass __missing__ on a subscript", "scale = self.scales[layer_id]: a dict subclass's __missing__ commits pending writes", COMMIT + '''

class Scales(dict):
    def __missing__(self, key):
        _commit()
        self[key] = 1.0
        return 1.0


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.scales = Scales()

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        scale = self.scales[layer_id]
        return k[kv_indices] * scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 0, torch.tensor([2]), _rand((1, 2, 4), 22)))
    out = Backend(pool).forward(0, torch.tensor([2, 5]))
    return {"out": out, "k": pool.k_buffer}
''')

case("subclasshook_between", "isinstance() runs an ABC's __subclasshook__", "isinstance(meta, PagedMeta): ABCMeta calls PagedMeta.__subclasshook__, which commits pending writes", "import abc\n" + COMMIT + '''

class PagedMeta(abc.ABC):
    @classmethod
    def __subclasshook__(cls, other):
        _commit()
        return True
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, meta):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        paged = isinstance(meta, PagedMeta)
        return k[kv_indices], paged


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 1, torch.tensor([6]), _rand((1, 2, 4), 23)))
    out = Backend(pool).forward(1, torch.tensor([6, 7]), object())
    return {"out": out, "k": pool.k_buffer}
''')

case("dunder_attached_after_class", "dunder bound after the class statement", "module-level `Flags.__bool__ = _flush`: `if flags:` between cast and gather writes the pool", COMMIT + '''

class Flags:
    pass


def _flush(self):
    _commit()
    return True


Flags.__bool__ = _flush
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, flags):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        scale = 1.0
        if flags:
            scale = 0.5
        return k[kv_indices] * scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 0, torch.tensor([9]), _rand((1, 2, 4), 24)))
    out = Backend(pool).forward(0, torch.tensor([9, 1]), Flags())
    return {"out": out, "k": pool.k_buffer}
''')

case("dunder_via_type_call", "class made by type(name, bases, dict) with a dunder", "Batch = type('Batch', (), {'__len__': ...}); len(batch) between writes the pool", COMMIT + '''

def _len(self):
    _commit()
    return 2


Batch = type("Batch", (), {"__len__": _len})
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, batch):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = len(batch)
        return k[kv_indices], n


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 1, torch.tensor([4]), _rand((1, 2, 4), 25)))
    out = Backend(pool).forward(1, torch.tensor([4, 2]), Batch())
    return {"out": out, "k": pool.k_buffer}
''')

case("owner_setattr", "attribute store runs the owner's __setattr__", "self.step = layer_id between: Backend.__setattr__ commits pending writes", COMMIT + '''

class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def __setattr__(self, name, value):
        if name == "step":
            _commit()
        object.__setattr__(self, name, value)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.step = layer_id
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 0, torch.tensor([1]), _rand((1, 2, 4), 26)))
    out = Backend(pool).forward(0, torch.tensor([1, 3]))
    return {"out": out, "k": pool.k_buffer}
''')

case("data_descriptor_set", "attribute store runs a data descriptor's __set__", "self.scale = 0.5: `scale` is a class-level descriptor whose __set__ commits pending writes", COMMIT + '''

class Committing:
    def __get__(self, obj, objtype=None):
        return obj.__dict__.get("_scale", 1.0)

    def __set__(self, obj, value):
        _commit()
        obj.__dict__["_scale"] = value


class Backend:
    scale = Committing()

    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.scale = 0.5
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 1, torch.tensor([11]), _rand((1, 2, 4), 27)))
    out = Backend(pool).forward(1, torch.tensor([11, 12]))
    return {"out": out, "k": pool.k_buffer}
''')

case("property_alias_decorator", "property through an aliased decorator name", "prop = property; @prop getter commits pending writes; read between", COMMIT + '''
prop = property


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    @prop
    def kv_scale(self):
        _commit()
        return 1.0

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        s = self.kv_scale
        return k[kv_indices] * s


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 0, torch.tensor([13]), _rand((1, 2, 4), 28)))
    out = Backend(pool).forward(0, torch.tensor([13, 14]))
    return {"out": out, "k": pool.k_buffer}
''')

case("property_subclass_decorator", "property through a subclass of property", "class lazyattr(property): ...; @lazyattr getter commits pending writes", COMMIT + '''

class lazyattr(property):
    pass


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    @lazyattr
    def kv_scale(self):
        _commit()
        return 1.0

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        s = self.kv_scale
        return k[kv_indices] * s


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 1, torch.tensor([15]), _rand((1, 2, 4), 29)))
    out = Backend(pool).forward(1, torch.tensor([15, 0]))
    return {"out": out, "k": pool.k_buffer}
''')

case("local_rebind_del", "local rebinding drops the last reference (__del__)", "ticket = None between: the old Ticket's __del__ commits its write", '''
class Ticket:
    def __init__(self, pool, layer_id, loc, rows):
        self.args = (pool, layer_id, loc, rows)

    def __del__(self):
        pool, layer_id, loc, rows = self.args
        pool.set_kv_buffer(layer_id, loc, rows, rows)
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, loc, rows):
        ticket = Ticket(self.token_to_kv_pool, layer_id, loc, rows)
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        ticket = None
        return k[kv_indices], ticket


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 3]), torch.tensor([2]), _rand((1, 2, 4), 30))
    return {"out": out, "k": pool.k_buffer}
''')

case("generator_close_finally", "local rebinding closes a suspended generator (finally)", "it = None between: the generator's finally block runs and writes the pool", '''
def _writer(pool, layer_id, loc, rows):
    try:
        yield 1
    finally:
        pool.set_kv_buffer(layer_id, loc, rows, rows)
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, loc, rows):
        it = _writer(self.token_to_kv_pool, layer_id, loc, rows)
        first = next(it)
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        it = None
        return k[kv_indices], first, it


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([7, 3]), torch.tensor([7]), _rand((1, 2, 4), 31))
    return {"out": out, "k": pool.k_buffer}
''')

case("setprofile_len", "a profile hook runs on a builtin call", "sys.setprofile hook fires on len()'s c_call and commits pending writes", "import sys\n" + COMMIT + '''

def _profile(frame, event, arg):
    if event == "c_call" and arg is len and PENDING:
        _commit()
''' + BACKEND + '''
    def forward(self, layer_id, kv_list):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = len(kv_list)
        return k[torch.tensor(kv_list)], n


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 1, torch.tensor([5]), _rand((1, 2, 4), 32)))
    sys.setprofile(_profile)
    try:
        out = Backend(pool).forward(1, [5, 6])
    finally:
        sys.setprofile(None)
    return {"out": out, "k": pool.k_buffer}
''')

case("settrace_line", "a trace hook runs on a plain line", "sys.settrace line hook commits pending writes once `scale` is bound (between cast and gather)", "import sys\n" + COMMIT + '''

def _local(frame, event, arg):
    if event == "line" and "scale" in frame.f_locals and PENDING:
        _commit()
    return _local


def _global(frame, event, arg):
    return _local if frame.f_code.co_name == "forward" else None
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        scale = 0.5
        return k[kv_indices] * scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 0, torch.tensor([10]), _rand((1, 2, 4), 33)))
    sys.settrace(_global)
    try:
        out = Backend(pool).forward(0, torch.tensor([10, 11]))
    finally:
        sys.settrace(None)
    return {"out": out, "k": pool.k_buffer}
''')

case("builtin_shadow_module_assign", "a builtin's name rebound by a module-level assignment", "sorted = _sorted_commit at module level; sorted(kv_list) between writes the pool", "import builtins\n" + COMMIT + '''

def _sorted_commit(xs, **kw):
    _commit()
    return builtins.sorted(xs, **kw)


sorted = _sorted_commit
''' + BACKEND + '''
    def forward(self, layer_id, kv_list):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        order = sorted(kv_list)
        return k[torch.tensor(order)]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    PENDING.append((pool, 1, torch.tensor([3]), _rand((1, 2, 4), 34)))
    out = Backend(pool).forward(1, [9, 3])
    return {"out": out, "k": pool.k_buffer}
''')

case("builtin_shadow_import_alias", "a builtin's name rebound by an import alias", "from torch import abs_ as abs: abs(row) between takes |row| of a pool row in place", "from torch import abs_ as abs\n" + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        abs(buf[3])
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(0, torch.tensor([3, 4]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- the cast moves into another dynamic context
case("torch_function_mode_log", "cast moved into a TorchFunctionMode's scope", "the gather runs inside `with self.op_log:` (a TorchFunctionMode recording ops): moved, the cast is recorded too", '''
from torch.overrides import TorchFunctionMode


class OpLog(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.ops.append(getattr(func, "__name__", "?"))
        return func(*args, **(kwargs or {}))


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.op_log = OpLog()

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        with self.op_log:
            rows = k[kv_indices]
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward(1, torch.tensor([3, 2]))
    return {"out": out, "ops": be.op_log.ops, "k": pool.k_buffer}
''')

case("dtype_policy_mode", "cast moved into a TorchFunctionMode that rewrites dtypes", "a precision-policy mode maps .to(bfloat16) to float16 inside its scope; only the gather is inside", '''
from torch.overrides import TorchFunctionMode


class HalfPolicy(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.to:
            args = tuple(torch.float16 if a is torch.bfloat16 else a for a in args)
        return func(*args, **(kwargs or {}))


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.policy = HalfPolicy()

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        with self.policy:
            rows = k[kv_indices]
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([1, 4]))
    return {"out": out, "k": pool.k_buffer}
''')

case("set_grad_enabled_ctx", "cast under set_grad_enabled(False), gather outside", "with torch.set_grad_enabled(False): k = pool.float(); rows = k[idx] outside: moved, rows require grad", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        with torch.set_grad_enabled(False):
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    pool.k_buffer[1].requires_grad_()
    out = Backend(pool).forward(1, torch.tensor([2, 5]))
    return {"out": out.detach(), "requires_grad": out.requires_grad}
''')

case("inference_mode_ctx", "cast under inference_mode(), gather outside", "with torch.inference_mode(): k = pool.float(); k[idx] outside: moved, rows require grad", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        with torch.inference_mode():
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    pool.k_buffer[0].requires_grad_()
    out = Backend(pool).forward(0, torch.tensor([6, 1]))
    return {"out": out.detach(), "requires_grad": out.requires_grad}
''')

case("grad_fn_observed", "autograd graph differs (grad_fn)", "a trainable (requires_grad) cache: rows.grad_fn is IndexBackward0 before the move, ToCopyBackward0 after", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        rows = self.token_to_kv_pool.get_key_buffer(layer_id).float()[kv_indices]
        return rows, type(rows.grad_fn).__name__


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    pool.k_buffer[1].requires_grad_()
    rows, fn = Backend(pool).forward(1, torch.tensor([3, 3]))
    return {"out": rows.detach(), "grad_fn": fn}
''')

case("backward_dup_index_accum", "backward accumulates duplicate indices in another dtype", "grad of pool.float()[dup] accumulates in float32 then rounds to bf16 once; moved, it accumulates in bf16", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).float()[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    buf = pool.k_buffer[0]
    buf.requires_grad_()
    rows = Backend(pool).forward(0, torch.tensor([3] * 300))
    rows.backward(torch.full((300, 2, 4), 0.1))
    return {"out": rows.detach(), "grad": buf.grad}
''')

case("requires_grad_attr_between", "the pool's requires_grad set between", "buf.requires_grad = True (an attribute store, no call) between cast and gather", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        buf.requires_grad = True
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(1, torch.tensor([0, 2]))
    return {"out": out.detach(), "requires_grad": out.requires_grad}
''')

# ---------------------------------------------------------------- the pool is not a plain tensor
case("pool_subclass_scaled", "pool is a tensor subclass whose float() is not elementwise", "a per-token-scaled FP8 subclass: float() multiplies by row_scale, which a gathered subset lacks", '''
class ScaledKV(torch.Tensor):
    def float(self):
        raw = self.as_subclass(torch.Tensor).float()
        return raw * self.row_scale.view(-1, 1, 1)
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    buf = pool.k_buffer[1].as_subclass(ScaledKV)
    buf.row_scale = torch.arange(1.0, 17.0)
    pool.k_buffer[1] = buf
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out.as_subclass(torch.Tensor)}
''')

case("pool_wrapper_getitem", "pool is a Python object whose __getitem__ indexes pages", "the accessor returns a paged wrapper: .float() is token-major, [i] selects pages", '''
class PagedBuffer:
    def __init__(self, pages):
        self.pages = pages

    def float(self):
        return self.pages.float().flatten(0, 1)

    def __getitem__(self, page_ids):
        return PagedBuffer(self.pages[page_ids])


class PagedPool:
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.pages = torch.randn(4, 4, 2, 4, generator=g).to(torch.float8_e4m3fn)

    def get_key_buffer(self, layer_id):
        return PagedBuffer(self.pages)
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices]


def run_case(torch):
    pool = PagedPool()
    try:
        out = Backend(pool).forward(0, torch.tensor([1, 2]))
    except AttributeError as e:
        out = str(e)
    return {"out": out, "pages": pool.pages}
''')

case("pool_class_reassigned", "the pool's __class__ reassigned between", "buf.__class__ = Clamped (a subclass whose __getitem__ clamps) between cast and gather", '''
class Clamped(torch.Tensor):
    def __getitem__(self, idx):
        return super().__getitem__(idx).as_subclass(torch.Tensor).clamp(min=0)
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        buf.__class__ = Clamped
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(0, torch.tensor([3, 1]))
    return {"out": out.as_subclass(torch.Tensor), "k": [b.as_subclass(torch.Tensor) for b in pool.k_buffer]}
''')

case("pool_subclass_op_log", "pool is a tensor subclass that records torch calls", "a __torch_function__ subclass logs ops: one cast + two gathers becomes two gathers + two casts", '''
LOG = []


class Traced(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        LOG.append(getattr(func, "__name__", "?"))
        return super().__torch_function__(func, types, args, kwargs or {})
''' + BACKEND + '''
    def forward(self, layer_id, a, b):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[a].as_subclass(torch.Tensor), k[b].as_subclass(torch.Tensor)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    pool.k_buffer[0] = pool.k_buffer[0].as_subclass(Traced)
    LOG.clear()
    out = Backend(pool).forward(0, torch.tensor([1]), torch.tensor([2]))
    return {"out": out, "log": list(LOG)}
''')

# ---------------------------------------------------------------- other ways of writing through **kwargs / reading the name
case("out_via_kwargs_unpack", "out= passed through ** unpacking", "torch.cat(parts, **self.cat_kwargs) with cat_kwargs = {'out': a view of the pool}", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.cat_kwargs = {"out": pool.get_key_buffer(1).narrow(0, 4, 2)}

    def forward(self, layer_id, kv_indices, new_rows):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        torch.cat([new_rows, new_rows], **self.cat_kwargs)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(1, torch.tensor([4, 5]), _rand((1, 2, 4), 40))
    return {"out": out, "k": pool.k_buffer}
''')

case("closure_defined_before_cast", "a closure defined before the cast reads the name", "describe = lambda: k.dtype defined before k = pool.float(); called after the gather", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = None
        describe = lambda: None if k is None else k.dtype  # noqa: E731
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        return rows, describe()


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("global_cast_var", "the cast result bound to a module global", "global LAST_K; LAST_K = pool.float(); another function reads LAST_K.dtype", '''
LAST_K = None


def last_dtype():
    return LAST_K.dtype
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        global LAST_K
        LAST_K = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return LAST_K[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([5, 6]))
    return {"out": out, "dtype": last_dtype(), "k": pool.k_buffer}
''')

case("nonlocal_cast_var", "the cast result bound to a nonlocal name", "nonlocal k; k = pool.float(): a sibling closure reads k.dtype", '''
def make_reader(pool):
    k = None

    def read(layer_id, kv_indices):
        nonlocal k
        k = pool.get_key_buffer(layer_id).float()
        return k[kv_indices]

    def dtype():
        return k.dtype

    return read, dtype


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    read, dtype = make_reader(pool)
    out = read(1, torch.tensor([8, 2]))
    return {"out": out, "dtype": dtype(), "k": pool.k_buffer}
''')

case("index_reads_cast_result", "the gather's index reads the converted tensor", "k[k.abs().amax(dim=(1, 2)) > 1.0]: moved, the mask is computed on the FP8 pool (not implemented on CPU)", BACKEND + '''
    def forward(self, layer_id):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[k.abs().amax(dim=(1, 2)) > 1.0]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1)
    return {"out": out, "k": pool.k_buffer}
''')
