# Hazard case bodies for make_cases.py (round 4): (name, family, doc, code). Each code block follows the
# shared header (toy pool + _rand) and defines run_case(torch). Families not covered by rounds 1-3.
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


# ---------------------------------------------------------------- aliases made by views the tables may not list
def alias(name, doc, make, store):
    case(name, "alias of the pool made before the cast by a view the tables may not list, written between (a store, not a call)",
         doc, BACKEND + f'''
    def forward(self, layer_id, kv_indices):
        buf = self.token_to_kv_pool.get_key_buffer(layer_id)
        alias = {make}
        k = buf.float()
        {store}
        return k[kv_indices]
''' + RUN)


alias("unfold_alias_store", "buf.unfold(0, 2, 2) is a view; windows[1] = 0.5 writes rows 2-3", "buf.unfold(0, 2, 2)", "alias[1] = 0.5")
alias("positive_alias_store", "+buf returns buf itself (Tensor.__pos__ is positive(), an alias)", "+buf", "alias[3] = 0.5")
alias("torch_positive_alias_store", "torch.positive(buf) returns an alias of buf", "torch.positive(buf)", "alias[3] = 0.5")
alias("detach_alias_store", "buf.detach() shares storage", "buf.detach()", "alias[3] = 0.5")
alias("as_subclass_alias_store", "buf.as_subclass(torch.Tensor) shares storage", "buf.as_subclass(torch.Tensor)", "alias[3] = 0.5")
alias("atleast_3d_alias_store", "torch.atleast_3d(buf) returns buf itself for a 3-D tensor", "torch.atleast_3d(buf)", "alias[3] = 0.5")
alias("resolve_conj_alias_store", "buf.resolve_conj() returns buf itself (not a conjugate view)", "buf.resolve_conj()", "alias[3] = 0.5")
alias("expand_alias_store", "buf.expand(buf.shape) is a view; expand then store", "buf.expand(buf.shape)", "alias[3] = 0.5")
alias("movedim_alias_store", "buf.movedim(0, -1) is a view; alias[..., 3] = 0.5 writes slot 3", "buf.movedim(0, -1)", "alias[..., 3] = 0.5")
alias("tensor_split_alias_store", "buf.tensor_split(2)[0] is a view of rows 0-7", "buf.tensor_split(2)[0]", "alias[3] = 0.5")
alias("zero_dim_index_alias_store", "buf[kv_indices[0]]: a 0-d tensor index is basic indexing, a view of slot 3", "buf[kv_indices[0]]", "alias[0] = 0.5")
alias("requires_grad_alias_store", "buf.requires_grad_(False) returns buf itself", "buf.requires_grad_(False)", "alias[3] = 0.5")
alias("ellipsis_alias_store", "buf[...] is a view of the whole buffer", "buf[...]", "alias[3] = 0.5")
alias("none_index_alias_store", "buf[None] is a view with a new leading dim", "buf[None]", "alias[0, 3] = 0.5")
alias("torch_narrow_fn_store", "torch.narrow(buf, 0, 2, 4) (function form) is a view of rows 2-5", "torch.narrow(buf, 0, 2, 4)", "alias[1] = 0.5")
alias("swapdims_alias_store", "buf.swapdims(0, 1) is a view", "buf.swapdims(0, 1)", "alias[:, 3] = 0.5")

