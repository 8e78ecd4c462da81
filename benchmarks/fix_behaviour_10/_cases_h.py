# Hazard case bodies for make_cases.py (round 10): (name, family, doc, code). Each code block follows the
# shared header (toy pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch). Like rounds 7-9 this
# round is realistic engine code, through yet other paths between the cast and the gather: asyncio tasks and
# async generators, generator close() and itertools.tee, a ContextVar feeding the cast's dtype, sys.settrace /
# sys.setprofile hooks, a LazyLoader kernel module's import-time warm-up, copy protocols (__deepcopy__,
# __getstate__, __reduce_ex__), class machinery (a metaclass __call__, __class_getitem__), a singledispatch
# overload registered by a plugin, iteration / unpacking / ** / sort keys / membership / hashing / __bool__ /
# __contains__ / defaultdict factories, %r formatting, autograd (a Function's forward, saved_tensors_hooks),
# out= arguments and in-place ops on aliases made by unsqueeze / view / view_as, and a simulated stream's
# wait_event callbacks.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def std(name, family, doc, prelude, between, setup="helper = None", cast=".to(torch.bfloat16)", ret="0",
        pool="MHATokenToKVPool(16, 2, 4, 2)", result='{"out": out, "k": pool.k_buffer}',
        gather="k[forward_batch.kv_indices]", layer="RadixLayer(1)",
        fb="ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))", call=None):
    """The usual shape: an attention backend's forward_decode casts the layer's whole K buffer, runs
    `between` (which reaches the pool through `self.helper` or `forward_batch`, built in run_case by
    `setup`), gathers."""
    call = call or f"out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), {layer}, fb)"
    case(name, family, doc, textwrap.dedent(prelude).strip("\n") + f'''


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
{_ind(between, 8)}
        return {gather}, {ret}


def run_case(torch):
    pool = {pool}
    fb = {fb}
{_ind(setup, 4)}
{_ind(call, 4)}
    return {result}
''')


BF16_POOL = "MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)"
ROW = "torch.full((2, 4), 3.0)"

# ================================================================ A. asyncio, async generators, generators
FAM_ASYNC = ("a coroutine, async generator or generator is driven between the cast and the gather and its body "
             "writes the pool: asyncio.run() of a prefetch that awaits a task landing host pages, an async-for over "
             "a layer stream that commits each chunk, close() of a buffered KV writer whose finally flushes, "
             "itertools.tee over a chunk generator that stores as it yields")

std("asyncio_run_prefetch_task_lands_pages", FAM_ASYNC,
    "asyncio.run(self.helper.await_prefetch(...)) awaits a task that copies the request's host pages into the pool",
    '''
import asyncio


class AsyncPrefetcher:
    """Host-to-device prefetcher of an async engine: the decode step awaits the pages it needs."""

    def __init__(self, pool, host_rows):
        self.pool = pool
        self.host_rows = host_rows

    async def _load(self, slot):
        await asyncio.sleep(0)
        self.pool.k_buffer[1][slot] = self.host_rows[slot].to(self.pool.dtype)
        return slot

    async def await_prefetch(self, slots):
        tasks = [asyncio.ensure_future(self._load(s)) for s in slots]
        return await asyncio.gather(*tasks)''', '''
asyncio.run(self.helper.await_prefetch(forward_batch.out_cache_loc.tolist()))''',
    setup=f"helper = AsyncPrefetcher(pool, {{3: {ROW}}})")

std("async_for_layer_stream_commits_chunks", FAM_ASYNC,
    "an async-for over the KV receiver's layer stream (driven by asyncio.run) commits each received chunk",
    '''
import asyncio


class KVReceiver:
    """Decode-side receiver of a PD-disaggregated engine: chunks arrive as an async stream."""

    def __init__(self, pool, chunks):
        self.pool = pool
        self.chunks = chunks

    async def stream(self):
        for slot, row in self.chunks:
            await asyncio.sleep(0)
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
            yield slot

    async def drain(self):
        got = []
        async for slot in self.stream():
            got.append(slot)
        return got''', '''
received = asyncio.run(self.helper.drain())''', ret="received",
    setup=f"helper = KVReceiver(pool, [(3, {ROW})])")

