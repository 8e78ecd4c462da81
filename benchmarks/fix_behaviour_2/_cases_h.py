# Hazard case bodies for make_cases.py: (name, family, doc, code). Each code block follows the shared
# header (toy pool + _rand) and defines run_case(torch).
CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


# ---------------------------------------------------------------- writes through aliases / views
case("as_strided_alias", "write via as_strided alias", "a name bound to buf.as_strided(...) is stored into between cast and gather", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, loc, kv_indices, k_new):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.bfloat16)
        alias = buf.as_strided(buf.size(), buf.stride())
        alias[loc] = k_new.to(alias.dtype)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3]), torch.tensor([3, 1]), _rand((1, 2, 4), 7))
    return {"out": out, "k": pool.k_buffer}
''')

case("unflatten_alias", "write via unflatten view", "buf.unflatten(0, (4, 4)) is a view; a store into it writes the pool", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, k_new):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        grid = buf.unflatten(0, (4, 4))
        grid[0, 3] = k_new.to(grid.dtype)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([3, 1]), _rand((2, 4), 8))
    return {"out": out, "k": pool.k_buffer}
''')

case("torch_split_fn_store", "write via torch.split part", "torch.split(buf, 8) (a read function) returns views; the tail is stored into", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, k_new):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.bfloat16)
        head, tail = torch.split(buf, 8)
        tail[1] = k_new.to(tail.dtype)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([9, 2]), _rand((2, 4), 9))
    return {"out": out, "k": pool.k_buffer}
''')

case("chunk_subscript_store", "write via chunk()[i] subscript", "buf.chunk(2)[1][0] = ... stores through a chunk view, no name bound", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, k_new):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.token_to_kv_pool.get_key_buffer(layer_id).chunk(2)[1][0] = k_new.to(torch.float8_e4m3fn)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([8, 0]), _rand((2, 4), 10))
    return {"out": out, "k": pool.k_buffer}
''')

case("narrow_slice_store", "write via narrow() (a read method) then [:] =", "buf.narrow(0, 2, 4)[:] = ...: narrow is read-only, the store on its result is not", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.bfloat16)
        buf.narrow(0, 2, 4)[:] = torch.zeros(4, 2, 4).to(buf.dtype)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 7]))
    return {"out": out, "k": pool.k_buffer}
''')

case("select_iadd", "+= on a select() view", "row = buf.select(0, 3); row += 1 writes pool row 3 in place", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        row = buf.select(0, 3)
        row += 1
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(0, torch.tensor([3, 4]))
    return {"out": out, "k": pool.k_buffer}
''')

case("view_dtype_store", "write via a reinterpret view(dtype)", "buf.view(torch.uint8)[loc] = 0 zeroes pool rows through a zero-copy reinterpret", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, loc, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.bfloat16)
        raw = buf.view(torch.uint8)
        raw[loc] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([5]), torch.tensor([5, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("mT_subscript_iadd", "augmented subscript store on an attribute view (.mT)", "buf.mT[3] += 1 adds to pool row 3 through the .mT view", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        buf.mT[3] += 1
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(1, torch.tensor([3, 0]))
    return {"out": out, "k": pool.k_buffer}
''')

case("flatten_fn_store", "write via torch.flatten view", "flat = torch.flatten(buf, 1) is a view of a contiguous pool; a row store writes it", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, loc, kv_indices, k_new):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.float()
        flat = torch.flatten(buf, 1)
        flat[loc] = k_new.reshape(-1, 8).to(flat.dtype)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([2]), torch.tensor([2, 3]), _rand((1, 2, 4), 11))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- in-place ops hidden in operators
case("wrapper_setitem", "__setitem__ of a wrapper object", "self.staging[loc] = k: the wrapper's __setitem__ stores into the pool", '''
class LayerView:
    def __init__(self, buf):
        self.buf = buf

    def __setitem__(self, i, v):
        self.buf[i] = v.to(self.buf.dtype)


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.staging = LayerView(pool.get_key_buffer(1))

    def forward(self, layer_id, loc, kv_indices, k_new):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        self.staging[loc] = k_new
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([4]), torch.tensor([4, 1]), _rand((1, 2, 4), 12))
    return {"out": out, "k": pool.k_buffer}
''')

case("wrapper_iadd", "__iadd__ of a stats object", "self.stats += n: the object's __iadd__ commits staged K rows", '''
class Stats:
    def __init__(self, pool):
        self.pool = pool
        self.n = 0

    def __iadd__(self, n):
        self.n += n
        self.pool.k_buffer[0][2] = torch.ones(2, 4).to(self.pool.dtype)
        return self


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.stats = Stats(pool)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.stats += 1
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([2, 9]))
    return {"out": out, "k": pool.k_buffer}
''')

case("bool_dunder_alias", "__bool__ bound by class-level assignment", "if self.staging: runs __bool__, defined as `__bool__ = _flush` (no def named __bool__)", '''
class Staging:
    def __init__(self, pool):
        self.pool = pool
        self.rows = [(1, 6)]

    def _flush(self):
        for layer_id, slot in self.rows:
            self.pool.k_buffer[layer_id][slot] = torch.full((2, 4), 2.0).to(self.pool.dtype)
        self.rows = []
        return True

    __bool__ = _flush


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.staging = Staging(pool)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        if self.staging:
            pass
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([6, 0]))
    return {"out": out, "k": pool.k_buffer}
