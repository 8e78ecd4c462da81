# Hazard case bodies for make_cases.py (round 12): (name, family, doc, code). Each code block follows the
# shared header (toy FP8 pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch). Like rounds 7-11
# this round is realistic engine code, through yet other paths between the cast and the gather: dunders not
# used before on engine objects (__rmatmul__, __radd__ under sum(), __divmod__, __fspath__, __bytes__,
# __str__ under print(), __delitem__, __delattr__), class machinery (__init_subclass__ of a local class,
# abc __subclasshook__ under isinstance, an Enum member's method, __class__ reassignment), calls resolved
# past a typing.Protocol stub or an abc.abstractmethod, writes hidden in syntax not used before (assert,
# conditional expression, `or`, an f-string's expression, a match guard, an eagerly evaluated dict.get
# default, a nested def's decorator, iter(callable, sentinel)), writer callables handed to functools.reduce,
# itertools.accumulate and torch.utils._pytree.tree_map, in-place torch functions not spelled as methods
# (torch._foreach_copy_, torch.nn.init.zeros_, torch.ops.aten overloads, untyped_storage().copy_), alias
# spellings not used before (.data, .detach(), movedim), the cast's dtype read from torch's default dtype /
# os.environ / the class of the layer, and a signal handler run by signal.raise_signal.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


FP8_POOL = "MHATokenToKVPool(16, 2, 4, 2)"
FB = "ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))"
RESULT = '{"out": out, "k": pool.k_buffer, "v": pool.v_buffer}'
ROW = "torch.full((2, 4), 3.0)"
# Casts and gathers rotate over the cases that do not name their own.
CASTS = [".to(torch.bfloat16)", ".bfloat16()", ".half()", ".float()", ".to(dtype=torch.float16)",
         ".to(torch.float32)", ".type(torch.bfloat16)", ".double()", ".to(torch.bfloat16, copy=True)",
         ".to(torch.float16, non_blocking=False)", ".to(dtype=torch.bfloat16)"]
GATHERS = ["k[kv_indices]", "k.index_select(0, kv_indices)", "torch.index_select(k, 0, kv_indices)",
           "k[kv_indices, :, :]", "k[forward_batch.kv_indices]", "k[kv_indices].reshape(2, -1)"]


def std(name, family, doc, prelude, between, *, setup="helper = None", init="", methods="", bases="",
        cast=None, gather=None, ret="0", pool=FP8_POOL, fb=FB, result=RESULT,
        imports="", layer="RadixLayer(1)", finally_=""):
    """The usual shape: an attention backend's forward_decode casts the layer's whole K buffer, runs
    `between` (engine code reaching the pool through objects built in run_case by `setup`), gathers.
    `finally_` restores process state touched by the case."""
    cast = cast or CASTS[len(CASES) % len(CASTS)]
    gather = gather or GATHERS[len(CASES) % len(GATHERS)]
    parts = [textwrap.dedent(imports).strip("\n"), textwrap.dedent(prelude).strip("\n")]
    head = "\n\n\n".join(p for p in parts if p)
    init_block = ("\n" + _ind(init, 8)) if init.strip() else ""
    methods_block = ("\n\n" + _ind(methods, 4)) if methods.strip() else ""
    body = f"""pool = {pool}
fb = {fb}
{textwrap.dedent(setup).strip(chr(10))}
out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), {layer}, fb)
return {result}"""
    if finally_.strip():
        run_body = "    try:\n" + _ind(body, 8) + "\n    finally:\n" + _ind(finally_, 8)
    else:
        run_body = _ind(body, 4)
    code = f'''{head}


class DecodeBackend{bases}:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper{init_block}

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
        kv_indices = forward_batch.kv_indices
{_ind(between, 8)}
        return {gather}, {ret}{methods_block}


def run_case(torch):
{run_body}
'''
    case(name, family, doc, code)


# ---------------------------------------------------------------- dunders not used in rounds 7-11
F_DUNDER = ("a dunder not used in rounds 7-11, run by an operator or builtin on an engine object, writes the "
            "pool: __rmatmul__ of a fused k_proj-and-store weight, __radd__ under sum() of in-flight chunks, "
            "__divmod__ of a seq-lens tracker, __fspath__ of a snapshot handle under os.path.join, __bytes__ "
            "of a transferred chunk under zlib.crc32, __str__ under print(), __delitem__ of a req-to-token "
            "pool, __delattr__ of a ForwardBatch subclass")