std("generator_close_finally_flushes_writer", FAM_ASYNC,
    "close() of a buffered KV writer generator runs its finally block, which flushes the buffered row to the pool",
    '''
def buffered_writer(pool, layer_id):
    """Coalesces single-token stores; flushes what it holds when closed."""
    pending = {}
    try:
        while True:
            slot, row = yield
            pending[slot] = row
    finally:
        for slot, row in pending.items():
            pool.k_buffer[layer_id][slot] = row.to(pool.dtype)


class WriterHolder:
    def __init__(self, pool):
        self.writer = buffered_writer(pool, 1)
        next(self.writer)''', '''
self.helper.writer.send((3, torch.full((2, 4), 3.0)))
self.helper.writer.close()''', setup="helper = WriterHolder(pool)")

std("itertools_tee_over_chunk_store", FAM_ASYNC,
    "itertools.tee over the chunked-transfer generator; counting one branch runs the generator, which stores each "
    "chunk before yielding it", '''
import itertools


class ChunkSource:
    def __init__(self, pool, rows):
        self.pool = pool
        self.rows = rows

    def chunks(self):
        for slot, row in self.rows:
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
            yield slot''', '''
counted, kept = itertools.tee(self.helper.chunks())
n_chunks = sum(1 for _ in counted)''', ret="n_chunks",
    setup=f"helper = ChunkSource(pool, [(3, {ROW})])")

# ================================================================ B. contextvars
FAM_CTXVAR = ("the cast's dtype is read from a contextvars.ContextVar that the code between sets (a precision "
              "fallback entering fp32 for the rest of the step): moved, the cast reads the new value")

std("contextvar_compute_dtype_fp32_fallback", FAM_CTXVAR,
    ".to(COMPUTE_DTYPE.get()), then a precision guard sets COMPUTE_DTYPE to float32 for the rest of the step",
    '''
import contextvars

COMPUTE_DTYPE = contextvars.ContextVar("compute_dtype", default=torch.bfloat16)


class PrecisionGuard:
    def maybe_fallback(self, q):
        if q.abs().max() > 0:
            COMPUTE_DTYPE.set(torch.float32)''', '''
self.helper.maybe_fallback(q)''', cast=".to(COMPUTE_DTYPE.get())", setup="helper = PrecisionGuard()",
    call='''
ctx = contextvars.copy_context()
out = ctx.run(DecodeBackend(pool, helper).forward_decode, _rand((2, 2, 4), 5), RadixLayer(1), fb)''')

# ================================================================ C. trace / profile hooks
FAM_TRACE = ("a sys.settrace / sys.setprofile hook installed by a debugging or profiling tool fires on a call "
             "between the cast and the gather and writes the pool (a KV replay debugger, a profiler that restores "
             "a recorded row at a range marker)")

std("settrace_kv_replay_debugger", FAM_TRACE,
    "a KV replay debugger installed with sys.settrace replays the recorded K row when mark_step() is called",
    '''
import sys


class KVReplayDebugger:
    def __init__(self, pool, recorded):
        self.pool = pool
        self.recorded = recorded

    def trace(self, frame, event, arg):
        if event == "call" and frame.f_code.co_name == "mark_step":
            for slot, row in self.recorded.items():
                self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        return None


def mark_step(name):
    return name''', '''
mark_step("decode")''', setup=f"helper = KVReplayDebugger(pool, {{3: {ROW}}})", call='''
old = sys.gettrace()
sys.settrace(helper.trace)
try:
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
finally:
    sys.settrace(old)''')