''')

case("eq_dunder_alias", "__eq__ bound by class-level assignment", "self.epoch == 0 runs Epoch.__eq__ = _sync, which stores into the pool", '''
class Epoch:
    def __init__(self, pool):
        self.pool = pool

    def _sync(self, other):
        self.pool.k_buffer[0][1] = torch.full((2, 4), -1.0).to(self.pool.dtype)
        return False

    __eq__ = _sync
    __hash__ = object.__hash__


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.epoch = Epoch(pool)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        fresh = self.epoch == 0
        return k[kv_indices], fresh


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([1, 5]))
    return {"out": out, "k": pool.k_buffer}
''')

case("iter_dunder_star", "__iter__ run by a starred display", "[*self.staging] runs __iter__ (bound as `__iter__ = _drain`), a generator that stores", '''
class Staging:
    def __init__(self, pool):
        self.pool = pool

    def _drain(self):
        self.pool.k_buffer[1][0] = torch.full((2, 4), 3.0).to(self.pool.dtype)
        yield 0

    __iter__ = _drain


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.staging = Staging(pool)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        drained = [*self.staging]
        return k[kv_indices], drained


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([0, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("index_dunder_in_gather", "the gather's index runs __index__ that writes", "k[self.cursor]: the cursor's __index__ stores into the pool while the gather evaluates its index", '''
class Cursor:
    def __init__(self, pool):
        self.pool = pool

    def __index__(self):
        self.pool.k_buffer[1][3] = torch.full((2, 4), 4.0).to(self.pool.dtype)
        return 3


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.cursor = Cursor(pool)

    def forward(self, layer_id):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[self.cursor]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1)
    return {"out": out, "k": pool.k_buffer}
''')

case("index_call_in_gather_expr", "the gather's index is a call that writes (one expression)", "pool.get_key_buffer(l).float()[self.next_loc()]: next_loc stores K before it returns the index", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def next_loc(self):
        self.token_to_kv_pool.set_kv_buffer(0, torch.tensor([4]), _rand((1, 2, 4), 13), _rand((1, 2, 4), 14))
        return torch.tensor([4, 1])

    def forward(self, layer_id):
        return self.token_to_kv_pool.get_key_buffer(layer_id).float()[self.next_loc()]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
''')

# ---------------------------------------------------------------- context managers, generators, finalizers
case("enter_writes", "context manager __enter__ writes", "with self.guard: ... gather: the guard's __enter__ commits staged stores", '''
class Guard:
    def __init__(self, pool):
        self.pool = pool

    def __enter__(self):
        self.pool.k_buffer[1][2] = torch.full((2, 4), 5.0).to(self.pool.dtype)
        return self

    def __exit__(self, *exc):
        return False


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.guard = Guard(pool)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        with self.guard:
            rows = k[kv_indices]
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 3]))
    return {"out": out, "k": pool.k_buffer}
''')

case("contextmanager_generator", "@contextlib.contextmanager whose code after yield writes", "the cast is inside `with staged(...)`; the generator's post-yield store runs at exit, before the gather", '''
import contextlib