std("rmatmul_fused_k_proj_store", F_DUNDER,
    "`hidden @ self.helper` runs the fused k_proj weight's __rmatmul__, which also stores the projected K",
    '''
class FusedKProjWithStore:
    """A k_proj weight wrapper for the fused QKV-proj + KV-store kernel: right-multiplying hidden states
    by it returns the projection and stores the new token's K into the cache at out_cache_loc."""

    def __init__(self, weight, pool, layer_id, out_cache_loc):
        self.weight = weight
        self.pool = pool
        self.layer_id = layer_id
        self.out_cache_loc = out_cache_loc

    def __rmatmul__(self, hidden):
        k_new = (hidden.float() @ self.weight).reshape(-1, 2, 4)
        self.pool.k_buffer[self.layer_id][self.out_cache_loc] = k_new.to(self.pool.dtype)
        return k_new''',
    "k_proj_out = q.reshape(2, 8)[:1] @ self.helper",
    setup="helper = FusedKProjWithStore(torch.eye(8) * 2.0, pool, 1, fb.out_cache_loc)", ret="k_proj_out")

std("sum_radd_pending_chunks_land", F_DUNDER,
    "sum() of in-flight prefill chunks (to count new tokens) calls each chunk's __radd__, which lands it first",
    '''
class InflightChunk:
    """A KV chunk the prefill worker is still sending; its token count is final only once it landed."""

    def __init__(self, pool, layer_id, loc, rows):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.rows = rows
        self.landed = False

    def land(self):
        if not self.landed:
            self.pool.k_buffer[self.layer_id][self.loc] = self.rows.to(self.pool.dtype)
            self.landed = True

    def __radd__(self, total):
        self.land()
        return total + int(self.loc.numel())''',
    "num_new_tokens = sum(self.helper)",
    setup="helper = [InflightChunk(pool, 1, torch.tensor([3]), torch.full((1, 2, 4), 3.0))]",
    ret="num_new_tokens")

std("divmod_seq_lens_tracker_syncs_append", F_DUNDER,
    "divmod(seq_lens, page_size) on the device seq-lens tracker runs its __divmod__, which syncs the pending "
    "append (storing its K) first",
    '''
class SeqLensTracker:
    """Sequence lengths kept on device; host-side arithmetic syncs the appends still pending."""

    def __init__(self, pool, total):
        self.pool = pool
        self.total = total
        self.pending = []

    def append(self, layer_id, loc, row):
        self.pending.append((layer_id, loc, row))

    def _sync(self):
        for layer_id, loc, row in self.pending:
            self.pool.k_buffer[layer_id][loc] = row.to(self.pool.dtype)
            self.total += 1
        self.pending.clear()

    def __divmod__(self, page_size):
        self._sync()
        return divmod(self.total, page_size)''',
    "num_pages, tail = divmod(self.helper, 4)",
    setup=f"helper = SeqLensTracker(pool, 9)\nhelper.append(1, 3, {ROW})", ret="(num_pages, tail)")

std("fspath_snapshot_handle_flushes_restore", F_DUNDER,
    "os.path.join(dump_dir, handle) calls the KV snapshot handle's __fspath__, which applies its pending "
    "restore to the pool before naming the file",
    '''
class KVSnapshotHandle:
    """A debug dumper's handle on a layer snapshot; asking for its path makes the snapshot consistent,
    which applies the restore it still holds."""

    def __init__(self, pool, layer_id, slot, row):
        self.pool = pool
        self.layer_id = layer_id
        self.pending_restore = (slot, row)

    def __fspath__(self):
        if self.pending_restore is not None:
            slot, row = self.pending_restore
            self.pool.k_buffer[self.layer_id][slot] = row.to(self.pool.dtype)
            self.pending_restore = None
        return f"kv_layer{self.layer_id}.snap"''',
    'dump_path = os.path.join("/tmp/kv_dumps", self.helper)',
    imports="import os", setup=f"helper = KVSnapshotHandle(pool, 1, 3, {ROW})", ret="dump_path")