case("view_table_init_store", "alias of the pool made before the cast by a view the tables may not list, written between (a store, not a call)",
     "a table of per-layer views made in __init__ (self.head0[layer] = k_buffer[layer][:, 0]), written between", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.head0 = [b[:, 0] for b in pool.k_buffer]

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.head0[layer_id][3] = 0.5
        return k[kv_indices]
''' + RUN)


# ---------------------------------------------------------------- an index that makes a view, not a gather
def view_index(name, doc, sel, op, idx="torch.tensor([3, 1])"):
    case(name, "the index is basic (a view of the converted copy), the view is written, a later gather reads it", doc, BACKEND + f'''
    def forward(self, layer_id, sel, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        part = k[sel]
        {op}
        return part, k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    kv_indices = {idx}
    out = Backend(pool).forward(1, {sel}, kv_indices)
    return {{"out": out, "k": pool.k_buffer}}
''')


view_index("zero_dim_tensor_index_view", "k[kv_indices[0]]: a 0-d tensor index is a view of k; `part += 1` then shows in k[kv_indices]",
           "kv_indices[0]", "part += 1.0")
view_index("slice_object_param_view", "sel = slice(0, 8): k[sel] is a view; `part *= 2` shows in the later gather", "slice(0, 8)", "part *= 2.0")
view_index("ellipsis_param_view", "sel = Ellipsis: k[sel] is k itself (a view)", "Ellipsis", "part -= 1.0")
view_index("tuple_param_view", "sel = (3, 0): k[sel] is a view of one head of slot 3", "(3, 0)", "part *= 0.0")
view_index("none_param_view", "sel = None: k[sel] is a view with a new dim", "None", "part += 3.0")

# ---------------------------------------------------------------- written through a helper object, a table, a callback
case("custom_tolist_writer", "a method with a read-only name (tolist) on a helper object of the file writes the pool",
     "the scheduler's tolist() flushes pending K stores into the pool before it returns the slots", '''
class Scheduler:
    def __init__(self, pool):
        self.pool = pool
        self.pending = [(1, 3)]

    def tolist(self):
        for layer, slot in self.pending:
            self.pool.k_buffer[layer][slot] = 0.5
        self.pending = []
        return [3, 1]


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.sched = Scheduler(pool)

    def forward(self, layer_id):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        slots = self.sched.tolist()
        return k[slots]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1)
    return {"out": out, "k": pool.k_buffer}
''')

case("index_expr_tolist_writer", "a method with a read-only name (tolist) on a helper object of the file writes the pool",
     "the write is in the gather's index expression: pool.float()[sched.tolist()]", '''
class Scheduler:
    def __init__(self, pool):
        self.pool = pool

    def tolist(self):
        self.pool.k_buffer[1][3] = 0.5
        return [3, 1]


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.sched = Scheduler(pool)

    def forward(self, layer_id):
        return self.token_to_kv_pool.get_key_buffer(layer_id).float()[self.sched.tolist()]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1)
    return {"out": out, "k": pool.k_buffer}
''')

case("namespace_item_writer", "a method with a read-only name on a helper object writes the pool",
     "self.hooks = SimpleNamespace(item=self._sync): hooks.item() is a bound method that writes", '''
import types


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.hooks = types.SimpleNamespace(item=self._sync)

    def _sync(self):
        self.token_to_kv_pool.k_buffer[1][3] = 0.5
        return 2

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = self.hooks.item()
        return k[kv_indices[:n]]
''' + RUN)

case("dtype_expr_item_writer", "a method with a read-only name on a helper object writes the pool",
     "the write is in the dtype expression: pool.to(DTYPES[self.mode.item()])[idx]; moved, it runs after the gather", '''
DTYPES = {0: torch.float32, 1: torch.bfloat16}


class Mode:
    def __init__(self, pool):
        self.pool = pool

    def item(self):
        self.pool.k_buffer[1][3] = 0.5
        return 1


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.mode = Mode(pool)

    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(DTYPES[self.mode.item()])[kv_indices]
''' + RUN)

case("host_pool_accessor_loads", "another object's accessor writes the pool (HiCache: the host pool's get_key_buffer loads pending pages into the device pool)",
     "host.get_key_buffer(layer) between cast and gather writes back pending pages into the device pool", '''
class HostPool:
    def __init__(self, device_pool):
        self.device_pool = device_pool
        self.pending = {1: [3]}

    def get_key_buffer(self, layer_id):
        for slot in self.pending.pop(layer_id, []):
            self.device_pool.k_buffer[layer_id][slot] = 0.5
        return self.device_pool.k_buffer[layer_id]


