# Hazard case bodies for make_cases.py (round 11): (name, family, doc, code). Each code block follows the
# shared header (toy FP8 pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch). Like rounds 7-10
# this round is realistic engine code, through yet other paths between the cast and the gather: dunder
# protocols not used before on engine objects (__getitem__ of a req-to-token table, __lt__ under heapq,
# __reversed__, __getattribute__, __setattr__, __index__, __int__, __new__), a dataclass default_factory,
# writes hidden in syntax (comprehensions, walrus conditions, for-else, while conditions, generator
# expressions under any(), lambda default arguments, a nested def's closure), writer callables handed to
# map / itertools.starmap / json.dumps(default=), the operator module (setitem, iadd), in-place tensor methods
# reached by name (getattr, unbound torch.Tensor methods in a kernel table), a torch.library custom op that
# mutates its cache argument, decorators, classmethods writing through a module-global registry, the MRO
# (a mixin's method through super()), a plugin's monkeypatch, an ImportError fallback and a conditional
# redefinition, `global` / class-attribute rebinding of the cast's dtype, a gc callback, exception paths
# (an exception object's repair, contextlib.suppress after a partial write), ExitStack callbacks and a
# context manager's __enter__.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


FP8_POOL = "MHATokenToKVPool(16, 2, 4, 2)"
BF16_POOL = "MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)"
FB = "ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))"
RESULT = '{"out": out, "k": pool.k_buffer, "v": pool.v_buffer}'
ROW = "torch.full((2, 4), 3.0)"


def std(name, family, doc, prelude, between, *, setup="helper = None", init="", methods="", post="",
        bases="", cast=".to(torch.bfloat16)", gather="k[kv_indices]", ret="0", pool=FP8_POOL, fb=FB,
        result=RESULT, imports="", call=None):
    """The usual shape: an attention backend's forward_decode casts the layer's whole K buffer, runs
    `between` (engine code reaching the pool through objects built in run_case by `setup`), gathers."""
    parts = [textwrap.dedent(imports).strip("\n"), textwrap.dedent(prelude).strip("\n")]
    head = "\n\n\n".join(p for p in parts if p)
    init_block = ("\n" + _ind(init, 8)) if init.strip() else ""
    methods_block = ("\n\n" + _ind(methods, 4)) if methods.strip() else ""
    post_block = ("\n\n\n" + textwrap.dedent(post).strip("\n")) if post.strip() else ""
    call = call or "out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)"
    code = f'''{head}


class DecodeBackend{bases}:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper{init_block}

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
        kv_indices = forward_batch.kv_indices
{_ind(between, 8)}
        return {gather}, {ret}{methods_block}{post_block}


def run_case(torch):
    pool = {pool}
    fb = {fb}
{_ind(setup, 4)}
{_ind(call, 4)}
    return {result}
'''
    case(name, family, doc, code)


# ================================================================ A. dunder protocols on engine objects
FAM_DUNDER = ("a dunder protocol of an engine object, not used in rounds 7-10, runs engine code that writes the "
              "pool: a req-to-token table's __getitem__ pages an offloaded row back in, a Req's __lt__ under "
              "heapq.heappush loads back the matched prefix, a running batch's __reversed__ commits deferred K, "
              "a metadata class's __getattribute__ lands the async metadata copy, a ForwardBatch __setattr__ on "
              "out_cache_loc stores the pending K, a layer handle's __index__ waits for the layer's load, a "
              "device scalar's __int__ drains the copy engine, an interned lease's __new__ recycles its slot")

std("req_to_token_getitem_pages_in_row", FAM_DUNDER,
    "reading a request's row of the req-to-token table (__getitem__) pages its offloaded slot back in", '''
class HostKVMirror:
    """Host copies of slots whose device pages were offloaded."""

    def __init__(self):
        self.rows = {3: torch.full((2, 4), 3.0)}


class ReqToTokenTable:
    """req_to_token rows; a request whose pages were offloaded is paged back in on first access to its row."""

    def __init__(self, token_to_kv_pool, host):
        self.token_to_kv_pool = token_to_kv_pool
        self.host = host
        self.rows = [[3, 1], [5, 6]]
        self.offloaded = {0: [3]}

    def __getitem__(self, req_pool_idx):
        for slot in self.offloaded.pop(req_pool_idx, []):
            for layer_id in range(len(self.token_to_kv_pool.k_buffer)):
                self.token_to_kv_pool.k_buffer[layer_id][slot] = self.host.rows[slot]
        return self.rows[req_pool_idx]''', '''
seq_slots = self.req_to_token[0]
seq_len = len(seq_slots)''', init="self.req_to_token = helper", ret="seq_len", cast=".bfloat16()",
    setup="helper = ReqToTokenTable(pool, HostKVMirror())")