std("bytes_transferred_chunk_checksum_lands", F_DUNDER,
    "zlib.crc32(bytes(chunk)) for the transfer's integrity check runs the chunk's __bytes__, which "
    "materialises the chunk into the pool",
    '''
class TransferredChunk:
    """A received KV chunk; its bytes are those of the rows as they sit in the pool, so it lands first."""

    def __init__(self, pool, layer_id, loc, rows):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.rows = rows

    def __bytes__(self):
        dst = self.pool.k_buffer[self.layer_id]
        dst[self.loc] = self.rows.to(self.pool.dtype)
        return bytes(dst[self.loc].view(torch.uint8).reshape(-1).tolist())''',
    "crc = zlib.crc32(bytes(self.helper))",
    imports="import zlib", setup="helper = TransferredChunk(pool, 1, torch.tensor([3]), torch.full((1, 2, 4), 3.0))",
    ret="crc")

std("print_metadata_str_lands_async_copy", F_DUNDER,
    "print(metadata, file=trace) calls the decode metadata's __str__, which waits for its async copy (and "
    "the K row the copy brings)",
    '''
class DecodeMetadata:
    """Attention metadata filled by an async H2D copy that also brings the prefix's last K row."""

    def __init__(self, pool, layer_id, slot, row):
        self.pool = pool
        self.layer_id = layer_id
        self.seq_lens = None
        self._copy = (slot, row)

    def _finish_copy(self):
        if self._copy is not None:
            slot, row = self._copy
            self.pool.k_buffer[self.layer_id][slot] = row.to(self.pool.dtype)
            self.seq_lens = [5, 2]
            self._copy = None

    def __str__(self):
        self._finish_copy()
        return f"DecodeMetadata(layer={self.layer_id}, seq_lens={self.seq_lens})"''',
    "print(self.helper, file=self.trace)",
    imports="import io", init="self.trace = io.StringIO()", setup=f"helper = DecodeMetadata(pool, 1, 3, {ROW})",
    ret="self.trace.getvalue()")

std("delitem_req_to_token_pool_scrubs_freed", F_DUNDER,
    "`del req_to_token_pool[rid]` for a finished request runs __delitem__, which frees its slots and the KV "
    "sanitizer scrubs them in every layer",
    '''
class ReqToTokenPool:
    """Maps request ids to their KV slots; deleting a request frees its slots, scrubbed when sanitising."""

    def __init__(self, pool, sanitize=True):
        self.pool = pool
        self.sanitize = sanitize
        self.slots = {}

    def __setitem__(self, rid, slots):
        self.slots[rid] = slots

    def __delitem__(self, rid):
        slots = self.slots.pop(rid)
        if self.sanitize:
            for layer_buf in self.pool.k_buffer:
                layer_buf[slots] = torch.zeros(len(slots), 2, 4).to(self.pool.dtype)''',
    'del self.helper["req-7"]',
    setup='helper = ReqToTokenPool(pool)\nhelper["req-7"] = torch.tensor([3])')

std("delattr_spec_info_commits_draft_kv", F_DUNDER,
    "`del forward_batch.spec_info` after verify runs the ForwardBatch subclass's __delattr__, which commits "
    "the accepted draft K",
    '''
class EagleVerifyInfo:
    def __init__(self, layer_id, accepted_loc, accepted_k):
        self.layer_id = layer_id
        self.accepted_loc = accepted_loc
        self.accepted_k = accepted_k

    def commit(self, pool):
        pool.k_buffer[self.layer_id][self.accepted_loc] = self.accepted_k.to(pool.dtype)


class SpecForwardBatch(ForwardBatch):
    """A ForwardBatch that carries speculative info; dropping it commits what verify accepted."""

    def __delattr__(self, name):
        if name == "spec_info":
            self.__dict__["spec_info"].commit(self.token_to_kv_pool)
        super().__delattr__(name)''',
    "del forward_batch.spec_info",
    fb="SpecForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))",
    setup=f"fb.spec_info = EagleVerifyInfo(1, 3, {ROW})\nhelper = None")

# ---------------------------------------------------------------- class machinery
F_CLASS = ("class machinery not used in rounds 7-11 runs engine code that writes the pool: a local class "
           "statement runs the base's __init_subclass__ (registration warms the plan's scratch slot); "
           "isinstance() against an abc.ABC runs its __subclasshook__, which binds the duck-typed connector "
           "class and lands its queue; an Enum member looked up by value runs the member's method")