std("setprofile_range_pop_restores_row", FAM_TRACE,
    "a profiler installed with sys.setprofile restores its recorded row when range_pop() returns",
    '''
import sys


class RangeProfiler:
    def __init__(self, pool, snapshot):
        self.pool = pool
        self.snapshot = snapshot
        self.events = []

    def profile(self, frame, event, arg):
        if event == "return" and frame.f_code.co_name == "range_pop":
            self.events.append(arg)
            for slot, row in self.snapshot.items():
                self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)


def range_push(name):
    return name


def range_pop():
    return "decode"''', '''
range_push("decode")
range_pop()''', setup=f"helper = RangeProfiler(pool, {{3: {ROW}}})", call='''
old = sys.getprofile()
sys.setprofile(helper.profile)
try:
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
finally:
    sys.setprofile(old)''')

# ================================================================ D. lazy import side effects
FAM_IMPORT = ("a lazily imported kernel module (importlib.util.LazyLoader) is first touched between the cast and "
              "the gather; its import-time code warms up by writing a dummy K row into the registered pool")

std("lazy_loader_kernel_module_warmup", FAM_IMPORT,
    "the first attribute access of a LazyLoader kernel module runs its body, whose warm-up writes the pool", '''
import importlib.abc
import importlib.util

KERNEL_SOURCE = """
_pool = REGISTRY["pool"]
_pool.k_buffer[1][3] = torch.full((2, 4), 3.0).to(_pool.dtype)

def decode_kernel(q):
    return q * 1
"""


class _SourceLoader(importlib.abc.Loader):
    def __init__(self, source, env):
        self.source = source
        self.env = env

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__dict__.update(self.env)
        exec(self.source, module.__dict__)


def lazy_kernels(pool):
    loader = importlib.util.LazyLoader(_SourceLoader(KERNEL_SOURCE, {"torch": torch, "REGISTRY": {"pool": pool}}))
    spec = importlib.util.spec_from_loader("fb10_decode_kernels", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module''', '''
q = self.helper.decode_kernel(q)''', setup="helper = lazy_kernels(pool)")

# ================================================================ E. copy / pickle protocols
FAM_COPY = ("copying an engine object runs its copy protocol, which writes the pool: a KV handle's "
            "__deepcopy__ flushes its pending row, a Req's __getstate__ commits when copy.copy snapshots it for "
            "the detokenizer, a spec-info's __reduce_ex__ materialises the draft KV under copy.copy")

std("deepcopy_sampling_info_handle_flushes", FAM_COPY,
    "copy.deepcopy(forward_batch.sampling_info) for the overlap scheduler; a KV handle inside it flushes its "
    "pending row in __deepcopy__", '''
import copy


class KVHandle:
    def __init__(self, pool, slot, pending):
        self.pool = pool
        self.slot = slot
        self.pending = pending

    def __deepcopy__(self, memo):
        if self.pending is not None:
            self.pool.k_buffer[1][self.slot] = self.pending.to(self.pool.dtype)
            self.pending = None
        return KVHandle(self.pool, self.slot, None)


class SamplingInfo:
    def __init__(self, temperatures, handle):
        self.temperatures = temperatures
        self.handle = handle''', '''
info = copy.deepcopy(forward_batch.sampling_info)''', ret="info.temperatures",
    setup=f"fb.sampling_info = SamplingInfo([0.7, 1.0], KVHandle(pool, 3, {ROW}))\nhelper = None")

std("copy_getstate_req_snapshot_commits", FAM_COPY,
    "copy.copy(req) to snapshot the request for the detokenizer output; Req.__getstate__ commits the request's "
    "pending K before returning the state", '''
import copy


class Req:
    def __init__(self, rid, pool, pending):
        self.rid = rid
        self.pool = pool
        self.pending = pending

    def __getstate__(self):
        for slot, row in self.pending.items():
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        self.pending = {}
        return {"rid": self.rid}

    def __setstate__(self, state):
        self.__dict__.update(state)''', '''
snapshot = copy.copy(self.helper)''', ret="snapshot.rid",
    setup=f"helper = Req('r0', pool, {{3: {ROW}}})")