std("heapq_push_req_lt_loads_prefix", FAM_DUNDER,
    "pushing requests on the waiting heap compares them with Req.__lt__, whose cache-aware priority matches the "
    "prefix and loads back its evicted page", '''
class RadixCache:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.evicted_to_host = {3: torch.full((2, 4), 3.0)}

    def match_prefix_len(self, rid):
        # matching re-admits the matched nodes: their evicted pages are loaded back
        for slot in list(self.evicted_to_host):
            self.token_to_kv_pool.k_buffer[1][slot] = self.evicted_to_host.pop(slot)
        return 8 if rid == 0 else 2


class Req:
    def __init__(self, rid, tree_cache):
        self.rid = rid
        self.tree_cache = tree_cache

    def __lt__(self, other):
        # longest prefix match first
        return self.tree_cache.match_prefix_len(self.rid) > other.tree_cache.match_prefix_len(other.rid)''', '''
for req in self.new_reqs:
    heapq.heappush(self.waiting_queue, req)
order = [req.rid for req in self.waiting_queue]''', imports="import heapq",
    init="self.new_reqs = helper\nself.waiting_queue = []", ret="order",
    setup="tree = RadixCache(pool)\nhelper = [Req(1, tree), Req(0, tree)]")

std("reversed_running_batch_commits_deferred", FAM_DUNDER,
    "walking the running batch newest-first (reversed(), the retract order) runs its __reversed__, which commits "
    "each request's deferred K", '''
class DecodeReq:
    def __init__(self, rid, slot, pending_k):
        self.rid = rid
        self.slot = slot
        self.pending_k = pending_k


class RunningBatch:
    """The running requests. A newest-first walk (retraction) must see every request's K in the pool."""

    def __init__(self, token_to_kv_pool, reqs):
        self.token_to_kv_pool = token_to_kv_pool
        self.reqs = reqs

    def __reversed__(self):
        for req in self.reqs:
            if req.pending_k is not None:
                self.token_to_kv_pool.k_buffer[1][req.slot] = req.pending_k
                req.pending_k = None
        return iter(self.reqs[::-1])''', '''
retract_order = [req.rid for req in reversed(self.running_batch)]''', init="self.running_batch = helper", gather="k.index_select(0, kv_indices)",
    ret="retract_order",
    setup=f"helper = RunningBatch(pool, [DecodeReq(0, 3, {ROW}), DecodeReq(1, 1, None)])")

std("getattribute_metadata_lands_async_copy", FAM_DUNDER,
    "reading a field of the decode metadata runs its __getattribute__, which first waits for the async copy "
    "that produced it and lands the K rows that copy carried", '''
class AsyncDecodeMetadata:
    """Fields filled by an async H2D copy that also carries the swapped-in K rows; the first public read waits."""

    def __init__(self, token_to_kv_pool, staged):
        object.__setattr__(self, "_pool", token_to_kv_pool)
        object.__setattr__(self, "_staged", staged)
        object.__setattr__(self, "max_seq_len", 7)
        object.__setattr__(self, "num_kv_splits", 2)

    def __getattribute__(self, name):
        if not name.startswith("_"):
            staged = object.__getattribute__(self, "_staged")
            pool = object.__getattribute__(self, "_pool")
            while staged:
                slot, row = staged.pop()
                pool.k_buffer[1][slot] = row
        return object.__getattribute__(self, name)''', '''
num_kv_splits = self.forward_metadata.num_kv_splits''', init="self.forward_metadata = helper", cast=".half()",
    ret="num_kv_splits", setup=f"helper = AsyncDecodeMetadata(pool, [(3, {ROW})])")

std("setattr_out_cache_loc_stores_pending", FAM_DUNDER,
    "assigning forward_batch.out_cache_loc runs the batch's __setattr__, which stores the K pending for the old "
    "location before moving on", '''
class OverlapForwardBatch(ForwardBatch):
    """Overlap scheduling: the previous step's K is stored lazily, when the next location is assigned."""

    def __setattr__(self, name, value):
        if name == "out_cache_loc" and getattr(self, "pending_k", None) is not None:
            self.token_to_kv_pool.k_buffer[1][self.out_cache_loc] = self.pending_k.to(self.token_to_kv_pool.dtype)
            object.__setattr__(self, "pending_k", None)
        object.__setattr__(self, name, value)''', '''
forward_batch.out_cache_loc = self.next_out_cache_loc''', init="self.next_out_cache_loc = torch.tensor([9])", gather="k[forward_batch.kv_indices]",
    fb="OverlapForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))",
    setup=f"fb.pending_k = {ROW}\nhelper = None")

