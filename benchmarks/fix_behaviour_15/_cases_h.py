# Hazard case bodies for make_cases.py (round 15): (name, family, doc, code). Each code block follows the
# shared header (toy FP8 pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch); the shape of the
# code is _template.py's (round 14's template, unchanged). Like rounds 7-14 this round is realistic engine
# code, through yet other paths between the cast and the gather: operator dunders and builtins not used before
# (__truediv__, __floordiv__, __xor__, __abs__, __gt__ under max(), __ne__, __ceil__ under math.ceil,
# __sizeof__ under sys.getsizeof), protocol fallbacks (truthiness through __len__, `in` through __iter__),
# class and typing machinery (a runtime_checkable Protocol's isinstance reading a property, a metaclass
# __getattr__, a match value pattern's __eq__), library paths (itertools.product draining a generator
# eagerly, threading.Condition.wait_for's first predicate call, a registered pytree flatten function,
# torch's global buffer-registration hook, a __torch_function__ tensor subclass, bisect.insort's __lt__,
# pickle.loads running __setstate__, dataclasses.replace running __post_init__, a lazy-mode mark_step),
# aliases that look like copies ([:] of a tensor, iterating a tensor's rows, chunk() head shards,
# share_memory_(), a second torch.from_file mapping of the same segment), the cast's dtype read from state
# changed through other paths (a MappingProxyType view, an nn.Module dtype property after .to(), a precision
# stack handed to a helper, a flag tensor written with out=), and a gather with no FP8 kernel (moved, raises).
import importlib.util
import os