std("copy_reduce_ex_spec_info_materialises", FAM_COPY,
    "copy.copy(forward_batch.spec_info) for the draft worker; __reduce_ex__ materialises the draft tokens' KV "
    "first", '''
import copy


class EagleDraftInput:
    def __init__(self, pool, draft_rows):
        self.pool = pool
        self.draft_rows = draft_rows

    def materialise(self):
        for slot, row in self.draft_rows.items():
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        self.draft_rows = {}

    def __reduce_ex__(self, protocol):
        self.materialise()
        return (EagleDraftInput, (self.pool, {}))''', '''
spec = copy.copy(forward_batch.spec_info)''', setup=f"fb.spec_info = EagleDraftInput(pool, {{3: {ROW}}})\nhelper = None")

# ================================================================ F. class machinery
FAM_CLASS = ("class machinery runs engine code: a metadata class's metaclass __call__ applies the builder's "
             "pending stores before constructing, a workspace's __class_getitem__ initialises a layer's sink row "
             "on first specialisation")

std("metaclass_call_applies_pending_store", FAM_CLASS,
    "DecodeMetadata(forward_batch): the metaclass __call__ applies the pending stores registered with the "
    "builder before building the metadata", '''
class MetadataBuilderMeta(type):
    pending = []

    def __call__(cls, forward_batch):
        pool = forward_batch.token_to_kv_pool
        for slot, row in MetadataBuilderMeta.pending:
            pool.k_buffer[1][slot] = row.to(pool.dtype)
        MetadataBuilderMeta.pending.clear()
        return super().__call__(forward_batch)


class DecodeMetadata(metaclass=MetadataBuilderMeta):
    def __init__(self, forward_batch):
        self.batch_size = forward_batch.batch_size''', '''
meta = DecodeMetadata(forward_batch)''', ret="meta.batch_size",
    setup=f"MetadataBuilderMeta.pending.append((3, {ROW}))\nhelper = None")

std("class_getitem_sink_row_init", FAM_CLASS,
    "SinkWorkspace[layer.layer_id]: __class_getitem__ specialises the workspace and initialises the layer's "
    "attention-sink row in the pool the first time", '''
class SinkWorkspace:
    pool = None
    sink_slot = 3
    _made = {}

    def __class_getitem__(cls, layer_id):
        if layer_id not in cls._made:
            cls.pool.k_buffer[layer_id][cls.sink_slot] = torch.full((2, 4), 3.0).to(cls.pool.dtype)
            cls._made[layer_id] = type(f"SinkWorkspace_{layer_id}", (cls,), {"layer_id": layer_id})
        return cls._made[layer_id]''', '''
ws = SinkWorkspace[layer.layer_id]''', ret="ws.layer_id", setup="SinkWorkspace.pool = pool\nhelper = None")

# ================================================================ G. singledispatch
FAM_DISPATCH = ("a functools.singledispatch function looks pure at its base definition, but a plugin registered an "
                "overload for the concrete spec-info type that writes the draft KV into the pool")

std("singledispatch_plugin_overload_writes_draft_kv", FAM_DISPATCH,
    "prepare_spec(forward_batch.spec_info, pool): the base implementation is pure; an overload registered for "
    "EagleVerifyInput writes the draft tokens' K", '''
import functools


@functools.singledispatch
def prepare_spec(spec_info, pool):
    return None


class EagleVerifyInput:
    def __init__(self, draft_rows):
        self.draft_rows = draft_rows


def _register_eagle_plugin():
    @prepare_spec.register
    def _(spec_info: EagleVerifyInput, pool):
        for slot, row in spec_info.draft_rows.items():
            pool.k_buffer[1][slot] = row.to(pool.dtype)
        return len(spec_info.draft_rows)


_register_eagle_plugin()''', '''
n_draft = prepare_spec(forward_batch.spec_info, self.token_to_kv_pool)''', ret="n_draft",
    setup=f"fb.spec_info = EagleVerifyInput({{3: {ROW}}})\nhelper = None")