std("index_dunder_layer_handle_waits_load", FAM_DUNDER,
    "indexing the per-layer scale list with a layer handle calls its __index__, which waits for the layerwise "
    "load of that layer (landing its pages)", '''
class LayerwiseLoader:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.pending = {1: (3, torch.full((2, 4), 3.0))}

    def wait_layer(self, layer_id):
        if layer_id in self.pending:
            slot, row = self.pending.pop(layer_id)
            self.token_to_kv_pool.k_buffer[layer_id][slot] = row


class LayerHandle:
    """A layer id as handed out by the layerwise loader: using it as an index waits for that layer."""

    def __init__(self, layer_id, loader):
        self.layer_id = layer_id
        self.loader = loader

    def __index__(self):
        self.loader.wait_layer(self.layer_id)
        return self.layer_id''', '''
handle = self.layer_handles[layer.layer_id]
sm_scale = self.sm_scales[handle]''', init="self.layer_handles = helper\nself.sm_scales = [0.5, 0.25]",
    ret="sm_scale", setup="loader = LayerwiseLoader(pool)\nhelper = [LayerHandle(i, loader) for i in range(2)]")

std("int_of_device_scalar_drains_copy_engine", FAM_DUNDER,
    "int() of the batch's seq_lens_sum (a device scalar) runs its __int__, which waits for the copy engine and "
    "so lands the queued KV copies", '''
class CopyEngine:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.queue = [(1, 3, torch.full((2, 4), 3.0))]

    def drain(self):
        while self.queue:
            layer_id, slot, row = self.queue.pop(0)
            self.token_to_kv_pool.k_buffer[layer_id][slot] = row


class DeviceScalar:
    """A 0-d device value; reading it on the host waits for the copy engine first."""

    def __init__(self, value, copy_engine):
        self.value = value
        self.copy_engine = copy_engine

    def __int__(self):
        self.copy_engine.drain()
        return self.value''', '''
max_seq_len = int(forward_batch.seq_lens_sum)''', ret="max_seq_len",
    setup="fb.seq_lens_sum = DeviceScalar(7, CopyEngine(pool))\nhelper = None")

std("new_interned_lease_recycles_slot", FAM_DUNDER,
    "constructing the scratch slot's lease runs SlotLease.__new__, which interns leases per slot and, handing "
    "an existing one out again, recycles (zeroes) the slot", '''
class SlotLease:
    """Leases are interned per slot; asking for a slot's lease again recycles it, resetting the slot's K/V."""

    _live = {}

    def __new__(cls, token_to_kv_pool, slot):
        lease = cls._live.get(slot)
        if lease is None:
            lease = super().__new__(cls)
            cls._live[slot] = lease
        else:
            for layer_id in range(len(token_to_kv_pool.k_buffer)):
                token_to_kv_pool.k_buffer[layer_id][slot].zero_()
                token_to_kv_pool.v_buffer[layer_id][slot].zero_()
        return lease

    def __init__(self, token_to_kv_pool, slot):
        self.slot = slot''', '''
scratch = SlotLease(self.token_to_kv_pool, self.scratch_slot)''', init="self.scratch_slot = 3",
    ret="scratch.slot", setup="SlotLease._live.clear()\nSlotLease(pool, 3)\nhelper = None")

FAM_FACTORY = ("constructing a dataclass runs a field's default_factory, which carves the step's workspace from a "
               "recycled KV slot through a module-global allocator and scrubs it")

std("dataclass_default_factory_scrubs_workspace", FAM_FACTORY,
    "StepWorkspace() runs its pages field's default_factory, which takes a recycled KV slot from the module's "
    "allocator and scrubs it", '''
_WORKSPACE_ALLOCATOR = {}


def _fresh_workspace_pages():
    pool = _WORKSPACE_ALLOCATOR["pool"]
    slot = _WORKSPACE_ALLOCATOR["free"].pop(0)
    pool.k_buffer[1][slot].zero_()
    return [slot]


@dataclasses.dataclass
class StepWorkspace:
    pages: list = dataclasses.field(default_factory=_fresh_workspace_pages)
    num_kv_splits: int = 1''', '''
workspace = StepWorkspace(num_kv_splits=2)''', imports="import dataclasses", ret="workspace.num_kv_splits", cast=".to(dtype=torch.float16)",
    setup='_WORKSPACE_ALLOCATOR.clear()\n_WORKSPACE_ALLOCATOR.update(pool=pool, free=[3, 9])\nhelper = None')

# ================================================================ B. writes hidden in syntax
FAM_SYNTAX = ("the writing call sits inside syntax rather than in a plain statement: a list comprehension's "
              "element, an if condition's walrus, a for loop's else clause, a while loop's condition, a generator "
              "expression under any(), a lambda's default argument (evaluated when the lambda is made), a nested "
              "def's closure called right there")

std("list_comprehension_finishes_append", FAM_SYNTAX,
    "a list comprehension over the batch's requests calls each one's finish_append, which stores its pending K", '''
class DecodeReq:
    def __init__(self, slot, seq_len, pending_k):
        self.slot = slot
        self.seq_len = seq_len
        self.pending_k = pending_k

    def finish_append(self, token_to_kv_pool):
        if self.pending_k is not None:
            token_to_kv_pool.k_buffer[1][self.slot] = self.pending_k
            self.pending_k = None
            self.seq_len += 1
        return self.seq_len''', '''
seq_lens = [req.finish_append(self.token_to_kv_pool) for req in forward_batch.reqs]''', ret="seq_lens",
    setup=f"fb.reqs = [DecodeReq(3, 4, {ROW}), DecodeReq(1, 2, None)]\nhelper = None")