class Backend:
    def __init__(self, pool, host):
        self.token_to_kv_pool = pool
        self.host_pool = host

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        host_k = self.host_pool.get_key_buffer(layer_id)
        return k[kv_indices], host_k.shape


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool, HostPool(pool)).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("ctypes_pointer_table", "a pointer table (data_ptr) written by a foreign call",
     "ctypes.memset through self.k_ptrs[layer] (a transfer engine's pointer table) zeroes slot 3", '''
import ctypes


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.k_ptrs = [b.data_ptr() for b in pool.k_buffer]
        self.row_bytes = pool.k_buffer[0][0].numel() * pool.k_buffer[0].element_size()

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        ctypes.memset(self.k_ptrs[layer_id] + 3 * self.row_bytes, 0, self.row_bytes)
        return k[kv_indices]
''' + RUN)

case("step_callbacks_list", "callbacks registered elsewhere run between", "for cb in self.step_callbacks: cb(layer_id) (a connector's save hook writes the pool)", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.step_callbacks = []

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        for cb in self.step_callbacks:
            cb(layer_id)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)

    def save(layer_id):
        pool.k_buffer[layer_id][3] = 0.5

    be.step_callbacks.append(save)
    out = be.forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("exit_stack_prebuilt", "a library context manager's __exit__ runs callbacks of the file",
     "with self.stack: (a contextlib.ExitStack built in __init__ with a flush callback) around the cast; its exit writes", '''
import contextlib


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.stack = contextlib.ExitStack()
        self.stack.callback(self._flush, 1)

    def _flush(self, layer_id):
        self.token_to_kv_pool.k_buffer[layer_id][3] = 0.5

    def forward(self, layer_id, kv_indices):
        with self.stack:
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices]
''' + RUN)

case("closing_prebuilt", "a library context manager's __exit__ runs callbacks of the file",
     "with self.closer: (contextlib.closing(stager)) runs stager.close(), which commits staged K into the pool", '''
import contextlib


class Stager:
    def __init__(self, pool):
        self.pool = pool

    def close(self):
        self.pool.k_buffer[1][3] = 0.5


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.closer = contextlib.closing(Stager(pool))

    def forward(self, layer_id, kv_indices):
        with self.closer:
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices]
''' + RUN)

case("weakref_finalize_local", "a weakref.finalize callback runs when a local is rebound", "staged = None drops the last reference; weakref.finalize(staged, self._commit) writes the pool (no __del__ in the file)", '''
import weakref


class Staged:
    pass


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def _commit(self, layer_id):
        self.token_to_kv_pool.k_buffer[layer_id][3] = 0.5

    def forward(self, layer_id, kv_indices):
        staged = Staged()
        weakref.finalize(staged, self._commit, layer_id)
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        staged = None
        return k[kv_indices]
''' + RUN)

case("generator_resume_chunks", "a generator resumed after the caller wrote the pool", "the cast before the loop, one gather per yield: the caller writes slot 3 between two resumes", BACKEND + '''
    def iter_rows(self, layer_id, chunks):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        for chunk in chunks:
            yield k[chunk]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    g = Backend(pool).iter_rows(1, [torch.tensor([1]), torch.tensor([3, 1])])
    first = next(g)
    pool.set_kv_buffer(1, torch.tensor([3]), torch.full((1, 2, 4), 0.5), torch.full((1, 2, 4), 0.5))
    second = next(g)
    return {"out": (first, second), "k": pool.k_buffer}
''')