# ================================================================ H. iteration, unpacking and container protocols
FAM_ITER = ("an implicit iteration, unpacking or container protocol on an engine object writes the pool: a batch's "
            "__iter__ commits each request's pending K, tuple unpacking of a shape hint, ** unpacking of a plan-args "
            "mapping (keys()), sorting with a key that loads a request's prefix, list membership calling a Req's "
            "__eq__, a dict lookup hashing a lazy prefix key, a defaultdict factory allocating a scrubbed slot, a "
            "radix tree's __contains__ loading back a page, a spec-info's __bool__")

std("batch_iter_commits_pending_kv", FAM_ITER,
    "for req in forward_batch.reqs: the batch's __iter__ commits each request's pending K as it yields it", '''
class ReqBatch:
    def __init__(self, pool, reqs):
        self.pool = pool
        self.reqs = reqs

    def __iter__(self):
        for rid, pending in self.reqs:
            for slot, row in pending.items():
                self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
            yield rid''', '''
rids = []
for rid in forward_batch.reqs:
    rids.append(rid)''', ret="rids", setup=f"fb.reqs = ReqBatch(pool, [('r0', {{3: {ROW}}})])\nhelper = None")

std("tuple_unpack_shape_hint_lands", FAM_ITER,
    "bs, max_len = forward_batch.shape_hint: the hint's __iter__ lands the staged prefix before yielding", '''
class ShapeHint:
    def __init__(self, pool, bs, max_len, staged):
        self.pool = pool
        self.bs = bs
        self.max_len = max_len
        self.staged = staged

    def __iter__(self):
        for slot, row in self.staged.items():
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        self.staged = {}
        return iter((self.bs, self.max_len))''', '''
bs, max_len = forward_batch.shape_hint''', ret="(bs, max_len)",
    setup=f"fb.shape_hint = ShapeHint(pool, 2, 8, {{3: {ROW}}})\nhelper = None")

std("kwargs_unpack_plan_args_keys_lands", FAM_ITER,
    "self.helper.plan(**forward_batch.plan_args): ** calls the plan-args mapping's keys(), which lands the "
    "transferred KV first", '''
from collections.abc import Mapping


class PlanArgs(Mapping):
    def __init__(self, pool, args, staged):
        self.pool = pool
        self.args = args
        self.staged = staged

    def keys(self):
        for slot, row in self.staged.items():
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        self.staged = {}
        return self.args.keys()

    def __getitem__(self, key):
        return self.args[key]

    def __iter__(self):
        return iter(self.args)

    def __len__(self):
        return len(self.args)


class Planner:
    def plan(self, num_qo_heads, page_size):
        return num_qo_heads * page_size''', '''
plan = self.helper.plan(**forward_batch.plan_args)''', ret="plan",
    setup=f"fb.plan_args = PlanArgs(pool, {{'num_qo_heads': 2, 'page_size': 1}}, {{3: {ROW}}})\nhelper = Planner()")

std("sorted_key_loads_prefix", FAM_ITER,
    "sorted(reqs, key=self.helper.cached_len) for longest-prefix-first ordering; the key function loads the "
    "request's host-cached prefix to measure it", '''
class PrefixCache:
    def __init__(self, pool, host):
        self.pool = pool
        self.host = host

    def cached_len(self, req):
        rows = self.host.pop(req, {})
        for slot, row in rows.items():
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        return len(rows)''', '''
order = sorted(["r1", "r0"], key=self.helper.cached_len)''', ret="order",
    setup=f"helper = PrefixCache(pool, {{'r0': {{3: {ROW}}}}})")