std("walrus_if_next_chunk_lands", FAM_SYNTAX,
    "an if condition's walrus takes the KV receiver's next chunk, and taking it lands the chunk", '''
class KVReceiver:
    """Disaggregated decode: chunks of prefill KV arrive; next_chunk() lands one and returns its metadata."""

    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.chunks = [{"layer": 1, "slots": [3], "k": torch.full((1, 2, 4), 3.0)}]

    def next_chunk(self):
        if not self.chunks:
            return None
        chunk = self.chunks.pop(0)
        self.token_to_kv_pool.k_buffer[chunk["layer"]][chunk["slots"]] = chunk["k"].to(self.token_to_kv_pool.dtype)
        return {"layer": chunk["layer"], "num_slots": len(chunk["slots"])}''', '''
landed = 0
if (chunk := self.kv_receiver.next_chunk()) is not None:
    landed = chunk["num_slots"]''', init="self.kv_receiver = helper", ret="landed", gather="torch.index_select(k, 0, kv_indices)",
    setup="helper = KVReceiver(pool)")

std("for_else_flushes_staging", FAM_SYNTAX,
    "a for loop looks for a finished request; its else clause (no break) flushes the staging buffer into the pool",
    '''
class StagingBuffer:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.rows = [(1, 3, torch.full((2, 4), 3.0))]

    def flush(self):
        for layer_id, slot, row in self.rows:
            self.token_to_kv_pool.k_buffer[layer_id][slot] = row
        self.rows = []''', '''
for finished in forward_batch.finished:
    if finished:
        break
else:
    self.staging.flush()''', init="self.staging = helper", cast=".type(torch.bfloat16)",
    setup="fb.finished = [False, False]\nhelper = StagingBuffer(pool)")

std("while_condition_polls_receiver", FAM_SYNTAX,
    "a while loop's condition polls the KV receiver, and each successful poll lands one chunk", '''
class PollingReceiver:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.inflight = [(1, 3, torch.full((2, 4), 3.0)), (0, 9, torch.full((2, 4), 2.0))]

    def poll(self):
        if not self.inflight:
            return False
        layer_id, slot, row = self.inflight.pop(0)
        self.token_to_kv_pool.k_buffer[layer_id][slot] = row
        return True''', '''
num_landed = 0
while self.kv_receiver.poll():
    num_landed += 1''', init="self.kv_receiver = helper", ret="num_landed",
    setup="helper = PollingReceiver(pool)")

std("any_genexpr_completes_prefetch", FAM_SYNTAX,
    "any() over a generator expression asks each prefetch op try_complete(), which lands the done ones", '''
class PrefetchOp:
    def __init__(self, token_to_kv_pool, slot, row, done):
        self.token_to_kv_pool = token_to_kv_pool
        self.slot = slot
        self.row = row
        self.done = done

    def try_complete(self):
        if self.done and self.row is not None:
            self.token_to_kv_pool.k_buffer[1][self.slot] = self.row
            self.row = None
            return True
        return False''', '''
prefetch_hit = False
if any(op.try_complete() for op in self.prefetch_ops):
    prefetch_hit = True''', init="self.prefetch_ops = helper", ret="prefetch_hit", gather="k[kv_indices, :, :]",
    setup=f"helper = [PrefetchOp(pool, 9, {ROW}, False), PrefetchOp(pool, 3, {ROW}, True)]")

std("lambda_default_arg_reserves_sink_slot", FAM_SYNTAX,
    "making a finish callback whose default argument reserves the request's sink slot: the default is "
    "evaluated when the lambda is made, and reserving zero-fills the slot", '''
class SinkAllocator:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.free = [3, 9]

    def reserve(self, layer_id):
        slot = self.free.pop(0)
        self.token_to_kv_pool.k_buffer[layer_id][slot].fill_(0.0)
        return slot''', '''
on_finish = lambda slot=self.sink_allocator.reserve(layer.layer_id): self.released.append(slot)
self.finish_callbacks.append(on_finish)''', init="self.sink_allocator = helper\nself.finish_callbacks = []\nself.released = []",
    ret="len(self.finish_callbacks)", setup="helper = SinkAllocator(pool)")

std("nested_def_closure_saves_kv", FAM_SYNTAX,
    "a nested def closes over the layer's cache tensor and is called right there to save this step's K", '''
''', '''
cache = forward_batch.token_to_kv_pool.k_buffer[layer.layer_id]

def save_kv(loc, k_new):
    cache[loc] = k_new.to(cache.dtype)

if forward_batch.save_kv_cache:
    save_kv(forward_batch.out_cache_loc, self.k_new)''', init="self.k_new = helper",
    setup=f"fb.save_kv_cache = True\nhelper = {ROW}")