@contextlib.contextmanager
def staged(pool, layer_id, slot):
    yield
    pool.k_buffer[layer_id][slot] = torch.full((2, 4), 6.0).to(pool.dtype)


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        with staged(self.token_to_kv_pool, layer_id, 5):
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([5, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("yield_between", "generator suspended (yield) between cast and gather", "no call between: a bare `yield` lets the caller store into the pool before the gather", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def stream(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        yield None
        yield k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    g = Backend(pool).stream(1, torch.tensor([7, 2]))
    next(g)
    pool.set_kv_buffer(1, torch.tensor([7]), _rand((1, 2, 4), 15), _rand((1, 2, 4), 16))
    out = next(g)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
''')

case("await_between", "coroutine suspended (await) between cast and gather", "`await self.barrier` (an awaitable attribute, no call) suspends; the driver stores into the pool", '''
class Barrier:
    def __await__(self):
        yield


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.barrier = Barrier()

    async def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        await self.barrier
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    coro = Backend(pool).forward(0, torch.tensor([6, 2]))
    coro.send(None)
    pool.set_kv_buffer(0, torch.tensor([6]), _rand((1, 2, 4), 17), _rand((1, 2, 4), 18))
    try:
        coro.send(None)
    except StopIteration as stop:
        out = stop.value
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
''')

case("del_attr_finalizer", "`del self.lease` runs __del__, which writes", "deleting the last reference runs the lease's __del__, which commits a staged row", '''
class Lease:
    def __init__(self, pool, slot):
        self.pool = pool
        self.slot = slot

    def __del__(self):
        self.pool.k_buffer[1][self.slot] = torch.full((2, 4), 7.0).to(self.pool.dtype)


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.lease = Lease(pool, 8)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        del self.lease
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([8, 3]))
    return {"out": out, "k": pool.k_buffer}
''')

case("attr_rebind_weakref_callback", "attribute rebinding fires a weakref callback", "self.req = None drops the last reference; weakref.ref's callback stores into the pool", '''
import weakref


class Req:
    pass


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.req = Req()
        self._ref = weakref.ref(self.req, self._on_free)

    def _on_free(self, ref):
        self.token_to_kv_pool.k_buffer[0][9] = torch.full((2, 4), 8.0).to(self.token_to_kv_pool.dtype)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.req = None
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([9, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- module globals, defaults, caches, descriptors
case("module_fn_store_body", "module function whose body only stores (no call)", "_poke(buf, 3, v): a function of the file with a one-line body `buf[i] = v`", '''
def _poke(buf, i, v):
    buf[i] = v


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, k_new):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.bfloat16)
        _poke(buf, 3, k_new)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 4]), _rand((2, 4), 19).to(torch.float8_e4m3fn))
    return {"out": out, "k": pool.k_buffer}
''')

case("module_global_store", "module function writes a module global that holds the pool", "_reset_first() takes no argument: it stores into _ROWS, a module global bound to the pool", '''
_ROWS = {}


def _reset_first():
    _ROWS["k"][0] = 0


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        _reset_first()
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    _ROWS["k"] = pool.k_buffer[1]
    out = Backend(pool).forward(1, torch.tensor([0, 5]))
    return {"out": out, "k": pool.k_buffer}
''')

case("default_arg_pool", "a default argument holds the pool buffers", "_clear(3): its default `bufs=_BUFS` is the pool's list of layers; the body stores", '''
_BUFS = []


def _clear(i, bufs=_BUFS):
    bufs[1][i] = 0


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32)
        _clear(3)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    _BUFS.extend(pool.k_buffer)
    out = Backend(pool).forward(1, torch.tensor([3, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("lru_cache_view_store", "store into the result of an lru_cache'd read-only function", "_rows(pool, l) returns a view of the pool (its body is a plain read); `_rows(...)[:] = 0` writes it", '''
import functools


@functools.lru_cache(maxsize=None)
def _rows(pool, layer_id):
    return pool.k_buffer[layer_id][0:4]


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        _rows(self.token_to_kv_pool, layer_id)[:] = 0
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward(0, torch.tensor([1, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("class_attr_store", "store through a class attribute", "Shared.rows[loc] = v: a class attribute bound to the pool's layer", '''
class Shared:
    rows = None


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, loc, kv_indices, k_new):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        Shared.rows[loc] = k_new.to(torch.float8_e4m3fn)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    Shared.rows = pool.k_buffer[1]
    out = Backend(pool).forward(1, torch.tensor([10]), torch.tensor([10, 1]), _rand((1, 2, 4), 20))
    return {"out": out, "k": pool.k_buffer}
''')

case("descriptor_get", "a descriptor's __get__ writes", "self.scale reads a class attribute whose descriptor __get__ commits a staged row", '''
class FlushingScale:
    def __get__(self, obj, owner):
        if obj is None:
            return self
        obj.token_to_kv_pool.k_buffer[0][11] = torch.full((2, 4), 9.0).to(obj.token_to_kv_pool.dtype)
        return 2.0


class Backend:
    scale = FlushingScale()

    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        s = self.scale
        return k[kv_indices] * s


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([11, 0]))
    return {"out": out, "k": pool.k_buffer}
''')

case("owner_getattr", "__getattr__ on the owner runs for a missing attribute", "self.debug_mode is not set: Backend.__getattr__ flushes staged rows and answers False", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def __getattr__(self, name):
        pool = self.__dict__["token_to_kv_pool"]
        pool.k_buffer[1][12] = torch.full((2, 4), 10.0).to(pool.dtype)
        return False

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        if self.debug_mode:
            return None
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([12, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("bound_setitem_ref", "a bound __setitem__ taken before the cast", "put = buf.__setitem__ is bound before the cast and called after it", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, k_new):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        put = buf.__setitem__
        k = buf.float()
        put(2, k_new)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([2, 3]), _rand((2, 4), 21).to(torch.float8_e4m3fn))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- a second value reaches the consumer
case("loop_carried_buffer", "loop-carried value: a second buffer reaches the gather", "src is rebound at the end of the loop body to an unconverted layer; the next iteration gathers it", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layers, kv_indices):
        src = self.token_to_kv_pool.get_key_buffer(0).float()
        outs = []
        for layer_id in layers:
            outs.append(src[kv_indices])
            src = self.token_to_kv_pool.get_key_buffer(layer_id)
        return outs


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    out = Backend(pool).forward([1, 1], torch.tensor([1, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("except_second_buffer", "exception handler rebinds the cast name", "the handler binds k to a bf16 fallback; the gather then reads the fallback", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.scales = [1.0]
        self.fallback = _rand((16, 2, 4), 22)

    def forward(self, layer_id, kv_indices):
        try:
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
            scale = self.scales[layer_id]
        except IndexError:
            k = self.fallback
            scale = 1.0
        return k[kv_indices] * scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([4, 0]))
    return {"out": out, "k": pool.k_buffer}
''')

case("walrus_second_buffer", "walrus rebinds the cast name in a condition", "`(k := self.draft_k)` inside an if test rebinds k to a bf16 draft buffer", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.draft_k = _rand((16, 2, 4), 23)

    def forward(self, layer_id, kv_indices, use_draft):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        if use_draft and (k := self.draft_k) is not None:
            pass
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([1, 3]), True)
    return {"out": out, "k": pool.k_buffer}
''')

case("match_second_buffer", "match statement binds a second buffer", "a `case` capture pattern rebinds k to the draft buffer", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.draft = {"k": _rand((16, 2, 4), 24)}

    def forward(self, layer_id, kv_indices, mode):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32)
        match mode:
            case "draft":
                match self.draft:
                    case {"k": k}:
                        pass
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 5]), "draft")
    return {"out": out, "k": pool.k_buffer}
''')

case("dtype_name_walrus", "the dtype name is rebound by a walrus", "dt := torch.float16 in a condition rebinds the dtype the cast used", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, q, layer_id, kv_indices, half):
        dt = q.dtype
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(dt)
        if half and (dt := torch.float16):
            pass
        return k[kv_indices], dt


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(_rand((2, 2, 4), 25), 0, torch.tensor([1, 2]), True)
    return {"out": out, "k": pool.k_buffer}
''')

case("dtype_name_for", "the dtype name is rebound by a for target", "`for dt in (torch.float16,)` rebinds the dtype the cast used", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, q, layer_id, kv_indices):
        dt = q.dtype
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(dt)
        for dt in (torch.float16,):
            pass
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(_rand((2, 2, 4), 26), 1, torch.tensor([1, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- scoping: a different binding of the same name
case("comprehension_shadow", "a comprehension variable shadows the cast name", "[k[kv_indices] for k in self.draft_bufs]: that k is not the cast result", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.draft_bufs = [_rand((16, 2, 4), 27)]

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        drafts = [k[kv_indices] for k in self.draft_bufs]
        return rows, drafts


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("lambda_param_shadow", "a lambda parameter shadows the cast name", "pick = lambda k: k[kv_indices] is applied to a bf16 draft buffer", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.draft = _rand((16, 2, 4), 28)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        pick = lambda k: k[kv_indices]  # noqa: E731
        return k[kv_indices], pick(self.draft)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("nested_def_shadow", "a nested function's parameter shadows the cast name", "def pick(k): return k[idx] inside the method, applied to a bf16 buffer", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.draft = _rand((16, 2, 4), 29)

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)

        def pick(k):
            return k[kv_indices]

        return k[kv_indices], pick(self.draft.float())


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- the cast result used beyond the gather
case("use_nbytes", "cast result's .nbytes read", "k.nbytes is 4x the fp8 pool's", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        return rows, k.nbytes


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("use_element_size", "cast result's element_size() sizes a workspace", "k.element_size() decides a workspace size", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        ws = torch.empty(k.element_size() * 4, dtype=torch.uint8)
        return k[kv_indices], ws.numel()


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("use_zeros_like", "cast result passed to torch.zeros_like", "torch.zeros_like(k) takes k's dtype", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        acc = torch.zeros_like(k)[:2]
        return k[kv_indices] + acc


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("use_in_returned_lambda", "cast result captured by a returned lambda", "the method returns `lambda: k.dtype`; the caller calls it", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        return k[kv_indices], lambda: k.dtype


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    rows, dtype_of = Backend(pool).forward(0, torch.tensor([2, 6]))
    return {"out": rows, "dtype": str(dtype_of()), "k": pool.k_buffer}
''')

case("use_type_string", "cast result's .type() string compared", "k.type() == 'torch.FloatTensor' picks the path", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        if k.type() == "torch.FloatTensor":
            rows = rows * 2
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("use_dict_store", "cast result stored in a dict", "self.cache[layer_id] = k keeps the converted pool", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.cache = {}

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.cache[layer_id] = k
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward(1, torch.tensor([2, 6]))
    return {"out": out, "cached": be.cache[1], "k": pool.k_buffer}
''')

case("use_is_identity", "cast result compared by identity", "`k is buf` is False after a real cast, True when the cast is gone", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.bfloat16)
        converted = k is not buf
        return k[kv_indices], converted


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- exceptions, grad modes
case("exc_none_accessor", "exception type changes: None accessor under try/except AttributeError", "get_key_buffer returns None for a layer not on this rank; None.float() is AttributeError, None[idx] is TypeError", '''
class PartialPool(MHATokenToKVPool):
    def get_key_buffer(self, layer_id):
        return None if layer_id >= 1 else self.k_buffer[layer_id]


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        try:
            return self.token_to_kv_pool.get_key_buffer(layer_id).float()[kv_indices]
        except AttributeError:
            return None


def run_case(torch):
    pool = PartialPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("no_grad_requires_grad", "cast under no_grad, gather outside", "the cast inside `with torch.no_grad()` drops requires_grad; moved out of it, the rows require grad", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        with torch.no_grad():
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        return rows.detach(), rows.requires_grad


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    for b in pool.k_buffer:
        b.requires_grad_(True)
    out = Backend(pool).forward(0, torch.tensor([2, 6]))
    return {"out": out, "k": [b.detach() for b in pool.k_buffer]}
''')

case("enable_grad_inside", "gather inside enable_grad, cast outside (under no_grad)", "the caller runs under no_grad; the gather is in `with torch.enable_grad()`", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32)
        with torch.enable_grad():
            rows = k[kv_indices]
        return rows.detach(), rows.requires_grad


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    for b in pool.k_buffer:
        b.requires_grad_(True)
    with torch.no_grad():
        out = Backend(pool).forward(1, torch.tensor([2, 6]))
    return {"out": out, "k": [b.detach() for b in pool.k_buffer]}
''')

case("index_aliases_pool", "the index tensor is a view of the pool, written between", "an int32-stored pool: idx = buf.view(-1)[:2] is a view of the pool; `idx += 1` writes pool row 0, which is gathered", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        k = buf.to(torch.float32)
        idx = buf.view(-1)[:2]
        idx += 1
        return k[idx]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.int32)
    for b in pool.k_buffer:
        b.copy_(torch.arange(b.numel()).reshape(b.shape) % 7 - 1)
    out = Backend(pool).forward(1)
    return {"out": out, "k": pool.k_buffer}
''')

case("generator_zip_drain", "generator resumed through zip() in a for loop", "for _ in zip(range(1), self.pending): resumes a generator that stores", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.pending = None

    def _stores(self, layer_id):
        self.token_to_kv_pool.set_kv_buffer(layer_id, torch.tensor([13]), _rand((1, 2, 4), 30), _rand((1, 2, 4), 31))
        yield 1

    def forward(self, layer_id, kv_indices):
        self.pending = self._stores(layer_id)
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        for _ in zip(range(1), self.pending):
            pass
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([13, 0]))
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
''')

case("metaclass_instancecheck", "isinstance() runs a metaclass __instancecheck__ that writes", "isinstance(req, Flushing): the metaclass hook commits a staged row", '''
class _Meta(type):
    pool = None

    def __instancecheck__(cls, obj):
        _Meta.pool.k_buffer[0][14] = torch.full((2, 4), 11.0).to(_Meta.pool.dtype)
        return False


class Flushing(metaclass=_Meta):
    pass


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, req):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        special = isinstance(req, Flushing)
        return k[kv_indices], special


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    _Meta.pool = pool
    out = Backend(pool).forward(0, torch.tensor([14, 1]), object())
    return {"out": out, "k": pool.k_buffer}
''')