std("list_membership_req_eq_syncs", FAM_ITER,
    "if req in self.helper.retracted: list membership calls Req.__eq__, which syncs the request's pending KV "
    "before comparing", '''
class Req:
    def __init__(self, rid, pool, pending):
        self.rid = rid
        self.pool = pool
        self.pending = pending

    def sync(self):
        for slot, row in self.pending.items():
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        self.pending = {}

    def __eq__(self, other):
        self.sync()
        return isinstance(other, Req) and other.rid == self.rid

    __hash__ = None


class Scheduler:
    def __init__(self, retracted):
        self.retracted = retracted''', '''
was_retracted = forward_batch.req in self.helper.retracted''', ret="was_retracted",
    setup=f"r = Req('r0', pool, {{3: {ROW}}})\nfb.req = Req('r1', pool, {{}})\nhelper = Scheduler([r])")

std("dict_lookup_hash_lazy_prefix_key", FAM_ITER,
    "self.helper.plans.get(forward_batch.prefix_key): the key's __hash__ hashes the prefix pages, loading them "
    "into the pool first", '''
class PrefixKey:
    def __init__(self, pool, pages, host_rows):
        self.pool = pool
        self.pages = pages
        self.host_rows = host_rows
        self._hash = None

    def __hash__(self):
        if self._hash is None:
            for slot, row in self.host_rows.items():
                self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
            self._hash = hash(self.pages)
        return self._hash

    def __eq__(self, other):
        return isinstance(other, PrefixKey) and other.pages == self.pages


class PlanStore:
    def __init__(self):
        self.plans = {}''', '''
plan = self.helper.plans.get(forward_batch.prefix_key)''', ret="plan",
    setup=f"fb.prefix_key = PrefixKey(pool, (3,), {{3: {ROW}}})\nhelper = PlanStore()")

std("defaultdict_factory_allocates_scrubbed_slot", FAM_ITER,
    "self.helper.block_tables[rid] on a defaultdict: the factory allocates a slot for a new request and scrubs it "
    "(slot 3, freed earlier this step)", '''
from collections import defaultdict


class BlockManager:
    def __init__(self, pool, free_slots):
        self.pool = pool
        self.free_slots = free_slots
        self.block_tables = defaultdict(self._new_table)

    def _new_table(self):
        slot = self.free_slots.pop(0)
        self.pool.k_buffer[1][slot] = torch.zeros(2, 4).to(self.pool.dtype)
        return [slot]''', '''
table = self.helper.block_tables["new-req"]''', ret="table", setup="helper = BlockManager(pool, [3])")

std("radix_contains_loads_back_page", FAM_ITER,
    "if key in self.helper.tree: the hierarchical radix tree's __contains__ loads an evicted page back before "
    "answering", '''
class HiRadixTree:
    def __init__(self, pool, host_pages):
        self.pool = pool
        self.host_pages = host_pages
        self.device_keys = set()

    def __contains__(self, key):
        if key in self.host_pages:
            slot, row = self.host_pages.pop(key)
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
            self.device_keys.add(key)
        return key in self.device_keys''', '''
hit = (101, 102) in self.helper''', ret="hit",
    setup=f"helper = HiRadixTree(pool, {{(101, 102): (3, {ROW})}})")

std("spec_info_bool_prepares_draft_kv", FAM_ITER,
    "if forward_batch.spec_info: the spec-info's __bool__ prepares the draft tokens' KV before answering", '''
class DraftInput:
    def __init__(self, pool, draft_rows):
        self.pool = pool
        self.draft_rows = draft_rows

    def __bool__(self):
        for slot, row in self.draft_rows.items():
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        self.draft_rows = {}
        return True''', '''
if forward_batch.spec_info:
    topk = 1
else:
    topk = 0''', ret="topk", setup=f"fb.spec_info = DraftInput(pool, {{3: {ROW}}})\nhelper = None")