# ================================================================ C. writer callables handed to builtins
FAM_CALLABLE = ("a writer is handed as a callable to a builtin or library function that calls it: map() of a "
                "connector's land consumed by list(), itertools.starmap of the pool's set_kv_buffer consumed by a "
                "zero-length deque, json.dumps(default=) whose encoder materialises a lazy KV handle")

std("list_map_connector_land", FAM_CALLABLE,
    "list(map(self.connector.land, reqs)): the connector's land writes each request's transferred K", '''
class KVConnector:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.received = {0: (3, torch.full((2, 4), 3.0))}

    def land(self, rid):
        if rid not in self.received:
            return False
        slot, row = self.received.pop(rid)
        self.token_to_kv_pool.k_buffer[1][slot] = row
        return True''', '''
landed = list(map(self.connector.land, forward_batch.rids))''', init="self.connector = helper", ret="landed", cast=".double()",
    setup="fb.rids = [0, 1]\nhelper = KVConnector(pool)")

std("starmap_deque_consumes_set_kv_buffer", FAM_CALLABLE,
    "collections.deque(itertools.starmap(pool.set_kv_buffer, pending), maxlen=0) runs the deferred stores", '''
''', '''
collections.deque(itertools.starmap(self.token_to_kv_pool.set_kv_buffer, self.pending_stores), maxlen=0)
self.pending_stores.clear()''', imports="import collections\nimport itertools",
    init="self.pending_stores = helper",
    setup=f"helper = [(1, torch.tensor([3]), {ROW}.unsqueeze(0), torch.zeros(1, 2, 4))]")

std("json_dumps_default_materialises_handle", FAM_CALLABLE,
    "json.dumps of the step trace calls its default= encoder for the lazy KV handle, and encoding materialises "
    "the handle into the pool", '''
class LazyKVHandle:
    def __init__(self, token_to_kv_pool, slot, row):
        self.token_to_kv_pool = token_to_kv_pool
        self.slot = slot
        self.row = row

    def materialize(self):
        if self.row is not None:
            self.token_to_kv_pool.k_buffer[1][self.slot] = self.row
            self.row = None
        return self.slot


def encode_trace_value(obj):
    if isinstance(obj, LazyKVHandle):
        return {"slot": obj.materialize()}
    raise TypeError(type(obj).__name__)''', '''
self.trace.append(json.dumps({"layer": layer.layer_id, "handle": forward_batch.kv_handle},
                             default=encode_trace_value))''', imports="import json", init="self.trace = []", gather="k[kv_indices].reshape(2, -1)",
    ret="self.trace", setup=f"fb.kv_handle = LazyKVHandle(pool, 3, {ROW})\nhelper = None")

# ================================================================ D. operator module, methods by name, custom ops
FAM_BYNAME = ("an in-place write reaches the pool through a function object rather than a spelled store: "
              "operator.setitem chosen from a store table, operator.iadd on the layer, an in-place tensor "
              "method looked up with getattr() by a configured name, an unbound torch.Tensor.copy_ in a "
              "fallback kernel table, a torch.library custom op declared to mutate its cache argument")

std("operator_setitem_from_store_table", FAM_BYNAME,
    "the store function is picked from a table (operator.setitem for eager decode) and called on the layer's "
    "cache", '''
''', '''
store = operator.setitem if forward_batch.forward_mode == "decode" else self.deferred_stores.append
store(forward_batch.token_to_kv_pool.k_buffer[layer.layer_id], forward_batch.out_cache_loc, self.k_new)''',
    imports="import operator", init="self.k_new = helper\nself.deferred_stores = []",
    setup=f"helper = {ROW}.unsqueeze(0).to(pool.dtype)")

std("operator_iadd_smoothing_shift_on_layer", FAM_BYNAME,
    "operator.iadd applies a K-smoothing shift to the layer in place (bf16 pool, .float() cast)", '''
''', '''
if self.k_shift is not None:
    operator.iadd(forward_batch.token_to_kv_pool.k_buffer[layer.layer_id], self.k_shift)
    self.k_shift = None''', imports="import operator", init="self.k_shift = helper",
    cast=".float()", pool=BF16_POOL, setup="helper = torch.full((2, 4), 0.5, dtype=torch.bfloat16)")

std("getattr_configured_scrub_method", FAM_BYNAME,
    "the finished slots are scrubbed with an in-place tensor method looked up by its configured name "
    "(getattr(row, 'fill_'))", '''
class ServerArgs:
    kv_scrub_method = "fill_"
    kv_scrub_args = (0.0,)''', '''
layer_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
for slot in forward_batch.finished_slots:
    getattr(layer_cache[slot], self.server_args.kv_scrub_method)(*self.server_args.kv_scrub_args)''',
    init="self.server_args = ServerArgs()", cast=".to(torch.float32)", setup="fb.finished_slots = [3]\nhelper = None")