std("init_subclass_local_plan_warms_slot", F_CLASS,
    "a per-shape plan class defined inside forward_decode runs DecodePlan.__init_subclass__, which zeroes "
    "the plan's scratch slot",
    '''
class DecodePlan:
    """Base of per-shape decode plans. Defining a plan registers it and warms (zeroes) its scratch slot."""

    registry = {}
    pool = None

    def __init_subclass__(cls, layer_id=0, scratch_slot=None, **kwargs):
        super().__init_subclass__(**kwargs)
        DecodePlan.registry[cls.__name__] = cls
        if scratch_slot is not None and DecodePlan.pool is not None:
            DecodePlan.pool.k_buffer[layer_id][scratch_slot] = torch.zeros(2, 4).to(DecodePlan.pool.dtype)''',
    '''
class _Bs2Plan(DecodePlan, layer_id=layer.layer_id, scratch_slot=3):
    batch_size = 2

plan_bs = _Bs2Plan.batch_size''',
    setup="DecodePlan.registry = {}\nDecodePlan.pool = pool\nhelper = None", ret="plan_bs")

std("abc_subclasshook_isinstance_binds_connector", F_CLASS,
    "isinstance(connector, KVConnectorBase) runs the ABC's __subclasshook__, which binds the duck-typed "
    "connector class to the engine and lands its queued loads",
    '''
class KVConnectorBase(abc.ABC):
    """Duck-typed connectors are accepted: a class with wait_for_layer_load is bound to the engine (its
    queued loads land) the first time it is checked."""

    @classmethod
    def __subclasshook__(cls, C):
        if cls is KVConnectorBase and hasattr(C, "wait_for_layer_load"):
            C.bind_to_engine()
            return True
        return NotImplemented


class MooncakeStyleConnector:
    pool = None
    queued = []

    @classmethod
    def bind_to_engine(cls):
        for layer_id, loc, row in cls.queued:
            cls.pool.k_buffer[layer_id][loc] = row.to(cls.pool.dtype)
        cls.queued = []

    def wait_for_layer_load(self, layer_id):
        return None''',
    "use_connector = isinstance(self.helper, KVConnectorBase)",
    imports="import abc",
    setup=f"MooncakeStyleConnector.pool = pool\nMooncakeStyleConnector.queued = [(1, 3, {ROW})]\n"
          "helper = MooncakeStyleConnector()", ret="use_connector")

std("enum_member_method_eager_store_mode", F_CLASS,
    "KVStoreMode(config value).apply(queue): the EAGER member's method flushes the store queue",
    '''
class KVStoreMode(enum.Enum):
    DEFERRED = "deferred"
    EAGER = "eager"

    def apply(self, queue):
        if self is KVStoreMode.EAGER:
            queue.flush()
        return self.value


class StoreQueue:
    def __init__(self, pool, store_mode):
        self.pool = pool
        self.store_mode = store_mode
        self.items = []

    def flush(self):
        for layer_id, loc, row in self.items:
            self.pool.k_buffer[layer_id][loc] = row.to(self.pool.dtype)
        self.items.clear()''',
    "mode = KVStoreMode(self.helper.store_mode).apply(self.helper)",
    imports="import enum", setup=f'helper = StoreQueue(pool, "eager")\nhelper.items.append((1, 3, {ROW}))',
    ret="mode")

# ---------------------------------------------------------------- stub dispatch
F_STUB = ("the method called is declared as an empty stub on the type the backend names (a typing.Protocol "
          "member `...`, an abc.abstractmethod reached from the base's template method); the concrete "
          "class's implementation writes the pool")

std("protocol_stub_connector_wait_lands", F_STUB,
    "self.connector is annotated with a typing.Protocol whose wait_for_layer_load is `...`; the NIXL-style "
    "connector's implementation lands the layer",
    '''
class KVConnector(Protocol):
    def wait_for_layer_load(self, layer_id: int) -> None: ...


class NixlStyleConnector:
    def __init__(self, pool, loc, row):
        self.pool = pool
        self.pending = {1: (loc, row)}

    def wait_for_layer_load(self, layer_id: int) -> None:
        if layer_id in self.pending:
            loc, row = self.pending.pop(layer_id)
            self.pool.k_buffer[layer_id][loc] = row.to(self.pool.dtype)''',
    "self.connector.wait_for_layer_load(layer.layer_id)",
    imports="from typing import Protocol", init="self.connector: KVConnector = helper",
    setup=f"helper = NixlStyleConnector(pool, 3, {ROW})")