case("async_with_lock_suspends", "an implicit await: a contended asyncio.Lock's `async with` suspends between cast and gather",
     "another task holds the lock, writes slot 3 and releases it while the step waits", '''
import asyncio


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.lock = asyncio.Lock()

    async def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        async with self.lock:
            return k[kv_indices]

    async def writer(self, layer_id):
        async with self.lock:
            await asyncio.sleep(0)
            self.token_to_kv_pool.k_buffer[layer_id][3] = 0.5


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)

    async def main():
        be = Backend(pool)
        w = asyncio.ensure_future(be.writer(1))
        await asyncio.sleep(0)
        out = await be.forward(1, torch.tensor([3, 1]))
        await w
        return out

    out = asyncio.run(main())
    return {"out": out, "k": pool.k_buffer}
''')

case("module_buffer_setattr_hook", "an attribute store on an nn.Module runs torch's global buffer-registration hooks",
     "self.k_scale = k_scale (a registered buffer) runs a hook that writes the pool", '''
class Attn(torch.nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.token_to_kv_pool = pool
        self.register_buffer("k_scale", torch.ones(1))

    def forward(self, layer_id, kv_indices, k_scale):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.k_scale = k_scale
        return k[kv_indices] * self.k_scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    attn = Attn(pool)

    def hook(module, name, value):
        pool.k_buffer[1][3] = 0.5

    handle = torch.nn.modules.module.register_module_buffer_registration_hook(hook)
    try:
        out = attn(1, torch.tensor([3, 1]), torch.full((1,), 2.0))
    finally:
        handle.remove()
    return {"out": out, "k": pool.k_buffer}
''')

case("module_call_forward_hook", "a submodule call runs a forward pre-hook that writes", "self.q_norm(q) between cast and gather; its forward pre-hook stores K", '''
class Attn(torch.nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.token_to_kv_pool = pool
        self.q_norm = torch.nn.Identity()

    def forward(self, q, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        q = self.q_norm(q)
        return q, k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    attn = Attn(pool)

    def pre(module, args):
        pool.k_buffer[1][3] = 0.5

    attn.q_norm.register_forward_pre_hook(pre)
    out = attn(torch.ones(2), 1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- dispatch-level side effects
DISPATCH = '''
from torch.utils._python_dispatch import TorchDispatchMode


class OpLog(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))

''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)[kv_indices]
'''

case("dispatch_mode_op_log", "a TorchDispatchMode (aten level) observes the op order", "a dispatch mode records _to_copy before index; moved, index comes first", DISPATCH + '''

def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    with OpLog() as log:
        out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "ops": log.ops, "k": pool.k_buffer}
''')

case("dispatch_mode_index_error", "a gather raising after a cast that had a side effect", "the gather raises IndexError; the original had already run (and logged) the whole-pool _to_copy", DISPATCH + '''