std("fallback_kernel_table_unbound_copy", FAM_BYNAME,
    "a fallback kernel table maps 'store_k' to the unbound torch.Tensor.copy_, called on the pool's row", '''
_FALLBACK_KERNELS = {
    "store_k": torch.Tensor.copy_,
    "rms_norm": torch.nn.functional.rms_norm,
}''', '''
loc = int(forward_batch.out_cache_loc[0])
_FALLBACK_KERNELS["store_k"](self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc], self.k_new)''',
    init="self.k_new = helper", setup=f"helper = {ROW}")

std("torch_library_custom_op_mutates_cache", FAM_BYNAME,
    "torch.ops.fb11_kv.store_k_rows, a torch.library custom op declared with mutates_args=('k_cache',), stores "
    "this step's K", '''
def _register_store_op():
    try:
        torch.ops.fb11_kv.store_k_rows
        return
    except (AttributeError, RuntimeError):
        pass

    @torch.library.custom_op("fb11_kv::store_k_rows", mutates_args=("k_cache",))
    def store_k_rows(k_cache: torch.Tensor, loc: torch.Tensor, k_new: torch.Tensor) -> None:
        k_cache[loc] = k_new.to(k_cache.dtype)


_register_store_op()''', '''
torch.ops.fb11_kv.store_k_rows(self.token_to_kv_pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc,
                               self.k_new)''', init="self.k_new = helper", setup=f"helper = {ROW}.unsqueeze(0)")

# ================================================================ E. decorators, class-level helpers, MRO
FAM_CLASS = ("the method or function called is not the one its definition site suggests: a decorator's wrapper "
             "flushes pending KV before the pure body, a classmethod walks a module-global registry of pools and "
             "commits their pending rows, a mixin earlier in the MRO overrides the base's pure plan() (reached "
             "through self and super()), a plugin monkeypatches the backend's method at import")

std("decorator_wrapper_flushes_pending", FAM_CLASS,
    "compute_logit_cap looks pure, but its decorator's wrapper flushes the pending KV writer first", '''
class PendingKVWriter:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.rows = [(1, 3, torch.full((2, 4), 3.0))]

    def flush(self):
        while self.rows:
            layer_id, slot, row = self.rows.pop()
            self.token_to_kv_pool.k_buffer[layer_id][slot] = row


def after_pending_kv(fn):
    """Make sure every KV write queued so far has landed before running fn."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        self.pending_writer.flush()
        return fn(self, *args, **kwargs)

    return wrapper''', '''
logit_cap = self.compute_logit_cap(q)''', imports="import functools", init="self.pending_writer = helper", cast=".to(torch.bfloat16, copy=True)",
    methods='''
@after_pending_kv
def compute_logit_cap(self, q):
    return 30.0 if q.shape[0] > 0 else 0.0''', ret="logit_cap", setup="helper = PendingKVWriter(pool)")

std("classmethod_registry_commits_all", FAM_CLASS,
    "KVTransferRegistry.commit_all() (a classmethod) walks the module-global registry of pools and lands each "
    "one's pending rows", '''
_KV_TRANSFER_REGISTRY = {}


class KVTransferRegistry:
    @classmethod
    def register(cls, name, token_to_kv_pool, pending):
        _KV_TRANSFER_REGISTRY[name] = (token_to_kv_pool, pending)

    @classmethod
    def commit_all(cls):
        for token_to_kv_pool, pending in _KV_TRANSFER_REGISTRY.values():
            while pending:
                layer_id, slot, row = pending.pop()
                token_to_kv_pool.k_buffer[layer_id][slot] = row''', '''
KVTransferRegistry.commit_all()''',
    setup=f'_KV_TRANSFER_REGISTRY.clear()\nKVTransferRegistry.register("decode", pool, [(1, 3, {ROW})])\n'
          'helper = None')

std("mixin_plan_overrides_base_via_mro", FAM_CLASS,
    "self.plan(forward_batch) resolves through the MRO to a deferred-store mixin's plan (which lands the "
    "deferred rows, then calls super().plan), not the base backend's pure plan", '''
class TritonBackendBase:
    def plan(self, forward_batch):
        self.num_kv_splits = 2 if forward_batch.batch_size > 1 else 1


class DeferredStoreMixin:
    def plan(self, forward_batch):
        for layer_id, slot, row in self.deferred_rows:
            self.token_to_kv_pool.k_buffer[layer_id][slot] = row
        self.deferred_rows = []
        super().plan(forward_batch)''', '''
self.plan(forward_batch)''', bases="(DeferredStoreMixin, TritonBackendBase)",
    init="self.deferred_rows = helper\nself.num_kv_splits = 1", ret="self.num_kv_splits",
    setup=f"helper = [(1, 3, {ROW})]")