std("abstractmethod_template_hook_commits", F_STUB,
    "the policy base's template method on_layer_start() calls the abstract _commit(); the eager policy "
    "subclass implements it by storing the pending K",
    '''
class KVCommitPolicy(abc.ABC):
    def __init__(self, pool):
        self.pool = pool
        self.steps = 0
        self.pending = []

    def on_layer_start(self, layer_id):
        """Template method: bookkeeping, then the policy's commit."""
        self.steps += 1
        self._commit(layer_id)
        return self.steps

    @abc.abstractmethod
    def _commit(self, layer_id):
        """Commit the rows pending for layer_id (policy-specific)."""


class EagerCommitPolicy(KVCommitPolicy):
    def _commit(self, layer_id):
        for lid, loc, row in self.pending:
            if lid == layer_id:
                self.pool.k_buffer[lid][loc] = row.to(self.pool.dtype)''',
    "steps = self.helper.on_layer_start(layer.layer_id)",
    imports="import abc", setup=f"helper = EagerCommitPolicy(pool)\nhelper.pending.append((1, 3, {ROW}))",
    ret="steps")

# ---------------------------------------------------------------- syntax
F_SYNTAX = ("the writing call sits in syntax not used in rounds 7-11: an assert's condition, a conditional "
            "expression's test, the right operand of `or`, an f-string's replacement field, a match case's "
            "guard, the eagerly evaluated default of dict.get, a nested def's decorator (run at definition), "
            "iter(callable, sentinel) driving a receiver")

LOADER = '''
class LayerLoader:
    """Host-to-device layer loader: the first wait/poll for a layer lands its K."""

    def __init__(self, pool, pending):
        self.pool = pool
        self.pending = dict(pending)

    def _land(self, layer_id):
        if layer_id in self.pending:
            loc, row = self.pending.pop(layer_id)
            self.pool.k_buffer[layer_id][loc] = row.to(self.pool.dtype)
            return True
        return False'''
LOADER_SETUP = f"helper = LayerLoader(pool, {{1: (3, {ROW})}})"

std("assert_condition_waits_layer", F_SYNTAX,
    "`assert loader.wait_for_layer(id), ...`: the assert's condition lands the layer",
    LOADER + '''

    def wait_for_layer(self, layer_id):
        self._land(layer_id)
        return True''',
    'assert self.helper.wait_for_layer(layer.layer_id), "KV layer not resident"', setup=LOADER_SETUP)

std("conditional_expression_test_lands", F_SYNTAX,
    "`window = self.sliding_window if loader.try_land(id) else -1`: the conditional expression's test lands",
    LOADER + '''

    def try_land(self, layer_id):
        return self._land(layer_id)''',
    "window = self.sliding_window if self.helper.try_land(layer.layer_id) else -1",
    init="self.sliding_window = 8", setup=LOADER_SETUP, ret="window")

std("or_right_operand_loads_layer", F_SYNTAX,
    "`ready = self.prefetched or loader.load_layer(id)`: not prefetched, so the right operand runs and loads",
    LOADER + '''

    def load_layer(self, layer_id):
        self._land(layer_id)
        return True''',
    "ready = self.prefetched or self.helper.load_layer(layer.layer_id)",
    init="self.prefetched = False", setup=LOADER_SETUP, ret="ready")

std("fstring_field_calls_land_pending", F_SYNTAX,
    "a debug trace line f\"... {loader.land_pending(id)} ...\": the replacement field's call lands the layer",
    LOADER + '''

    def land_pending(self, layer_id):
        return int(self._land(layer_id))''',
    'self.trace.append(f"layer {layer.layer_id}: landed {self.helper.land_pending(layer.layer_id)} chunk(s)")',
    init="self.trace = []", setup=LOADER_SETUP, ret="self.trace")

std("match_case_guard_commits_ready", F_SYNTAX,
    "a match on the forward mode whose `case \"decode\" if queue.commit_ready(id)` guard commits the queue",
    LOADER + '''

    def commit_ready(self, layer_id):
        return self._land(layer_id)''',
    '''
match forward_batch.forward_mode:
    case "decode" if self.helper.commit_ready(layer.layer_id):
        path = "decode-committed"
    case "decode":
        path = "decode"
    case _:
        path = "other"''', setup=LOADER_SETUP, ret="path")