_SPEC = importlib.util.spec_from_file_location(
    "fb15_template", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_template.py"))
T = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(T)
ROW, ROW1, BF16_POOL = T.ROW, T.ROW1, T.BF16_POOL

CASES = []


def std(name, family, doc, prelude, between, **kw):
    CASES.append((name, "hazard", family, doc, T.render(len(CASES), prelude, between, **kw)))


# ---------------------------------------------------------------- operator dunders and builtins
F_OP = ("an operator or builtin not used in rounds 7-14 runs a dunder of an engine object that writes the pool")

std("truediv_token_usage_applies_deferred_frees", F_OP,
    "token_usage = used_slots / pool.size: the scheduler's UsedSlots.__truediv__ applies the finished "
    "requests' deferred frees first (the sanitizer zero-fills freed slots)",
    '''
class UsedSlots:
    """Scheduler metric: KV slots in use. Frees of finished requests are deferred to the next read of the
    count; a debug sanitizer zero-fills freed slots so that a stale read shows up."""

    def __init__(self, pool, used):
        self.pool = pool
        self.used = used
        self.pending_free = []

    def free(self, slots):
        self.pending_free.append(list(slots))

    def _apply_frees(self):
        for slots in self.pending_free:
            for layer_k in self.pool.k_buffer:
                for s in slots:
                    layer_k[s].zero_()
            self.used -= len(slots)
        self.pending_free.clear()

    def __truediv__(self, capacity):
        self._apply_frees()
        return self.used / capacity
''',
    "self.last_token_usage = self.used_slots / self.token_to_kv_pool.size",
    init="self.used_slots = helper\nself.last_token_usage = 0.0", ret="self.last_token_usage",
    setup="helper = UsedSlots(pool, 9)\nhelper.free([3])")

std("floordiv_prefill_cursor_waits_chunk_store", F_OP,
    "prefilled_pages = prefill_cursor // page_size: a chunked-prefill cursor's __floordiv__ waits for the "
    "in-flight chunk's KV store (writing slot 3) before it divides",
    '''
class PrefillCursor:
    """Chunked prefill: how far the request being prefilled has got. The chunk's KV store runs on a side
    stream; arithmetic on the cursor waits for it, since the cursor only advances once the chunk landed."""

    def __init__(self, pool, pos):
        self.pool = pool
        self.pos = pos
        self.inflight = None

    def launch_store(self, layer_id, locs, k_rows):
        self.inflight = (layer_id, list(locs), k_rows)

    def _wait(self):
        if self.inflight is not None:
            layer_id, locs, k_rows = self.inflight
            for i, loc in enumerate(locs):
                self.pool.k_buffer[layer_id][loc] = k_rows[i]
            self.pos += len(locs)
            self.inflight = None

    def __floordiv__(self, page_size):
        self._wait()
        return self.pos // page_size
''',
    "prefilled_pages = self.prefill_cursor // self.page_size",
    init="self.prefill_cursor = helper\nself.page_size = 4", ret="prefilled_pages",
    setup=f"helper = PrefillCursor(pool, 6)\nhelper.launch_store(1, [3], {ROW1})")

std("xor_resident_page_mask_lands_arrivals", F_OP,
    "missing = resident_pages ^ prefix_pages: HiCache's ResidentPages.__xor__ lands the load-backs that "
    "arrived (writing slot 3) so that the mask is exact",
    '''
class ResidentPages:
    """HiCache: which device pages hold a request's cached prefix. Host-to-device load-backs finish
    asynchronously; set algebra on the mask first lands what has arrived, so that the answer is exact."""

    def __init__(self, pool, pages):
        self.pool = pool
        self.pages = set(pages)
        self.arrived = []

    def on_arrival(self, layer_id, page, k_row):
        self.arrived.append((layer_id, page, k_row))

    def _land(self):
        for layer_id, page, k_row in self.arrived:
            self.pool.k_buffer[layer_id][page] = k_row
            self.pages.add(page)
        self.arrived.clear()

    def __xor__(self, wanted):
        self._land()
        return self.pages ^ set(wanted)
''',
    "missing = sorted(self.resident ^ self.prefix_pages)",
    init="self.resident = helper\nself.prefix_pages = {1, 2, 3}", ret="missing",
    setup=f"helper = ResidentPages(pool, [1, 2])\nhelper.on_arrival(1, 3, {ROW})")

std("abs_fp8_scale_drift_requantises_layer", F_OP,
    "if abs(k_scale_drift) > tol: a TRT-LLM-style FP8 calibrator's ScaleDrift.__abs__ folds the pending "
    "rescale into the layer in place (halving it) before it reports the drift",
    '''
class ScaleDrift:
    """FP8 KV calibration: the running amax has drifted from the scale the cache was quantised with. Reading
    the drift's magnitude first folds the pending rescale into the layer, so the drift is measured against
    the scale in effect."""

    def __init__(self, pool, layer_id, pending_ratio):
        self.pool = pool
        self.layer_id = layer_id
        self.pending_ratio = pending_ratio
        self.applied_ratio = 1.0

    def __abs__(self):
        if self.pending_ratio != 1.0:
            layer_k = self.pool.k_buffer[self.layer_id]
            layer_k.copy_((layer_k.float() / self.pending_ratio).to(layer_k.dtype))
            self.applied_ratio = self.pending_ratio
            self.pending_ratio = 1.0
        return abs(self.applied_ratio - 1.0)
''',
    """
if abs(self.k_scale_drift) > self.recalib_tol:
    self.num_recalibrations += 1
""",
    init="self.k_scale_drift = helper\nself.recalib_tol = 0.5\nself.num_recalibrations = 0",
    ret="self.num_recalibrations", setup="helper = ScaleDrift(pool, 1, 2.0)")

std("max_draft_branch_gt_commits_accepted", F_OP,
    "best = max(draft_branches): max() runs the tree-speculation DraftBranch.__gt__, which finishes the "
    "branch's verify and commits its accepted draft token's K into slot 3",
    '''
class DraftBranch:
    """Tree speculative decoding: one candidate branch of the draft tree. Comparing branches needs their
    verified log-probs; the verify runs asynchronously, and finishing it commits the accepted draft
    token's K (the target model's KV for that position) into its slot."""

    def __init__(self, pool, name, logp, commit=None):
        self.pool = pool
        self.name = name
        self.logp = logp
        self.commit = commit

    def _finish_verify(self):
        if self.commit is not None:
            layer_id, loc, k_row = self.commit
            self.pool.k_buffer[layer_id][loc] = k_row
            self.commit = None

    def __gt__(self, other):
        self._finish_verify()
        other._finish_verify()
        return self.logp > other.logp
''',
    "best = max(self.draft_branches)",
    init="self.draft_branches = helper", ret="best.name",
    setup=f"helper = [DraftBranch(pool, 'a', -1.5), DraftBranch(pool, 'b', -0.5, (1, 3, {ROW}))]")

std("ne_kvpoll_status_polls_and_lands", F_OP,
    "if transfer_status != KVPoll.Success: the PD-disaggregation TransferStatus.__ne__ polls the transfer "
    "engine, and the completed transfer is landed into slot 3 on that poll",
    '''
class KVPoll(enum.IntEnum):
    Failed = 0
    Bootstrapping = 1
    WaitingForInput = 2
    Transferring = 3
    Success = 4


class TransferStatus:
    """PD disaggregation, decode side: the status of one request's KV transfer. Comparing it polls the
    transfer engine; a completed transfer is landed into the request's slots on the poll that sees it."""

    def __init__(self, pool, layer_id, loc, k_row):
        self.pool = pool
        self.payload = (layer_id, loc, k_row)
        self.state = KVPoll.Transferring

    def _poll(self):
        if self.state == KVPoll.Transferring:
            layer_id, loc, k_row = self.payload
            self.pool.k_buffer[layer_id][loc] = k_row
            self.state = KVPoll.Success
        return self.state

    def __eq__(self, other):
        return self._poll() == other

    def __ne__(self, other):
        return self._poll() != other
''',
    """
if self.transfer_status != KVPoll.Success:
    self.num_waiting_steps += 1
""",
    init="self.transfer_status = helper\nself.num_waiting_steps = 0", ret="self.num_waiting_steps",
    imports="import enum", setup=f"helper = TransferStatus(pool, 1, 3, {ROW})")

std("math_ceil_eviction_plan_evicts", F_OP,
    "pages_to_free = math.ceil(eviction_plan): the radix cache's lazy EvictionPlan.__ceil__ runs the "
    "eviction it describes (the sanitizer zero-fills the evicted slot 3) and returns the page count",
    '''
class EvictionPlan:
    """Radix cache: how many pages must be evicted before the next batch fits, as a fraction of a page
    budget. It is resolved lazily: rounding it up to a page count executes the eviction (least recently
    used leaves first) and a debug sanitizer zero-fills the evicted slots."""

    def __init__(self, pool, need_tokens, page_size, lru_leaves):
        self.pool = pool
        self.need = need_tokens / page_size
        self.page_size = page_size
        self.lru_leaves = list(lru_leaves)
        self.evicted = []

    def __ceil__(self):
        n = -(-self.need // 1)
        n = int(n)
        for slot in self.lru_leaves[:n]:
            for layer_k in self.pool.k_buffer:
                layer_k[slot].zero_()
            self.evicted.append(slot)
        return n
''',
    "pages_to_free = math.ceil(self.eviction_plan)",
    init="self.eviction_plan = helper", ret="pages_to_free", imports="import math",
    setup="helper = EvictionPlan(pool, 1, 4, [3, 9])")

std("getsizeof_host_staging_compacts", F_OP,
    "host_staging_bytes = sys.getsizeof(staging): a HiCache host staging buffer's __sizeof__ compacts first, "
    "copying the chunks whose device slots are ready into the pool (slot 3)",
    '''
class HostStagingBuffer:
    """HiCache load-back staging: chunks from the host tier wait here until their device slots are ready.
    Its memory report first compacts: ready chunks are copied into the pool and dropped from staging, so
    that the reported size is what staging really holds."""

    def __init__(self, pool):
        self.pool = pool
        self.chunks = []

    def stage(self, layer_id, loc, k_row, ready):
        self.chunks.append((layer_id, loc, k_row, ready))

    def _compact(self):
        keep = []
        for layer_id, loc, k_row, ready in self.chunks:
            if ready:
                self.pool.k_buffer[layer_id][loc] = k_row
            else:
                keep.append((layer_id, loc, k_row, ready))
        self.chunks = keep

    def __sizeof__(self):
        self._compact()
        return object.__sizeof__(self) + sum(c[2].numel() * c[2].element_size() for c in self.chunks)
''',
    "self.metrics['host_staging_bytes'] = sys.getsizeof(self.staging) > 0",
    init="self.staging = helper\nself.metrics = {}", ret="self.metrics", imports="import sys",
    setup=f"helper = HostStagingBuffer(pool)\nhelper.stage(1, 3, {ROW}, True)\nhelper.stage(1, 5, {ROW}, False)")

# ---------------------------------------------------------------- protocol fallbacks
F_FALLBACK = ("a protocol fallback not used in rounds 7-14: the operator's own dunder is absent and Python "
              "falls back to another one of the engine object, which writes the pool")

std("truthiness_len_fallback_polls_inflight", F_FALLBACK,
    "if inflight_transfers: the Mooncake-style InflightTransfers has no __bool__, so truthiness calls "
    "__len__, which polls the engine and lands the completed transfer into slot 3",
    '''
class InflightTransfers:
    """Mooncake-style transfer engine: this step's transfers in flight. Its size polls the engine first;
    completed transfers are landed into their slots and dropped from the set."""

    def __init__(self, pool):
        self.pool = pool
        self.items = []

    def submit(self, layer_id, loc, k_row, done):
        self.items.append((layer_id, loc, k_row, done))

    def _poll(self):
        still = []
        for layer_id, loc, k_row, done in self.items:
            if done:
                self.pool.k_buffer[layer_id][loc] = k_row
            else:
                still.append((layer_id, loc, k_row, done))
        self.items = still

    def __len__(self):
        self._poll()
        return len(self.items)
''',
    """
if self.inflight_transfers:
    self.num_overlapped_steps += 1
""",
    init="self.inflight_transfers = helper\nself.num_overlapped_steps = 0", ret="self.num_overlapped_steps",
    setup=f"helper = InflightTransfers(pool)\nhelper.submit(1, 3, {ROW}, True)\nhelper.submit(1, 6, {ROW}, False)")

std("in_iter_fallback_drains_finished", F_FALLBACK,
    "if rid in finished_reqs: FinishedRequests has no __contains__, so `in` iterates it; its __iter__ drains "
    "the completion queue, freeing (and zero-filling) each finished request's slots",
    '''
class FinishedRequests:
    """The detokenizer's stream of finished request ids. Iterating drains the completion queue; as each
    finished request is drained the allocator frees its slots and the sanitizer zero-fills them."""

    def __init__(self, pool):
        self.pool = pool
        self.queue = []
        self.drained = []

    def complete(self, rid, slots):
        self.queue.append((rid, list(slots)))

    def __iter__(self):
        while self.queue:
            rid, slots = self.queue.pop(0)
            for layer_k in self.pool.k_buffer:
                for s in slots:
                    layer_k[s].zero_()
            self.drained.append(rid)
        return iter(list(self.drained))
''',
    """
if self.current_rid in self.finished_reqs:
    self.num_late_finishes += 1
""",
    init="self.finished_reqs = helper\nself.current_rid = 'req-7'\nself.num_late_finishes = 0",
    ret="self.num_late_finishes", setup="helper = FinishedRequests(pool)\nhelper.complete('req-2', [3])")

# ---------------------------------------------------------------- class, typing and match machinery
F_CLASS = ("class, typing or match machinery not used in rounds 7-14 runs engine code that writes the pool")

std("runtime_checkable_protocol_reads_connector_property", F_CLASS,
    "isinstance(connector, SupportsLayerwiseLoad) against a typing.runtime_checkable Protocol with a data "
    "member: the check reads the LMCache-style connector's num_layers_loaded property, which lands the "
    "retrieved layer (slot 3)",
    '''
@typing.runtime_checkable
class SupportsLayerwiseLoad(typing.Protocol):
    num_layers_loaded: int

    def wait_for_layer_load(self, layer_id): ...


class LMCacheLayerwiseConnector:
    """LMCache-style layer-wise retrieve: layers arrive one by one. num_layers_loaded polls the retrieve
    and lands every layer whose transfer finished."""

    def __init__(self, pool):
        self.pool = pool
        self.arrived = []
        self._loaded = 0

    def on_layer(self, layer_id, loc, k_row):
        self.arrived.append((layer_id, loc, k_row))

    @property
    def num_layers_loaded(self):
        for layer_id, loc, k_row in self.arrived:
            self.pool.k_buffer[layer_id][loc] = k_row
            self._loaded += 1
        self.arrived.clear()
        return self._loaded

    def wait_for_layer_load(self, layer_id):
        return self.num_layers_loaded > layer_id
''',
    "self.layerwise = isinstance(self.connector, SupportsLayerwiseLoad)",
    init="self.connector = helper\nself.layerwise = None", ret="self.layerwise", imports="import typing",
    setup=f"helper = LMCacheLayerwiseConnector(pool)\nhelper.on_layer(1, 3, {ROW})")

std("metaclass_getattr_kernel_registry_warms_padding", F_CLASS,
    "kernel = DecodeKernels.paged_decode: an aiter-style kernel registry's metaclass __getattr__ builds the "
    "kernel on first access and warms it up on the CUDA-graph padding slot (zero-filling slot 3)",
    '''
class _KernelRegistryMeta(type):
    """aiter / sgl-kernel style registry: a kernel is built on the first access of its class attribute,
    then warmed up once on the pool's padding slot (the slot CUDA-graph padding writes), and cached."""

    def __getattr__(cls, name):
        if name.startswith("_") or name not in cls._builders:
            raise AttributeError(name)
        kernel = cls._builders[name]()
        for layer_k in cls._pool.k_buffer:
            layer_k[cls._padding_slot].zero_()
        setattr(cls, name, kernel)
        return kernel


def _build_paged_decode():
    def paged_decode(q, k):
        return q.float().sum() + k.float().sum()
    return paged_decode


class DecodeKernels(metaclass=_KernelRegistryMeta):
    _builders = {"paged_decode": _build_paged_decode}
    _pool = None
    _padding_slot = 3
''',
    "self.kernel_name = DecodeKernels.paged_decode.__name__",
    init="self.kernel_name = None", ret="self.kernel_name",
    setup="""
if "paged_decode" in vars(DecodeKernels):
    delattr(DecodeKernels, "paged_decode")
DecodeKernels._pool = pool
helper = None
""")

std("match_value_pattern_eq_finishes_draft", F_CLASS,
    "match spec_phase: case SpecPhase.VERIFY: a value pattern compares subject == value, running the EAGLE "
    "worker's PendingPhase.__eq__, which finishes the draft (writing the last draft token's K into slot 3)",
    '''
class SpecPhase(enum.Enum):
    DRAFT = "draft"
    VERIFY = "verify"
    EXTEND = "extend"


class PendingPhase:
    """EAGLE worker: this step's phase is known only once the draft has finished (it may exit early into a
    plain extend). Comparing the phase finishes the draft, which stores the last draft token's K."""

    def __init__(self, pool, layer_id, loc, k_row):
        self.pool = pool
        self.pending = (layer_id, loc, k_row)
        self.phase = None

    def _finish_draft(self):
        if self.phase is None:
            layer_id, loc, k_row = self.pending
            self.pool.k_buffer[layer_id][loc] = k_row
            self.phase = SpecPhase.VERIFY
        return self.phase

    def __eq__(self, other):
        return self._finish_draft() == other
''',
    """
match self.spec_phase:
    case SpecPhase.VERIFY:
        self.num_verify_steps += 1
    case _:
        pass
""",
    init="self.spec_phase = helper\nself.num_verify_steps = 0", ret="self.num_verify_steps",
    imports="import enum", setup=f"helper = PendingPhase(pool, 1, 3, {ROW})")

# ---------------------------------------------------------------- library paths
F_LIB = ("a library function, hook or registry not used in rounds 7-14 runs engine code that writes the pool")

std("itertools_product_drains_ready_layers_eagerly", F_LIB,
    "work = itertools.product(loader.iter_ready_layers(), heads), consumed only after the gather: product() "
    "drains the generator at once, and the generator lands each ready layer (slot 3) as it yields it",
    '''
class LayerwiseLoader:
    """Layer-wise KV load-back: iter_ready_layers yields the layers whose host-to-device copy finished,
    landing each layer's rows just before it yields the layer id."""

    def __init__(self, pool):
        self.pool = pool
        self.done = []

    def finished(self, layer_id, loc, k_row):
        self.done.append((layer_id, loc, k_row))

    def iter_ready_layers(self):
        for layer_id, loc, k_row in self.done:
            self.pool.k_buffer[layer_id][loc] = k_row
            yield layer_id
        self.done.clear()
''',
    "self.pending_work = itertools.product(self.loader.iter_ready_layers(), range(layer.tp_k_head_num))",
    init="self.loader = helper\nself.pending_work = None", ret="list(self.pending_work)",
    imports="import itertools", setup=f"helper = LayerwiseLoader(pool)\nhelper.finished(1, 3, {ROW})")

std("condition_wait_for_predicate_lands_layer", F_LIB,
    "with cv: cv.wait_for(lambda: loader.try_land(layer_id), timeout): threading.Condition.wait_for calls "
    "the predicate once before waiting, and try_land writes the layer's arrived rows (slot 3)",
    '''
class LayerLoadSync:
    """Layer-wise load synchronisation: the forward pass waits on a condition variable until the layer it
    needs is resident. try_land lands the layer's rows if its copy finished and says whether it is ready."""

    def __init__(self, pool):
        self.pool = pool
        self.cv = threading.Condition()
        self.arrived = {}
        self.resident = set()

    def arrive(self, layer_id, loc, k_row):
        self.arrived[layer_id] = (loc, k_row)

    def try_land(self, layer_id):
        if layer_id in self.arrived:
            loc, k_row = self.arrived.pop(layer_id)
            self.pool.k_buffer[layer_id][loc] = k_row
            self.resident.add(layer_id)
        return layer_id in self.resident
''',
    """
with self.load_sync.cv:
    self.load_sync.cv.wait_for(lambda: self.load_sync.try_land(layer.layer_id), timeout=1.0)
""",
    init="self.load_sync = helper", imports="import threading",
    setup=f"helper = LayerLoadSync(pool)\nhelper.arrive(1, 3, {ROW})")

std("pytree_flatten_registered_handle_materialises", F_LIB,
    "torch.utils._pytree.tree_flatten(step_outputs): the flatten function registered for the lazy "
    "OffloadedKVHandle materialises it (writing its rows back into slot 3) to hand out tensor leaves",
    '''
class OffloadedKVHandle:
    """A finished chunk's KV offloaded to host, restored on demand. Its pytree flatten function
    materialises it first (writes the rows back into their device slots) so that leaves are device data."""

    def __init__(self, pool, layer_id, loc, k_row):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.k_row = k_row
        self.resident = False

    def materialize(self):
        if not self.resident:
            self.pool.k_buffer[self.layer_id][self.loc] = self.k_row
            self.resident = True
        return self.pool.k_buffer[self.layer_id][self.loc]


def _flatten_handle(h):
    return [h.materialize()], (h.layer_id, h.loc)


def _unflatten_handle(leaves, ctx):
    return {"layer_id": ctx[0], "loc": ctx[1], "rows": leaves[0]}
''',
    "num_leaves = len(pytree.tree_flatten(self.step_outputs)[0])",
    init="self.step_outputs = {'logits': torch.zeros(2), 'kv': helper}", ret="num_leaves",
    imports="import torch.utils._pytree as pytree",
    setup=f"""
pytree.register_pytree_node(OffloadedKVHandle, _flatten_handle, _unflatten_handle)
helper = OffloadedKVHandle(pool, 1, 3, {ROW})
""",
    finally_="pytree._deregister_pytree_node(OffloadedKVHandle)")

std("buffer_registration_hook_carves_arena_slot", F_LIB,
    "a lazily built rotary module calls register_buffer; torch's global buffer-registration hook, installed "
    "by a memory saver, carves the buffer's backing from the KV arena and zero-fills the carved slot 3",
    '''
class KVArenaMemorySaver:
    """torch_memory_saver style: while installed, every buffer a module registers is accounted against the
    KV arena: a free KV slot is carved for it and zero-filled for its new owner."""

    def __init__(self, pool, free_slots):
        self.pool = pool
        self.free_slots = list(free_slots)
        self.carved = []

    def on_buffer(self, module, name, buffer):
        slot = self.free_slots.pop(0)
        for layer_k in self.pool.k_buffer:
            layer_k[slot].zero_()
        self.carved.append((type(module).__name__, name, slot))
        return None


class RotaryCache(torch.nn.Module):
    def __init__(self, head_dim, max_pos=8):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        t = torch.arange(max_pos).float()
        self.register_buffer("cos_sin", torch.cat([torch.outer(t, inv_freq).cos(), torch.outer(t, inv_freq).sin()], -1))
''',
    """
if self.rope is None:
    self.rope = RotaryCache(layer.head_dim)
""",
    init="self.rope = None", ret="self.helper.carved",
    setup="""
helper = KVArenaMemorySaver(pool, [3, 11])
hook_handle = torch.nn.modules.module.register_module_buffer_registration_hook(helper.on_buffer)
""",
    pre="", finally_="hook_handle.remove()")

std("torch_function_scale_subclass_calibrates_layer", F_LIB,
    "inv_k_scale = torch.reciprocal(layer.k_scale): the K scale is a torchao-style tensor subclass whose "
    "__torch_function__ calibrates on first use, requantising the layer in place",
    '''
class LazyCalibratedScale(torch.Tensor):
    """torchao-style lazily calibrated FP8 scale: on the first op that reads it, the layer's cache is
    requantised in place to the calibrated scale (halved here) and the calibration is marked done."""

    @staticmethod
    def make(value, pool, layer_id):
        t = torch.Tensor._make_subclass(LazyCalibratedScale, torch.tensor(value))
        t._pool = pool
        t._layer_id = layer_id
        t._calibrated = False
        return t

    def _calibrate(self):
        layer_k = self._pool.k_buffer[self._layer_id]
        layer_k.copy_((layer_k.float() * 0.5).to(layer_k.dtype))
        self._calibrated = True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        for a in args:
            if isinstance(a, LazyCalibratedScale) and not a._calibrated:
                a._calibrate()
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **kwargs)
''',
    "inv_k_scale = torch.reciprocal(layer.k_scale)",
    ret="inv_k_scale", layer="RadixLayer(1, k_scale=helper)",
    setup="helper = LazyCalibratedScale.make(2.0, pool, 1)")

std("bisect_insort_req_lt_syncs_deferred_append", F_LIB,
    "bisect.insort(running_by_len, req): bisect compares req < other with the overlap scheduler's Req.__lt__, "
    "which syncs the request's deferred append (storing its K into slot 3)",
    '''
class Req:
    """A running request; the decode batch is kept sorted by computed length (for a length-bucketed
    kernel). With the overlap scheduler the previous step's KV append is deferred, and comparing two
    requests syncs it first, since the length must be final."""

    def __init__(self, pool, rid, num_computed, deferred=None):
        self.pool = pool
        self.rid = rid
        self.num_computed = num_computed
        self.deferred = deferred

    def _sync(self):
        if self.deferred is not None:
            layer_id, loc, k_row = self.deferred
            self.pool.k_buffer[layer_id][loc] = k_row
            self.num_computed += 1
            self.deferred = None

    def __lt__(self, other):
        self._sync()
        other._sync()
        return self.num_computed < other.num_computed
''',
    "bisect.insort(self.running_by_len, self.admitted)",
    init="self.running_by_len = [Req(token_to_kv_pool, 'r0', 2), Req(token_to_kv_pool, 'r1', 9)]\n"
         "self.admitted = helper",
    ret="[r.rid for r in self.running_by_len]", imports="import bisect",
    setup=f"helper = Req(pool, 'r2', 4, (1, 3, {ROW}))")

std("pickle_loads_ticket_setstate_binds_pool", F_LIB,
    "ticket = pickle.loads(sock.recv()): a PD-disaggregation KVTransferTicket's __setstate__ binds it to the "
    "local pool on unpickling, copying the inline first-token K into the pre-allocated slot 3",
    '''
class KVTransferTicket:
    """PD disaggregation: the prefill server pickles one ticket per request (Python objects over ZMQ).
    Unpickling it on the decode server binds it to the local pool: __setstate__ copies the inline K of the
    first generated token into the request's pre-allocated slot."""

    local_pool = None

    def __init__(self, rid, layer_id, loc, k_row):
        self.rid = rid
        self.layer_id = layer_id
        self.loc = loc
        self.k_row = k_row

    def __getstate__(self):
        return {"rid": self.rid, "layer_id": self.layer_id, "loc": self.loc, "k_row": self.k_row.tolist()}

    def __setstate__(self, state):
        self.__dict__.update(state)
        KVTransferTicket.local_pool.k_buffer[self.layer_id][self.loc] = torch.tensor(self.k_row)


class FakeZmqSocket:
    def __init__(self, frames):
        self.frames = list(frames)

    def recv(self):
        return self.frames.pop(0)
''',
    "ticket = pickle.loads(self.helper.recv())",
    ret="ticket.rid", imports="import pickle\nimport sys\nimport types",
    setup=f"""
_mod = types.ModuleType(__name__)
_mod.KVTransferTicket = KVTransferTicket
sys.modules[__name__] = _mod
KVTransferTicket.local_pool = pool
helper = FakeZmqSocket([pickle.dumps(KVTransferTicket('req-5', 1, 3, {ROW}))])
""",
    finally_="sys.modules.pop(__name__, None)")

std("dataclasses_replace_post_init_clears_padding", F_LIB,
    "metadata = dataclasses.replace(metadata, max_seq_len=...): replace() builds a new instance, so the "
    "metadata dataclass's __post_init__ runs again, and it zero-fills the page table's padding slot 3",
    '''
@dataclasses.dataclass
class DecodeMetadata:
    """Paged decode metadata. __post_init__ pads the page table to the CUDA-graph bucket; the padding
    entries point at the reserved padding slot, which is zero-filled so padded lanes read zeros."""

    pool: object
    seq_lens: list
    max_seq_len: int
    padding_slot: int = 3

    def __post_init__(self):
        for layer_k in self.pool.k_buffer:
            layer_k[self.padding_slot].zero_()
        self.page_table = [list(range(n)) + [self.padding_slot] * (self.max_seq_len - n) for n in self.seq_lens]
''',
    """
self.metadata = dataclasses.replace(self.metadata, max_seq_len=max(self.metadata.seq_lens) + 2)
""",
    init="self.metadata = helper", ret="self.metadata.page_table", imports="import dataclasses",
    setup="""
helper = DecodeMetadata(pool, [2, 3], 4)
pool.k_buffer[1][3] = torch.full((2, 4), 3.0)
""")

std("lazy_mode_mark_step_flushes_queued_store", F_LIB,
    "htcore.mark_step(): in Gaudi-style lazy mode the prefill's KV store was only queued; the module-level "
    "mark_step executes the accumulated graph, writing slot 3",
    '''
_LAZY_GRAPH = []


def _mark_step():
    """habana_frameworks.torch.core.mark_step-style: execute the ops accumulated since the last step."""
    for op in _LAZY_GRAPH:
        op()
    _LAZY_GRAPH.clear()


htcore = types.SimpleNamespace(mark_step=_mark_step)


class HPUKVStore:
    """HPU paged KV store in lazy mode: the store is recorded into the lazy graph, not executed."""

    def __init__(self, pool):
        self.pool = pool

    def store(self, layer_id, loc, k_row):
        def op():
            self.pool.k_buffer[layer_id][loc] = k_row
        _LAZY_GRAPH.append(op)
''',
    "htcore.mark_step()",
    imports="import types",
    setup=f"_LAZY_GRAPH.clear()\nhelper = HPUKVStore(pool)\nhelper.store(1, 3, {ROW})")

# ---------------------------------------------------------------- aliases that look like copies
F_ALIAS = ("a store through a tensor that looks like a copy (or a separate buffer) but is the pool's own "
           "memory, spelled in a way not used in rounds 7-14")

std("slice_all_of_layer_is_a_view_store", F_ALIAS,
    "cache_view = pool.get_key_buffer(l)[:] (the list copy idiom; on a tensor it is a view) handed to a "
    "CPU backend's store op, which writes the new token's K through it into slot 3",
    '''
def cpu_store_kv(cache, loc, k_new):
    """CPU backend store op: writes the new token's K into the cache it is handed."""
    cache[loc] = k_new
''',
    """
cache_view = self.token_to_kv_pool.get_key_buffer(layer.layer_id)[:]
cpu_store_kv(cache_view, int(forward_batch.out_cache_loc[0]), self.k_new)
""",
    init=f"self.k_new = {ROW}")

std("tensor_row_iteration_views_scrub_freed", F_ALIAS,
    "for slot, row in enumerate(pool.get_key_buffer(l)): a sanitizer walks the layer's rows and zero-fills "
    "freed ones; iterating a tensor yields views, so slot 3 of the pool is zeroed",
    "",
    """
for slot, row in enumerate(self.token_to_kv_pool.get_key_buffer(layer.layer_id)):
    if slot in self.freed_slots:
        row.zero_()
""",
    init="self.freed_slots = {3, 12}")

std("chunk_kv_head_groups_store_new_token", F_ALIAS,
    "for g, head_cache in enumerate(pool.get_key_buffer(l).chunk(n_groups, dim=1)): a per-KV-head-group "
    "store kernel writes each group's part of the new token's K through chunk() views (slot 3)",
    '''
def store_head_group(head_cache, loc, k_part):
    """NPU-style store op that handles one KV-head group at a time."""
    head_cache[loc] = k_part
''',
    """
for g, head_cache in enumerate(self.token_to_kv_pool.get_key_buffer(layer.layer_id).chunk(layer.tp_k_head_num, dim=1)):
    store_head_group(head_cache, int(forward_batch.out_cache_loc[0]), self.k_new[g:g + 1])
""",
    init=f"self.k_new = {ROW}")

std("share_memory_returns_pool_agent_receives", F_ALIAS,
    "shm_k = pool.get_key_buffer(l).share_memory_() exported to a transfer agent: share_memory_() moves the "
    "storage in place and returns the pool itself, and the agent receives a pending page into it (slot 3)",
    '''
class SharedMemoryTransferAgent:
    """Intra-node PD transfer through shared memory: the decode side exports its cache tensor; attaching
    receives the pages that are already waiting for it."""

    def __init__(self):
        self.waiting = []
        self.attached = None

    def send_later(self, loc, k_row):
        self.waiting.append((loc, k_row))

    def attach(self, shm_tensor):
        self.attached = shm_tensor
        for loc, k_row in self.waiting:
            shm_tensor[loc] = k_row
        self.waiting.clear()
''',
    """
shm_k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).share_memory_()
self.helper.attach(shm_k)
""",
    setup=f"helper = SharedMemoryTransferAgent()\nhelper.send_later(3, {ROW})")

std("from_file_shared_second_mapping_writes", F_ALIAS,
    "the host pool's layer is torch.from_file(segment, shared=True); the transfer agent maps the same segment "
    "with its own torch.from_file(shared=True) and writes the arrived page (slot 3): two tensors, one memory",
    '''
class SegmentTransferAgent:
    """An SSD/shared-memory tier agent: it maps the pool's segment itself (another process in production)
    and writes arrived pages through its own mapping."""

    def __init__(self, path, numel):
        self.view = torch.from_file(path, shared=True, size=numel, dtype=torch.float8_e4m3fn).view(16, 2, 4)

    def land(self, loc, k_row):
        self.view[loc] = k_row


def map_layer_from_segment(pool, layer_id, path):
    n = pool.k_buffer[layer_id].numel()
    mapped = torch.from_file(path, shared=True, size=n, dtype=torch.float8_e4m3fn).view(16, 2, 4)
    mapped.copy_(pool.k_buffer[layer_id])
    pool.k_buffer[layer_id] = mapped
''',
    "self.helper.land(3, self.k_new)",
    init=f"self.k_new = {ROW}", imports="import os\nimport tempfile",
    setup="""
fd, seg_path = tempfile.mkstemp(prefix="kvseg_")
os.close(fd)
map_layer_from_segment(pool, 1, seg_path)
helper = SegmentTransferAgent(seg_path, 16 * 2 * 4)
""",
    result='{"out": out, "k": [t.clone() for t in pool.k_buffer], "v": pool.v_buffer}',
    finally_="os.unlink(seg_path)")

# ---------------------------------------------------------------- the cast's dtype
F_DTYPE = ("the cast's dtype is read from state that code between changes, through a path not used in "
           "rounds 7-14")

std("mapping_proxy_precision_view_updated_by_runner", F_DTYPE,
    ".to(self.precision['kv_compute']) where precision is a read-only types.MappingProxyType view of the "
    "model runner's dict; the runner's pending precision fallback writes the dict behind the view (float32)",
    '''
class ModelRunner:
    """Hands backends a read-only view of its precision table; only the runner changes the table, e.g.
    when the previous step flagged FP8 saturation and the fallback is applied at the next step."""

    def __init__(self):
        self._precision = {"kv_compute": torch.bfloat16, "attn_accum": torch.float32}
        self.precision = types.MappingProxyType(self._precision)
        self.pending_fallback = True

    def apply_pending_fallbacks(self):
        if self.pending_fallback:
            self._precision["kv_compute"] = torch.float32
            self.pending_fallback = False
''',
    "self.helper.apply_pending_fallbacks()",
    init="self.precision = helper.precision", imports="import types",
    cast=".to(self.precision['kv_compute'])", setup="helper = ModelRunner()")

std("module_dtype_property_after_draft_head_to", F_DTYPE,
    ".to(self.draft_head.dtype), an HF-style dtype property (the first parameter's dtype); the EAGLE draft "
    "head is converted to the target's dtype on first use with .to(float16), so the property changes",
    '''
class EagleDraftHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4, dtype=torch.bfloat16)

    @property
    def dtype(self):
        return next(self.parameters()).dtype
''',
    """
if not self.draft_ready:
    self.draft_head.to(self.target_dtype)
    self.draft_ready = True
""",
    init="self.draft_head = helper\nself.target_dtype = torch.float16\nself.draft_ready = False",
    cast=".to(self.draft_head.dtype)", setup="helper = EagleDraftHead()")

std("precision_stack_pushed_by_saturation_guard", F_DTYPE,
    ".to(self.precision_stack[-1]); a saturation guard handed the stack pushes float32 for the rest of the "
    "layer's attention (a mutable list shared with another object)",
    '''
class SaturationGuard:
    """Checks the layer's FP8 amax statistics; a saturated layer computes attention in fp32 for the rest
    of the step, by pushing onto the caller's precision stack."""

    def __init__(self, saturated_layers):
        self.saturated_layers = set(saturated_layers)

    def check(self, layer_id, precision_stack):
        if layer_id in self.saturated_layers:
            precision_stack.append(torch.float32)
''',
    "self.helper.check(layer.layer_id, self.precision_stack)",
    init="self.precision_stack = [torch.bfloat16]", cast=".to(self.precision_stack[-1])",
    setup="helper = SaturationGuard([1])")

std("overflow_flag_out_selects_fp32", F_DTYPE,
    ".to(torch.float32 if self.found_overflow.item() else torch.bfloat16); between, torch.gt(q_amax, limit, "
    "out=self.found_overflow) writes the flag tensor in place (the query saturates the FP8 path)",
    "",
    "torch.gt(q.float().abs().amax(), self.q_fp8_limit, out=self.found_overflow)",
    init="self.found_overflow = torch.zeros((), dtype=torch.bool)\nself.q_fp8_limit = 1.0",
    cast=".to(torch.float32 if self.found_overflow.item() else torch.bfloat16)")

# ---------------------------------------------------------------- a gather that raises on the pool's dtype
std("take_along_dim_has_no_fp8_kernel", "the gather op has no kernel for the pool's FP8 dtype on this "
    "backend (CPU): moved before the cast, the gather raises",
    "a DeepSeek-sparse-attention-style top-k gather torch.take_along_dim(k, topk_idx, dim=0): it has a bf16 "
    "kernel but none for Float8_e4m3fn on CPU, so the moved gather raises",
    "",
    "topk_idx = kv_indices.view(-1, 1, 1)",
    gather="torch.take_along_dim(k, topk_idx, dim=0)")