# ================================================================ I. formatting
FAM_FMT = ("%-formatting a metadata object for the step trace calls its __repr__, which materialises a lazily "
           "transferred row into the pool")

std("percent_repr_metadata_materialises", FAM_FMT,
    "self.trace.append('meta=%r' % (meta,)): the metadata's __repr__ materialises the pending transfer first", '''
class TransferMeta:
    def __init__(self, pool, pending):
        self.pool = pool
        self.pending = pending

    def __repr__(self):
        for slot, row in self.pending.items():
            self.pool.k_buffer[1][slot] = row.to(self.pool.dtype)
        self.pending = {}
        return "TransferMeta(done)"


class Tracer:
    def __init__(self):
        self.trace = []''', '''
self.helper.trace.append("meta=%r" % (forward_batch.transfer_meta,))''', ret="self.helper.trace",
    setup=f"fb.transfer_meta = TransferMeta(pool, {{3: {ROW}}})\nhelper = Tracer()")

# ================================================================ J. autograd
FAM_AUTOGRAD = ("autograd machinery runs a store: a fused rope-and-store torch.autograd.Function whose forward "
                "writes the rotated K into the pool, a saved_tensors_hooks pack hook that offloads saved "
                "activations into free KV slots")

std("autograd_function_fused_rope_store", FAM_AUTOGRAD,
    "q = FusedRopeStore.apply(q, k_new, pool, loc): the Function's forward rotates q and also stores the rotated "
    "new K into the pool", '''
class FusedRopeStore(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k_new, pool, loc):
        pool.k_buffer[1][loc] = (-k_new).to(pool.dtype)
        return q.flip(-1)

    @staticmethod
    def backward(ctx, grad):
        return grad.flip(-1), None, None, None''', '''
q = FusedRopeStore.apply(q, self.helper, self.token_to_kv_pool, forward_batch.out_cache_loc)''',
    ret="q", setup="helper = torch.full((1, 2, 4), 3.0)")

std("saved_tensors_hooks_offload_into_free_slots", FAM_AUTOGRAD,
    "the LoRA-online-training path computes a gated output under saved_tensors_hooks; the pack hook offloads "
    "the saved activation into a free KV slot (slot 3)", '''
class KVSlotOffloader:
    def __init__(self, pool, slot):
        self.pool = pool
        self.slot = slot

    def pack(self, t):
        self.pool.k_buffer[1][self.slot] = t.detach().reshape(2, 4).to(self.pool.dtype)
        return (self.slot, t.shape, t.dtype)

    def unpack(self, packed):
        slot, shape, dtype = packed
        return self.pool.k_buffer[1][slot].reshape(shape)''', '''
x = torch.full((1, 8), 0.5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(self.helper.pack, self.helper.unpack):
    gate = torch.tanh(x)''', ret="gate.detach()", setup="helper = KVSlotOffloader(pool, 3)")

# ================================================================ K. out= and aliases made between
FAM_OUT = ("an op between the cast and the gather writes the pool through an out= argument or through an alias "
           "made right there: k_proj's matmul with out= a pool row, an MLA torch.cat with out= a pool row, "
           "in-place ops on unsqueeze / view / view_as aliases of the layer (mul_, index_put_, scatter_)")

std("matmul_out_direct_kv_write", FAM_OUT,
    "torch.matmul(hidden, w_k, out=...) writes the new token's K projection straight into its pool row", '''
class KProj:
    def __init__(self, w):
        self.w = w''', '''
hidden = torch.ones(1, 8, dtype=torch.bfloat16)
k_row = self.token_to_kv_pool.k_buffer[layer.layer_id][3].view(1, 8)
torch.matmul(hidden, self.helper.w, out=k_row)''', pool=BF16_POOL, cast=".float()",
    setup="helper = KProj(torch.full((8, 8), 0.25, dtype=torch.bfloat16))")