std("dict_get_eager_default_allocs_scrubbed", F_SYNTAX,
    "`self.sink_slots.get(layer_id, allocator.alloc_scrubbed())`: the default is evaluated even though the "
    "key is present, and the allocator hands out (and scrubs) recycled slot 3",
    '''
class TokenAllocator:
    def __init__(self, pool, free_slots):
        self.pool = pool
        self.free_slots = list(free_slots)

    def alloc_scrubbed(self):
        slot = self.free_slots.pop(0)
        for layer_buf in self.pool.k_buffer:
            layer_buf[slot] = torch.zeros(2, 4).to(self.pool.dtype)
        return slot''',
    "sink_slot = self.sink_slots.get(layer.layer_id, self.helper.alloc_scrubbed())",
    init="self.sink_slots = {0: 0, 1: 0}", setup="helper = TokenAllocator(pool, [3, 9])", ret="sink_slot")

std("nested_def_decorator_capture_warmup", F_SYNTAX,
    "a nested def decorated with graph_runner.capture(bs): the decorator runs at definition and its warm-up "
    "writes a dummy K row into the pool's padding slot",
    '''
class GraphRunner:
    """Captures a decode function for a batch size; capturing warms it up once, which writes the dummy
    request's K into the padding slot."""

    def __init__(self, pool, padding_slot):
        self.pool = pool
        self.padding_slot = padding_slot
        self.graphs = {}

    def capture(self, batch_size):
        def deco(fn):
            self.pool.k_buffer[1][self.padding_slot] = torch.zeros(2, 4).to(self.pool.dtype)
            self.graphs[batch_size] = fn
            return fn
        return deco''',
    '''
@self.helper.capture(forward_batch.batch_size)
def _scaled_q(x):
    return x.float() * layer.head_dim ** -0.5

q_scaled = _scaled_q(q)''', setup="helper = GraphRunner(pool, 3)", ret="q_scaled")

std("iter_callable_sentinel_receiver", F_SYNTAX,
    "`for chunk_id in iter(receiver.recv_chunk, None)`: iter() calls the receiver until None, each call "
    "landing a chunk",
    '''
class DisaggReceiver:
    def __init__(self, pool, chunks):
        self.pool = pool
        self.chunks = list(chunks)

    def recv_chunk(self):
        if not self.chunks:
            return None
        chunk_id, layer_id, loc, rows = self.chunks.pop(0)
        self.pool.k_buffer[layer_id][loc] = rows.to(self.pool.dtype)
        return chunk_id''',
    '''
received = []
for chunk_id in iter(self.helper.recv_chunk, None):
    received.append(chunk_id)''',
    setup="helper = DisaggReceiver(pool, [(0, 1, torch.tensor([3]), torch.full((1, 2, 4), 3.0))])",
    ret="received")

# ---------------------------------------------------------------- callables handed to library functions
F_CALLABLE = ("a writer is handed as a callable to a library function not used in rounds 7-11: "
              "functools.reduce, itertools.accumulate, torch.utils._pytree.tree_map")

std("functools_reduce_commit_and_count", F_CALLABLE,
    "functools.reduce(queue.commit_and_count, layers, 0) commits each layer's pending rows while counting",
    '''
class StoreQueue:
    def __init__(self, pool):
        self.pool = pool
        self.pending = {}

    def commit_and_count(self, total, layer_id):
        rows = self.pending.pop(layer_id, [])
        for loc, row in rows:
            self.pool.k_buffer[layer_id][loc] = row.to(self.pool.dtype)
        return total + len(rows)''',
    "committed = functools.reduce(self.helper.commit_and_count, [0, layer.layer_id], 0)",
    imports="import functools", setup=f"helper = StoreQueue(pool)\nhelper.pending[1] = [(3, {ROW})]",
    ret="committed")

std("itertools_accumulate_store_chunks", F_CALLABLE,
    "itertools.accumulate(chunks, writer.store_and_advance, initial=0) computes chunk offsets, the function "
    "storing each chunk at its offset",
    '''
class ChunkWriter:
    """Writes prefill chunks contiguously from a base slot; store_and_advance returns the next offset."""

    def __init__(self, pool, layer_id, base):
        self.pool = pool
        self.layer_id = layer_id
        self.base = base

    def store_and_advance(self, offset, chunk):
        n = chunk.shape[0]
        self.pool.k_buffer[self.layer_id][self.base + offset:self.base + offset + n] = chunk.to(self.pool.dtype)
        return offset + n''',
    "offsets = list(itertools.accumulate(self.chunks, self.helper.store_and_advance, initial=0))",
    imports="import itertools", init="self.chunks = [torch.full((1, 2, 4), 3.0)]",
    setup="helper = ChunkWriter(pool, 1, 3)", ret="offsets")