def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    with OpLog() as log:
        try:
            out = Backend(pool).forward(1, torch.tensor([3, 40]))
        except IndexError:
            out = None
    return {"out": out, "ops": log.ops, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- exceptions
case("getattr_torch_dtype_counter", "the dtype object comes from getattr(torch, name): the cast raises, code between runs first when moved",
     "getattr(torch, 'fp8_e4m3') raises AttributeError; moved after `self.reads += 1`, the counter moves", '''
class Backend:
    def __init__(self, pool, kv_dtype_name):
        self.token_to_kv_pool = pool
        self.kv_dtype_name = kv_dtype_name
        self.reads = 0

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(getattr(torch, self.kv_dtype_name))
        self.reads += 1
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool, "fp8_e4m3")
    try:
        out = be.forward(1, torch.tensor([3, 1]))
    except AttributeError as e:
        out = str(e)
    return {"out": out, "reads": be.reads, "k": pool.k_buffer}
''')

case("cast_error_propagates_no_handler", "the cast raises and the gather raises: which exception escapes to the caller",
     "no handler in the function: the caller sees NotImplementedError (FP4 cast) originally, IndexError when moved", BACKEND + '''
    def forward(self, layer_id, kv_indices, dtype: torch.dtype):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(dtype)[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    try:
        out = Backend(pool).forward(0, torch.tensor([3, 40]), torch.float4_e2m1fn_x2)
    except Exception as e:  # noqa: BLE001
        out = type(e).__name__
    return {"out": out, "k": pool.k_buffer}
''')

case("getattr_dtype_vs_index_error", "the cast raises and the gather raises: which exception escapes to the caller",
     "getattr(torch, name) raises AttributeError in the dtype expression; moved, the gather's IndexError escapes first", '''
class Backend:
    def __init__(self, pool, name):
        self.token_to_kv_pool = pool
        self.name = name

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(getattr(torch, self.name))
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    try:
        out = Backend(pool, "bf16").forward(0, torch.tensor([3, 40]))
    except Exception as e:  # noqa: BLE001
        out = type(e).__name__
    return {"out": out, "k": pool.k_buffer}
''')

case("cuda_device_cast_vs_index_error", "the cast raises and the gather raises: which exception escapes to the caller",
     ".to(self.device, torch.bfloat16) with device 'cuda:0' on a CPU-only build raises AssertionError; moved, IndexError", '''
class Backend:
    def __init__(self, pool, device):
        self.token_to_kv_pool = pool
        self.device = device

    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(self.device, torch.bfloat16)[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    try:
        out = Backend(pool, "cuda:0").forward(0, torch.tensor([3, 40]))
    except Exception as e:  # noqa: BLE001
        out = type(e).__name__
    return {"out": out, "k": pool.k_buffer}
''')

case("suppress_index_error", "an exception handler spelled as a context manager: contextlib.suppress(IndexError)",
     "with suppress(IndexError) around pool.to(dtype)[idx]: the FP4 cast's NotImplementedError escapes originally; moved, the IndexError is suppressed", '''
import contextlib
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices, dtype: torch.dtype):
        rows = None
        with contextlib.suppress(IndexError):
            rows = self.token_to_kv_pool.get_key_buffer(layer_id).to(dtype)[kv_indices]
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    try:
        out = Backend(pool).forward(0, torch.tensor([3, 40]), torch.float4_e2m1fn_x2)
    except NotImplementedError:
        out = "unsupported kv dtype"
    return {"out": out, "k": pool.k_buffer}
''')

case("handler_uses_cast_result", "a second consumer of the cast result in an exception handler", "except IndexError: return k.new_zeros(...) (float32 zeros; on the pool: FP8 zeros)", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        try:
            return k[kv_indices]
        except IndexError:
            return k.new_zeros((len(kv_indices),) + tuple(k.shape[1:]))


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 40]))
    return {"out": out, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- second consumers of the cast result
case("ternary_whole_or_rows", "a second consumer of the cast result in another branch", "return k[idx] if idx is not None else k: the whole converted pool on the other branch", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices] if kv_indices is not None else k


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    return {"rows": be.forward(1, torch.tensor([3, 1])), "whole": be.forward(1, None), "k": pool.k_buffer}
''')

case("stride_of_converted", "a second consumer of the cast result: its strides", "k = buf[:, :, :2].float() is contiguous; the pool's column view is not: k.stride() differs", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id)[:, :, :2].float()
        return k[kv_indices], k.stride()
''' + RUN)

case("tuple_store_self", "a second consumer of the cast result: stored in self by a tuple assignment", "self.last_k, rows = k, k[idx]", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.last_k, rows = k, k[kv_indices]
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward(1, torch.tensor([3, 1]))
    return {"out": out, "last": be.last_k, "k": pool.k_buffer}
''')

case("dict_ior_store", "a second consumer of the cast result: stored in self by `|=`", "self.stash |= {'k': k}", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.stash = {}

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        self.stash |= {"k": k}
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward(1, torch.tensor([3, 1]))
    return {"out": out, "stash": be.stash["k"].dtype, "k": pool.k_buffer}
''')