std("plugin_monkeypatch_replaces_method", FAM_CLASS,
    "update_sliding_window is pure in the class body, but a platform plugin replaced it at import with a "
    "version that re-materialises the window's evicted slot", '''
''', '''
self.update_sliding_window(forward_batch)''', init="self.window_left = -1\nself.evicted = helper",
    methods='''
def update_sliding_window(self, forward_batch):
    self.window_left = max(forward_batch.batch_size - 4, -1)''', ret="self.window_left",
    post='''
# a platform plugin (general_plugins entry point) patches the backend when it is imported
_original_update_sliding_window = DecodeBackend.update_sliding_window


def _patched_update_sliding_window(self, forward_batch):
    for slot, row in self.evicted.items():
        self.token_to_kv_pool.k_buffer[1][slot] = row
    self.evicted = {}
    _original_update_sliding_window(self, forward_batch)


DecodeBackend.update_sliding_window = _patched_update_sliding_window''', setup=f"helper = {{3: {ROW}}}")

FAM_BINDING = ("the name called is bound, at import, to a definition other than the first one in the file: an "
               "ImportError fallback for a kernel package that is absent (the torch-native fallback stores the K), "
               "a debug redefinition under a module flag (a KV sanitizer that poisons released slots)")

std("import_error_fallback_stores_k", FAM_BINDING,
    "fused_qk_norm_and_store comes from a kernel package when installed; it is not, so the torch-native fallback "
    "defined in the except ImportError branch runs, and it stores K", '''
try:
    from fb11_absent_kernels import fused_qk_norm_and_store
except ImportError:
    def fused_qk_norm_and_store(q, k_new, cache, loc, eps=1e-6):
        q = q * torch.rsqrt(q.float().pow(2).mean(-1, keepdim=True) + eps).to(q.dtype)
        cache[loc] = k_new.to(cache.dtype)
        return q''', '''
q = fused_qk_norm_and_store(q, self.k_new, forward_batch.token_to_kv_pool.k_buffer[layer.layer_id],
                            forward_batch.out_cache_loc)''', init="self.k_new = helper", ret="q",
    setup=f"helper = {ROW}.unsqueeze(0)")

std("debug_flag_redefines_release_hook", FAM_BINDING,
    "on_slots_released is a counter in its first definition; under the module's KV-sanitizer flag it is "
    "redefined to also poison the released slots, and that definition is the one called", '''
KV_SANITIZER = True


def on_slots_released(backend, slots):
    backend.num_released += len(slots)


if KV_SANITIZER:
    def on_slots_released(backend, slots):
        backend.num_released += len(slots)
        for layer_cache in backend.token_to_kv_pool.k_buffer:
            layer_cache[slots] = float("nan")''', '''
on_slots_released(self, forward_batch.released_slots)''', init="self.num_released = 0",
    ret="self.num_released", setup="fb.released_slots = [3]\nhelper = None")

# ================================================================ F. the cast's dtype rebound
FAM_DTYPE = ("the cast's dtype is a module global or a class attribute that code between rebinds: a `global` "
             "statement in an fp16-fallback helper, a classmethod setting the class's compute dtype; moved, the "
             "cast reads the new dtype")

std("global_statement_rebinds_compute_dtype", FAM_DTYPE,
    "the cast reads the module global _KV_COMPUTE_DTYPE, which maybe_enable_fp16_fallback() rebinds through "
    "a global statement", '''
_KV_COMPUTE_DTYPE = torch.bfloat16


def maybe_enable_fp16_fallback(head_dim):
    global _KV_COMPUTE_DTYPE
    if head_dim < 8:
        _KV_COMPUTE_DTYPE = torch.float16''', '''
maybe_enable_fp16_fallback(layer.head_dim)''', cast=".to(_KV_COMPUTE_DTYPE)",
    setup="global _KV_COMPUTE_DTYPE\n_KV_COMPUTE_DTYPE = torch.bfloat16\nhelper = None")

std("classmethod_sets_class_compute_dtype", FAM_DTYPE,
    "the cast reads type(self).compute_dtype, which the classmethod enable_fp32_accumulation() sets on the class",
    '''
''', '''
if forward_batch.batch_size < self.min_bs_for_bf16:
    type(self).enable_fp32_accumulation()''', cast=".to(type(self).compute_dtype)",
    init="self.min_bs_for_bf16 = 4", methods='''
compute_dtype = torch.bfloat16

@classmethod
def enable_fp32_accumulation(cls):
    cls.compute_dtype = torch.float32''')

# ================================================================ G. process-level callbacks, exceptions, context
FAM_GC = ("gc.collect() between the cast and the gather runs the callbacks in gc.callbacks; the memory saver "
          "registered one that restores released KV pages once the collector has run")