std("pytree_tree_map_restores_rows", F_CALLABLE,
    "torch.utils._pytree.tree_map(saver.restore_leaf, saved) over the saved-rows tree: the leaf function "
    "writes each row back into the pool",
    '''
class SavedRow:
    def __init__(self, layer_id, slot, row):
        self.layer_id = layer_id
        self.slot = slot
        self.row = row


class RowSaver:
    def __init__(self, pool):
        self.pool = pool

    def restore_leaf(self, leaf):
        self.pool.k_buffer[leaf.layer_id][leaf.slot] = leaf.row.to(self.pool.dtype)
        return leaf.slot''',
    "restored = pytree.tree_map(self.helper.restore_leaf, self.saved)",
    imports="import torch.utils._pytree as pytree", init=f'self.saved = {{"k": [SavedRow(1, 3, {ROW})]}}',
    setup="helper = RowSaver(pool)", ret="restored")

# ---------------------------------------------------------------- torch in-place functions
F_TORCHFN = ("an in-place write through a torch function rather than a tensor method or a subscript store: "
             "torch._foreach_copy_ over per-layer row views, torch.nn.init.zeros_ on a slot, an ATen overload "
             "torch.ops.aten.index_put_.default (FX-graph style), untyped_storage().copy_ from a snapshot")

std("foreach_copy_multi_layer_rows", F_TORCHFN,
    "torch._foreach_copy_(dst_rows, src_rows) stores the new token's K in every layer in one call",
    '''
class MultiLayerStore:
    def __init__(self, pool, loc):
        self.pool = pool
        self.loc = loc

    def dst_rows(self):
        return [layer_buf[self.loc] for layer_buf in self.pool.k_buffer]''',
    '''
dsts = self.helper.dst_rows()
torch._foreach_copy_(dsts, [torch.full((2, 4), 3.0).to(dst.dtype) for dst in dsts])''',
    setup="helper = MultiLayerStore(pool, 3)")

std("nn_init_zeros_freed_slot", F_TORCHFN,
    "torch.nn.init.zeros_ on the freed slot of the layer (the sanitizer's scrub)",
    "",
    '''
for slot in self.freed_slots:
    torch.nn.init.zeros_(self.token_to_kv_pool.get_key_buffer(layer.layer_id)[slot])''',
    init="self.freed_slots = [3]")

std("aten_index_put_overload_store", F_TORCHFN,
    "an FX-graph-style store through torch.ops.aten.index_put_.default on the layer's buffer",
    "",
    '''
cache_k = torch.full((1, 2, 4), 3.0).to(self.token_to_kv_pool.dtype)
torch.ops.aten.index_put_.default(self.token_to_kv_pool.k_buffer[layer.layer_id], (forward_batch.out_cache_loc,), cache_k)''')

std("untyped_storage_copy_restores_snapshot", F_TORCHFN,
    "the offloader restores the layer from its host snapshot through untyped_storage().copy_()",
    '''
class LayerOffloader:
    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id
        self.snapshot = pool.k_buffer[layer_id].clone()
        self.snapshot[3] = torch.full((2, 4), 3.0).to(pool.dtype)

    def restore(self):
        self.pool.k_buffer[self.layer_id].untyped_storage().copy_(self.snapshot.untyped_storage())''',
    "self.helper.restore()", setup="helper = LayerOffloader(pool, 1)")

# ---------------------------------------------------------------- alias spellings
F_ALIAS = ("a store through an alias spelled in a way not used in rounds 7-11, made right there: "
           "`.data` of the layer, `.detach()` of the layer, a `movedim(0, 1)` HND view")

std("data_attr_alias_fill_slot", F_ALIAS,
    "`layer_buf.data[3].fill_(0)` (a scrub written through .data to dodge autograd checks)", "",
    '''
layer_buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
layer_buf.data[3].fill_(0)''')

std("detach_alias_scrub_slot", F_ALIAS,
    "`layer_buf.detach()[3] = 0`: a detached alias shares storage", "",
    '''
scratch = self.token_to_kv_pool.get_key_buffer(layer.layer_id).detach()
scratch[3] = 0''')