case("vars_store", "a second consumer of the cast result: stored in self through vars()", "vars(self)['last_k'] = k", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        vars(self)["last_k"] = k
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward(1, torch.tensor([3, 1]))
    return {"out": out, "last": be.last_k, "k": pool.k_buffer}
''')

case("finally_reads_dtype", "a second consumer of the cast result in a finally block", "finally: self.seen_dtype = k.dtype", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        try:
            return k[kv_indices]
        finally:
            self.seen_dtype = k.dtype


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    be = Backend(pool)
    out = be.forward(1, torch.tensor([3, 1]))
    return {"out": out, "seen": str(be.seen_dtype), "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- code run by a definition between cast and gather
case("nested_def_decorator_writes", "a def statement between cast and gather runs its decorator now", "@self.register_step on a nested def: the registry flushes staged K when it registers", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.steps = []

    def register_step(self, fn):
        self.token_to_kv_pool.k_buffer[1][3] = 0.5
        self.steps.append(fn)
        return fn

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()

        @self.register_step
        def _after():
            return None

        return k[kv_indices]
''' + RUN)

case("nested_def_default_arg", "a def statement between cast and gather evaluates its defaults now", "def _pick(rows, _ready=self._sync(layer_id)): the default is a call that writes", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def _sync(self, layer_id):
        self.token_to_kv_pool.k_buffer[layer_id][3] = 0.5
        return True

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()

        def _pick(rows, _ready=self._sync(layer_id)):
            return rows

        return _pick(k[kv_indices])
''' + RUN)

case("lambda_default_arg", "a lambda between cast and gather evaluates its defaults now", "post = lambda rows, _=self._sync(layer_id): rows", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def _sync(self, layer_id):
        self.token_to_kv_pool.k_buffer[layer_id][3] = 0.5
        return True

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        post = lambda rows, _=self._sync(layer_id): rows  # noqa: E731
        return post(k[kv_indices])
''' + RUN)

case("class_stmt_init_subclass", "a class statement between cast and gather runs its base's __init_subclass__", "class _Step(StepBase): pass; StepBase.__init_subclass__ writes the pool", '''
class StepBase:
    pool = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        StepBase.pool.k_buffer[1][3] = 0.5
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()

        class _Step(StepBase):
            pass

        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    StepBase.pool = pool
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("class_body_call", "a class statement between cast and gather runs its body now", "class _Cfg: ready = self._sync(layer_id) (a class body is executed when defined)", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def _sync(self, layer_id):
        self.token_to_kv_pool.k_buffer[layer_id][3] = 0.5
        return True

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()

        class _Cfg:
            ready = self._sync(layer_id)

        return k[kv_indices]
''' + RUN)

# ---------------------------------------------------------------- in-place on the converted copy through out=
case("out_into_cast_result_between", "in-place on the converted copy through a torch function's out=", "torch.clamp(k, -0.5, 0.5, out=k) between cast and gather", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        torch.clamp(k, -0.5, 0.5, out=k)
        return k[kv_indices]
''' + RUN)

case("unbound_inplace_on_cast_result", "in-place on the converted copy through an unbound Tensor method", "torch.Tensor.mul_(k, 2.0) between", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        torch.Tensor.mul_(k, 2.0)
        return k[kv_indices]
''' + RUN)

# ---------------------------------------------------------------- async step
case("await_in_index_expr", "an await inside the gather's index expression (another task writes the pool meanwhile)",
     "pool.float()[await self.next_slots()]: while the step waits for the slots, the writer task stores slot 3", '''
import asyncio


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.ready = asyncio.Event()

    async def next_slots(self):
        await self.ready.wait()
        return torch.tensor([3, 1])

    async def forward(self, layer_id):
        return self.token_to_kv_pool.get_key_buffer(layer_id).float()[await self.next_slots()]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)

    async def main():
        be = Backend(pool)
        step = asyncio.ensure_future(be.forward(1))
        await asyncio.sleep(0)
        pool.k_buffer[1][3] = 0.5
        be.ready.set()
        return await step

    out = asyncio.run(main())
    return {"out": out, "k": pool.k_buffer}
''')