std("mla_cat_out_into_pool_row", FAM_OUT,
    "torch.cat([k_nope, k_pe], dim=-1, out=...) assembles the new MLA K directly in its pool row", '''
class MlaParts:
    def __init__(self, k_nope, k_pe):
        self.k_nope = k_nope
        self.k_pe = k_pe''', '''
torch.cat([self.helper.k_nope, self.helper.k_pe], dim=-1,
          out=self.token_to_kv_pool.k_buffer[layer.layer_id][3])''', pool=BF16_POOL, cast=".float()",
    setup="helper = MlaParts(torch.full((2, 2), 3.0, dtype=torch.bfloat16), torch.full((2, 2), -1.0, dtype=torch.bfloat16))")

std("unsqueeze_alias_window_decay_mul", FAM_OUT,
    "a [1, S, H, D] batch view of the layer made with unsqueeze(0) for a kernel; a StreamingLLM decay then "
    "mul_()s the window rows of that view in place", '''
class WindowDecay:
    def __init__(self, start, stop, factor):
        self.start = start
        self.stop = stop
        self.factor = factor''', '''
batched = self.token_to_kv_pool.k_buffer[layer.layer_id].unsqueeze(0)
batched[:, self.helper.start:self.helper.stop].mul_(self.helper.factor)''', pool=BF16_POOL, cast=".float()",
    setup="helper = WindowDecay(2, 4, 0.5)")

std("index_put_on_token_head_view", FAM_OUT,
    "a [S * H, D] token-head view of the layer; index_put_ writes the new token's heads into it", '''
class HeadStore:
    def __init__(self, rows, values):
        self.rows = rows
        self.values = values''', '''
flat_heads = self.token_to_kv_pool.k_buffer[layer.layer_id].view(-1, layer.head_dim)
flat_heads.index_put_((self.helper.rows,), self.helper.values)''', pool=BF16_POOL, cast=".float()",
    setup="helper = HeadStore(torch.tensor([6, 7]), torch.full((2, 4), 3.0, dtype=torch.bfloat16))")

std("scatter_on_view_as_template", FAM_OUT,
    "the layer viewed with view_as(a [S, H*D] template) and scatter_()ed along dim 0 for the new token", '''
class ScatterStore:
    def __init__(self, template, index, src):
        self.template = template
        self.index = index
        self.src = src''', '''
rows2d = self.token_to_kv_pool.k_buffer[layer.layer_id].view(16, 8).view_as(self.helper.template)
rows2d.scatter_(0, self.helper.index, self.helper.src)''', pool=BF16_POOL, cast=".float()",
    setup="helper = ScatterStore(torch.empty(16, 8), torch.full((1, 8), 3), "
          "torch.full((1, 8), 3.0, dtype=torch.bfloat16))")

# ================================================================ L. simulated stream / event callbacks
FAM_STREAM = ("a simulated torch.cuda.Stream's wait_event runs the callbacks the event collected when recorded "
              "(the host-to-device swap-in copy), so waiting writes the pool")

std("stream_wait_event_runs_swap_in_callbacks", FAM_STREAM,
    "self.helper.compute.wait_event(self.helper.swap_done): the simulated stream runs the swap-in copies queued "
    "on the event", '''
class SimEvent:
    def __init__(self):
        self.callbacks = []

    def record(self, fn):
        self.callbacks.append(fn)


class SimStream:
    def wait_event(self, event):
        while event.callbacks:
            event.callbacks.pop(0)()


class SwapIn:
    def __init__(self, pool, rows):
        self.compute = SimStream()
        self.swap_done = SimEvent()
        for slot, row in rows.items():
            self.swap_done.record(lambda slot=slot, row=row: pool.k_buffer[1].__setitem__(slot, row.to(pool.dtype)))''', '''
self.helper.compute.wait_event(self.helper.swap_done)''', setup=f"helper = SwapIn(pool, {{3: {ROW}}})")