std("movedim_hnd_view_store", F_ALIAS,
    "a kernel wanting HND layout writes through `movedim(0, 1)` of the layer", "",
    '''
k_hnd = self.token_to_kv_pool.get_key_buffer(layer.layer_id).movedim(0, 1)
k_hnd[:, 3] = torch.full((2, 4), 3.0).to(k_hnd.dtype)''')

# ---------------------------------------------------------------- dtype
F_DTYPE = ("the cast's dtype expression reads state that code between changes, through a path not used in "
           "rounds 7-11: torch.get_default_dtype() after a lazy draft-model init sets the default dtype, "
           "os.environ after a precision fallback exports the compute dtype for workers, a class attribute of "
           "the layer after `layer.__class__` is reassigned to an fp32-fallback class")

std("get_default_dtype_after_draft_model_init", F_DTYPE,
    ".to(torch.get_default_dtype()); the lazily initialised draft model sets torch's default dtype to bf16",
    '''
class LazyDraftModel:
    """vLLM-style lazy draft init: the model is built under its dtype, set as torch's default dtype."""

    def __init__(self):
        self.model = None

    def ensure(self):
        if self.model is None:
            torch.set_default_dtype(torch.bfloat16)
            self.model = torch.nn.Linear(4, 4)
        return self.model''',
    "draft = self.helper.ensure()",
    cast=".to(torch.get_default_dtype())",
    setup="_old_default = torch.get_default_dtype()\nhelper = LazyDraftModel()",
    ret="draft.weight.dtype", finally_="torch.set_default_dtype(_old_default)")

std("environ_compute_dtype_fallback_export", F_DTYPE,
    ".to(_DTYPES[os.environ.get(...)]); a precision fallback exports KV_COMPUTE_DTYPE=float32 for the workers",
    '''
_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
_ENV = "FB12_KV_COMPUTE_DTYPE"


class PrecisionFallback:
    def check(self, q):
        if q.float().abs().max() > 1.0:
            os.environ[_ENV] = "float32"
            return True
        return False''',
    "fell_back = self.helper.check(q)",
    imports="import os", cast='.to(_DTYPES[os.environ.get(_ENV, "bfloat16")])',
    setup="_old_env = os.environ.pop(_ENV, None)\nhelper = PrecisionFallback()", ret="fell_back",
    finally_="os.environ.pop(_ENV, None)\nif _old_env is not None:\n    os.environ[_ENV] = _old_env")

std("layer_class_reassigned_fp32_fallback", F_DTYPE,
    ".to(layer.kv_compute_dtype) where the precision guard reassigns layer.__class__ to the fp32-fallback "
    "subclass",
    '''
class KVLayer(RadixLayer):
    kv_compute_dtype = torch.bfloat16


class FP32FallbackKVLayer(KVLayer):
    kv_compute_dtype = torch.float32


class PrecisionGuard:
    def check(self, layer, q):
        if q.float().abs().max() > 1.0:
            layer.__class__ = FP32FallbackKVLayer
            return True
        return False''',
    "fell_back = self.helper.check(layer, q)",
    cast=".to(layer.kv_compute_dtype)", layer="KVLayer(1)", setup="helper = PrecisionGuard()", ret="fell_back")

# ---------------------------------------------------------------- signal handler
std("signal_raise_watchdog_flush_handler",
    "a signal handler installed by the KV-transfer agent runs synchronously when the scheduler's watchdog "
    "calls signal.raise_signal, and lands the pending transfer",
    "the step watchdog raises SIGUSR1 on itself; the transfer agent's handler lands the pending K",
    '''
class TransferAgent:
    def __init__(self, pool, layer_id, loc, row):
        self.pool = pool
        self.pending = [(layer_id, loc, row)]

    def on_flush_signal(self, signum, frame):
        for layer_id, loc, row in self.pending:
            self.pool.k_buffer[layer_id][loc] = row.to(self.pool.dtype)
        self.pending.clear()


class StepWatchdog:
    def __init__(self, budget):
        self.budget = budget

    def check(self, elapsed):
        if elapsed > self.budget:
            signal.raise_signal(signal.SIGUSR1)
            return True
        return False''',
    "overran = self.helper.check(elapsed=forward_batch.batch_size * 10)",
    imports="import signal",
    setup=f"agent = TransferAgent(pool, 1, 3, {ROW})\n_old_handler = signal.signal(signal.SIGUSR1, "
          "agent.on_flush_signal)\nhelper = StepWatchdog(budget=5)",
    ret="overran", finally_="signal.signal(signal.SIGUSR1, _old_handler)")