std("gc_collect_runs_memory_saver_callback", FAM_GC,
    "gc.collect() after releasing finished requests runs the memory saver's gc callback, which restores the "
    "backed-up page", '''
class MemorySaver:
    """Restores paused KV pages after a full collection freed their host side (armed by the owning thread)."""

    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.backup = {3: torch.full((2, 4), 3.0)}
        self.armed_thread = threading.get_ident()

    def on_gc(self, phase, info):
        if phase == "stop" and info.get("generation") == 2 and self.armed_thread == threading.get_ident():
            self.armed_thread = None
            for slot, row in self.backup.items():
                self.token_to_kv_pool.k_buffer[1][slot] = row''', '''
if forward_batch.num_finished:
    gc.collect()''', imports="import gc\nimport threading",
    setup="fb.num_finished = 1\nhelper = MemorySaver(pool)", call='''
# the scheduler runs steps with automatic collection off and collects explicitly after releasing requests
gc_was_enabled = gc.isenabled()
gc.disable()
gc.callbacks.append(helper.on_gc)
try:
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
finally:
    gc.callbacks.remove(helper.on_gc)
    helper.armed_thread = None
    if gc_was_enabled:
        gc.enable()''')

FAM_EXC = ("an exception raised and handled between the cast and the gather leaves a write behind: the handler "
           "calls the exception object's repair(), which restores the stale row; contextlib.suppress swallows a "
           "transfer abort raised after the first chunk already landed")

std("except_handler_calls_error_repair", FAM_EXC,
    "the KV validator raises StaleKVError; the handler calls err.repair(), which restores the stale slot from "
    "the host copy", '''
class StaleKVError(RuntimeError):
    def __init__(self, token_to_kv_pool, slot, host_row):
        super().__init__(f"slot {slot} is stale")
        self.token_to_kv_pool = token_to_kv_pool
        self.slot = slot
        self.host_row = host_row

    def repair(self):
        self.token_to_kv_pool.k_buffer[1][self.slot] = self.host_row


class KVValidator:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.stale = {3: torch.full((2, 4), 3.0)}

    def check(self, slots):
        for slot in slots:
            if slot in self.stale:
                raise StaleKVError(self.token_to_kv_pool, slot, self.stale.pop(slot))''', '''
repaired = 0
try:
    self.validator.check(kv_indices.tolist())
except StaleKVError as err:
    err.repair()
    repaired = 1''', init="self.validator = helper", ret="repaired", gather="k.index_select(0, kv_indices)", setup="helper = KVValidator(pool)")

std("suppress_abort_after_partial_land", FAM_EXC,
    "with contextlib.suppress(TransferAborted): land_all() lands the first chunk, then raises for an aborted "
    "one; the landed chunk stays", '''
class TransferAborted(Exception):
    pass


class ChunkReceiver:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.chunks = [(3, torch.full((2, 4), 3.0), False), (9, torch.full((2, 4), 2.0), True)]

    def land_all(self):
        for slot, row, aborted in self.chunks:
            if aborted:
                raise TransferAborted(f"chunk for slot {slot} aborted")
            self.token_to_kv_pool.k_buffer[1][slot] = row''', '''
with contextlib.suppress(TransferAborted):
    self.receiver.land_all()''', imports="import contextlib", init="self.receiver = helper", cast=".to(torch.float16, non_blocking=False)",
    setup="helper = ChunkReceiver(pool)")

FAM_CTX = ("context-manager machinery other than a committing __exit__ (round 7): a callback registered on a "
           "contextlib.ExitStack runs the store queue's commit when the stack closes; a transfer guard's "
           "__enter__ waits for (and lands) the layer")

std("exitstack_callback_commits_store_queue", FAM_CTX,
    "stack.callback(self.store_queue.commit, layer_id) inside a with ExitStack(): the commit runs when the with "
    "block ends, before the gather", '''
class StoreQueue:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.queued = {1: [(3, torch.full((2, 4), 3.0))]}

    def commit(self, layer_id):
        for slot, row in self.queued.pop(layer_id, []):
            self.token_to_kv_pool.k_buffer[layer_id][slot] = row''', '''
with contextlib.ExitStack() as stack:
    stack.callback(self.store_queue.commit, layer.layer_id)
    scores = (q.float() * layer.head_dim ** -0.5).sum(-1)''', imports="import contextlib",
    init="self.store_queue = helper", ret="scores", setup="helper = StoreQueue(pool)")

std("context_manager_enter_waits_layer", FAM_CTX,
    "with LayerTransferGuard(receiver, layer_id): the guard's __enter__ waits for the layer's transfer, which "
    "lands its pages", '''
class LayerReceiver:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.pending = {1: [(3, torch.full((2, 4), 3.0))]}

    def wait_layer(self, layer_id):
        for slot, row in self.pending.pop(layer_id, []):
            self.token_to_kv_pool.k_buffer[layer_id][slot] = row


class LayerTransferGuard:
    def __init__(self, receiver, layer_id):
        self.receiver = receiver
        self.layer_id = layer_id

    def __enter__(self):
        self.receiver.wait_layer(self.layer_id)
        return self

    def __exit__(self, exc_type, exc, tb):
        return False''', '''
with LayerTransferGuard(self.receiver, layer.layer_id):
    sm_scale = layer.head_dim ** -0.5''', init="self.receiver = helper", ret="sm_scale",
    setup="helper = LayerReceiver(pool)")
