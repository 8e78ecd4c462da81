# Hazard case bodies for make_cases.py (round 9): (name, family, doc, code). Each code block follows the
# shared header (toy pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch). Like rounds 7 and 8
# this round is realistic engine code, through yet other paths between the cast and the gather: Python
# protocols on engine objects (properties, cached_property, descriptors, __getattr__ proxies, __post_init__,
# __iadd__, __setitem__, __len__, unpickling, coroutine send), logging handlers and __format__ debug dumps,
# object lifetime (weakref.finalize, __del__, weakref callbacks), the pool tensor re-pointed or re-strided in
# place (set_, .data =, swap_tensors, as_strided_), gpt-fast-style caches registered as module buffers,
# pools living in Python buffers (mmap, bytearray: recv_into, readinto, struct.pack_into), torch function
# interception (a TorchFunctionMode, an index subclass), other reads of the cast variable, and engine
# subsystems (encoder cache, grammar jump-forward, lazy warm-up, host-pool write-back, one-time sink init).
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def std(name, family, doc, prelude, between, setup="helper = None", cast=".to(torch.bfloat16)", ret="0",
        pool="MHATokenToKVPool(16, 2, 4, 2)", result='{"out": out, "k": pool.k_buffer}',
        gather="k[forward_batch.kv_indices]", layer="RadixLayer(1)",
        fb="ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))"):
    """The usual shape: an attention backend's forward_decode casts the layer's whole K buffer, runs
    `between` (which reaches the pool through `self.helper`, built in run_case by `setup`), gathers."""
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
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), {layer}, fb)
    return {result}
''')


BF16_POOL = "MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)"

# ================================================================ A. attribute protocols on engine metadata
FAM_ATTR = ("reading or setting an attribute of an engine object runs code that writes the pool: a lazily computed "
            "ForwardBatch property, a functools.cached_property of the paged metadata, a data descriptor's __set__ "
            "on the layer, hasattr() on a lazy __getattr__ proxy, a metadata dataclass's __post_init__")

std("property_seq_lens_sum_lands_prefix", FAM_ATTR,
    "forward_batch.seq_lens_sum is a lazy property of a PD-disaggregated decode batch; computing it first lands "
    "the transferred prefix KV into the pool", '''
class DisaggForwardBatch(ForwardBatch):
    """Decode-side ForwardBatch of a PD-disaggregated engine: the prefix KV received from the prefill
    instance sits in a staging dict until the batch's metadata is first needed."""

    def __init__(self, token_to_kv_pool, kv_indices, out_cache_loc, seq_lens, staged):
        super().__init__(token_to_kv_pool, kv_indices, out_cache_loc)
        self.seq_lens = seq_lens
        self._staged = staged
        self._seq_lens_sum = None

    @property
    def seq_lens_sum(self):
        if self._seq_lens_sum is None:
            for slot, row in self._staged.items():
                self.token_to_kv_pool.k_buffer[1][slot] = row.to(self.token_to_kv_pool.dtype)
            self._staged.clear()
            self._seq_lens_sum = int(self.seq_lens.sum())
        return self._seq_lens_sum
''', '''
num_kv_splits = min(8, max(1, forward_batch.seq_lens_sum // 4))''', ret="num_kv_splits",
    fb="DisaggForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]), torch.tensor([5, 7]), "
       "{3: torch.full((2, 4), 0.5)})")

std("cached_property_paged_metadata_zero_tail", FAM_ATTR,
    "the first read of a functools.cached_property kv_last_page_len zero-fills the unused tail of the last page "
    "(the paged kernel reads whole pages)", '''
import functools


class PagedDecodeState:
    """Per-step state of a paged decode kernel (page_size 4); metadata is computed once per step."""

    def __init__(self, kv_pool, layer_id, page_table, seq_len, page_size=4):
        self.kv_pool, self.layer_id = kv_pool, layer_id
        self.page_table, self.seq_len, self.page_size = page_table, seq_len, page_size

    @functools.cached_property
    def kv_last_page_len(self):
        n = self.seq_len % self.page_size or self.page_size
        last = self.page_table[-1]
        tail = torch.arange(last * self.page_size + n, (last + 1) * self.page_size)
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[tail] = torch.zeros(tail.numel(), 2, 4).to(dst.dtype)
        return n
''', '''
last_page_len = self.helper.kv_last_page_len''', ret="last_page_len", setup='''
helper = PagedDecodeState(pool, 1, [0], 3)''')

std("descriptor_sliding_window_set_releases", FAM_ATTR,
    "layer.sliding_window = w goes through a data descriptor whose __set__ releases (and scrubs) the SWA "
    "pool's out-of-window slots when the window shrinks", '''
class SlidingWindowAttr:
    """Data descriptor for the layer's sliding window: shrinking it releases the slots that fell out of the
    window in the SWA pool, scrubbed so that stale keys never leak into the next request."""

    def __set_name__(self, owner, name):
        self.attr = "_" + name

    def __get__(self, obj, objtype=None):
        return self if obj is None else getattr(obj, self.attr, None)

    def __set__(self, obj, value):
        old = getattr(obj, self.attr, None)
        setattr(obj, self.attr, value)
        if old is not None and value < old:
            obj.swa_pool.release_outside_window(obj.layer_id, value)


class SWAPoolView:
    def __init__(self, kv_pool, slot_order):
        self.kv_pool = kv_pool
        self.slot_order = slot_order  # the running request's slots, oldest first

    def release_outside_window(self, layer_id, window):
        stale = torch.tensor(self.slot_order[: max(0, len(self.slot_order) - window)], dtype=torch.int64)
        dst = self.kv_pool.k_buffer[layer_id]
        dst[stale] = torch.zeros(stale.numel(), 2, 4).to(dst.dtype)


class SWALayer(RadixLayer):
    sliding_window = SlidingWindowAttr()

    def __init__(self, layer_id, swa_pool, window):
        super().__init__(layer_id)
        self.swa_pool = swa_pool
        self.sliding_window = window
''', '''
layer.sliding_window = min(layer.sliding_window, self.helper["decode_window"])''', ret="layer.sliding_window",
    setup='helper = {"decode_window": 2}', layer="SWALayer(1, SWAPoolView(pool, [3, 1, 8, 9]), 8)")

std("hasattr_lazy_runner_proxy_restores_session", FAM_ATTR,
    "hasattr(self.model_runner, 'spec_algorithm') on a lazy __getattr__ proxy builds the real runner, which "
    "restores a paused session's KV into the pool", '''
class LazyModelRunner:
    """Forwards attribute reads to the real runner, built on first use (so that a paused session is only
    restored when the engine is actually used again)."""

    def __init__(self, factory):
        self._factory = factory
        self._real = None

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._real is None:
            self._real = self._factory()
        return getattr(self._real, name)


class SessionModelRunner:
    def __init__(self, kv_pool, snapshot):
        for slot, row in snapshot.items():
            kv_pool.k_buffer[1][slot] = row.to(kv_pool.dtype)
        self.spec_algorithm = None
''', '''
use_spec = hasattr(self.helper, "spec_algorithm") and self.helper.spec_algorithm is not None''', ret="use_spec",
    setup='''
helper = LazyModelRunner(lambda: SessionModelRunner(pool, {3: torch.full((2, 4), 0.5)}))''')

std("post_init_metadata_applies_pending_store", FAM_ATTR,
    "constructing a FlashDecodeMetadata dataclass runs __post_init__, which applies the step's deferred K store "
    "into out_cache_loc", '''
import dataclasses


@dataclasses.dataclass
class FlashDecodeMetadata:
    """FA3-style decode metadata. Building it is where the overlap scheduler's deferred store of the new
    token's K is applied (it is off the critical path of the previous step)."""
    kv_pool: object
    layer_id: int
    out_cache_loc: torch.Tensor
    pending_k: torch.Tensor
    page_size: int = 4
    max_pages: int = 0

    def __post_init__(self):
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[self.out_cache_loc] = self.pending_k.to(dst.dtype)
        self.max_pages = (int(self.out_cache_loc.max()) + self.page_size) // self.page_size
''', '''
md = FlashDecodeMetadata(self.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc, self.helper)''',
    ret="md.max_pages", setup="helper = torch.full((1, 2, 4), 0.5)")

# ================================================================ B. operator / container protocols
FAM_PROTO = ("an operator or container protocol on an engine object runs code that writes the pool: `seq_lens += 1` "
             "on a tracker whose __iadd__ reserves the next slot, a metadata mapping's __setitem__, len() of a "
             "transfer queue that polls, unpickling a transferred chunk (persistent_load lands it), send() to a "
             "KV-writer coroutine")

std("iadd_seq_lens_reserves_next_slot", FAM_PROTO,
    "forward_batch.seq_lens += 1 on a SeqLens tracker whose __iadd__ reserves the next slot and zero-fills it "
    "(the kernel reads one slot ahead)", '''
class SeqLens:
    """The running batch's sequence lengths. Advancing reserves each request's next slot and writes a clean
    zero key there, since the split-K decode kernel reads one slot past the end."""

    def __init__(self, lens, kv_pool, layer_id, next_loc):
        self.lens, self.kv_pool, self.layer_id, self.next_loc = lens, kv_pool, layer_id, next_loc

    def __iadd__(self, n):
        self.lens = self.lens + n
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[self.next_loc] = torch.zeros(self.next_loc.numel(), 2, 4).to(dst.dtype)
        return self
''', '''
forward_batch.seq_lens += 1''', ret="forward_batch.seq_lens.lens", setup='''
fb.seq_lens = SeqLens(torch.tensor([5, 7]), pool, 1, torch.tensor([3]))
helper = None''')

std("setitem_metadata_mapping_makes_resident", FAM_PROTO,
    "self.forward_metadata['kv_indices'] = ... on a dict subclass whose __setitem__ makes the pages resident "
    "(copies non-resident slots in from the host mirror)", '''
class ResidentMetadata(dict):
    """The backend's forward metadata. Setting kv_indices makes those slots resident: slots that were
    offloaded are copied back from the host mirror before the kernel may read them."""

    def __init__(self, kv_pool, layer_id, host_mirror, offloaded):
        super().__init__()
        self.kv_pool, self.layer_id, self.host_mirror, self.offloaded = kv_pool, layer_id, host_mirror, offloaded

    def __setitem__(self, key, value):
        if key == "kv_indices":
            missing = [s for s in value.tolist() if s in self.offloaded]
            if missing:
                idx = torch.tensor(missing)
                dst = self.kv_pool.k_buffer[self.layer_id]
                dst[idx] = self.host_mirror[idx].to(dst.dtype)
                self.offloaded.difference_update(missing)
        super().__setitem__(key, value)
''', '''
self.helper["kv_indices"] = forward_batch.kv_indices
self.helper["bs"] = forward_batch.batch_size''', ret="sorted(self.helper)", setup='''
helper = ResidentMetadata(pool, 1, torch.full((16, 2, 4), 0.5), {3, 11})''')

std("len_transfer_queue_polls_and_lands", FAM_PROTO,
    "len(self.transfer_queue) on a mooncake-style decode receiver queue whose __len__ polls the transfer engine "
    "and lands finished chunks", '''
class DecodeTransferQueue:
    """Requests whose KV is being received from a prefill instance. Its size is only meaningful after a
    poll, so __len__ polls: finished chunks are landed into the pool and counted."""

    def __init__(self, kv_pool, inflight):
        self.kv_pool, self.inflight, self.landed = kv_pool, inflight, []

    def _poll(self):
        for chunk in [c for c in self.inflight if c["status"] == "done"]:
            dst = self.kv_pool.k_buffer[chunk["layer"]]
            dst[chunk["loc"]] = chunk["rows"].to(dst.dtype)
            self.inflight.remove(chunk)
            self.landed.append(chunk["rid"])

    def __len__(self):
        self._poll()
        return len(self.landed)
''', '''
n_ready = len(self.helper)''', ret="n_ready", setup='''
helper = DecodeTransferQueue(pool, [{"rid": "r7", "status": "done", "layer": 1, "loc": torch.tensor([3]),
                                     "rows": torch.full((1, 2, 4), 0.5)}])''')

std("unpickle_persistent_load_lands_chunk", FAM_PROTO,
    "KVUnpickler(io.BytesIO(msg), pool).load() of a transferred chunk: its persistent_load lands the rows into the "
    "pool zero-copy style, as torch.load does for storages", '''
import io
import pickle


class KVRows:
    def __init__(self, layer_id, loc, values):
        self.layer_id, self.loc, self.values = layer_id, loc, values


class KVPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, KVRows):
            return ("kv_rows", obj.layer_id, obj.loc, obj.values)
        return None


class KVUnpickler(pickle.Unpickler):
    """Restricted unpickler of the KV transfer channel: KV rows are written straight into the receiving
    pool instead of being materialised as Python objects."""

    def __init__(self, file, kv_pool):
        super().__init__(file)
        self.kv_pool = kv_pool

    def persistent_load(self, pid):
        _tag, layer_id, loc, values = pid
        rows = torch.tensor(values).view(len(loc), 2, 4)
        dst = self.kv_pool.k_buffer[layer_id]
        dst[torch.tensor(loc)] = rows.to(dst.dtype)
        return ("landed", layer_id, tuple(loc))


def encode_message(rid, layer_id, loc, values):
    f = io.BytesIO()
    KVPickler(f).dump({"rid": rid, "rows": KVRows(layer_id, loc, values)})
    return f.getvalue()
''', '''
msg = KVUnpickler(io.BytesIO(self.helper.pop(0)), self.token_to_kv_pool).load()''', ret="msg", setup='''
helper = [encode_message("r7", 1, [3], [0.5] * 8)]''')

std("coroutine_send_kv_writer", FAM_PROTO,
    "self.kv_writer.send((loc, rows)) to a primed KV-writer coroutine; each send stores the rows", '''
def kv_writer(kv_pool, layer_id):
    """A coroutine the overlap scheduler sends (loc, rows) to; it writes them and yields the running count."""
    written = 0
    while True:
        loc, rows = yield written
        dst = kv_pool.k_buffer[layer_id]
        dst[loc] = rows.to(dst.dtype)
        written += int(loc.numel())
''', '''
n_written = self.helper.send((forward_batch.out_cache_loc, torch.full((1, 2, 4), 0.5)))''', ret="n_written",
    setup='''
helper = kv_writer(pool, 1)
next(helper)''')

# ================================================================ C. logging / debug output
FAM_LOG = ("a logging or debug-output call between the cast and the gather is not read-only: a logging.Handler "
           "attached to the backend's logger poisons free slots with a canary, an f-string of a debug view whose "
           "__format__ normalises the dumped rows in place")

std("logging_handler_poisons_free_slots", FAM_LOG,
    "self.logger.debug('decode layer=%d bs=%d', ...) on a logger with a KV-sanitizer Handler whose emit() writes "
    "a NaN canary into the free slots", '''
import logging


class KVSanitizerHandler(logging.Handler):
    """Debug aid: every logged decode step poisons the free slots with NaN, so that a kernel reading a slot
    it does not own produces NaNs right away."""

    def __init__(self, kv_pool, layer_id, free_slots):
        super().__init__(logging.DEBUG)
        self.kv_pool, self.layer_id, self.free_slots = kv_pool, layer_id, free_slots

    def emit(self, record):
        idx = torch.tensor(sorted(self.free_slots))
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[idx] = torch.full((idx.numel(), 2, 4), float("nan")).to(dst.dtype)
''', '''
self.helper.debug("decode layer=%d bs=%d", layer.layer_id, forward_batch.batch_size)''', setup='''
helper = logging.Logger("decode_backend")
helper.addHandler(KVSanitizerHandler(pool, 1, {3, 12}))''')

std("fstring_format_debug_dump_normalises", FAM_LOG,
    "f'{self.kv_dump}' for the trace log: the debug view's __format__ normalises each dumped row to unit norm in "
    "place before printing", '''
class KVRowDump:
    """Debug view of a request's cached keys for the trace log. Formatting normalises the rows in place
    (unit L2 norm per head) "so that dumps of different layers are comparable"."""

    def __init__(self, kv_pool, layer_id, loc):
        self.kv_pool, self.layer_id, self.loc = kv_pool, layer_id, loc

    def __format__(self, spec):
        rows = self.kv_pool.k_buffer[self.layer_id]
        norms = []
        for s in self.loc:
            row = rows[s]
            n = row.float().norm(dim=-1, keepdim=True)
            row.div_(n.to(row.dtype))
            norms.append(round(float(n.mean()), 3))
        return f"layer{self.layer_id} rows={list(self.loc)} norms={norms}"
''', '''
trace_line = f"decode bs={forward_batch.batch_size} {self.helper}"''', ret="trace_line", pool=BF16_POOL,
    cast=".float()", setup="helper = KVRowDump(pool, 1, [3])")

# ================================================================ D. object lifetime
FAM_LIFE = ("dropping the last reference to an engine object between the cast and the gather runs its finalizer, "
            "which writes the pool: a weakref.finalize registered by the allocator scrubs a finished request's "
            "slots, a page handle's __del__ zeroes its pages, a weakref callback writes a staging lease back")

std("weakref_finalize_scrubs_finished_req", FAM_LIFE,
    "filtering finished requests out of self.running drops the last reference to one; the allocator's "
    "weakref.finalize frees and scrubs its slots", '''
import weakref


class Req:
    def __init__(self, rid, slots, finished):
        self.rid, self.slots, self.finished = rid, slots, finished


class TokenToKVAllocator:
    """Frees a request's slots when the request object dies, scrubbing them (no stale keys for the next owner)."""

    def __init__(self, kv_pool):
        self.kv_pool, self.free_slots = kv_pool, []

    def track(self, req):
        weakref.finalize(req, self._release, req.slots.clone())
        return req

    def _release(self, slots):
        for dst in self.kv_pool.k_buffer:
            dst[slots] = torch.zeros(slots.numel(), 2, 4).to(dst.dtype)
        self.free_slots.extend(slots.tolist())


class Scheduler:
    def __init__(self, allocator):
        self.allocator, self.running = allocator, []
''', '''
self.helper.running = [r for r in self.helper.running if not r.finished]''',
    ret="sorted(self.helper.allocator.free_slots)", setup='''
helper = Scheduler(TokenToKVAllocator(pool))
helper.running = [helper.allocator.track(Req("a", torch.tensor([1, 2]), False)),
                  helper.allocator.track(Req("b", torch.tensor([3, 4]), True))]''')

std("dunder_del_page_handle_zeroes", FAM_LIFE,
    "popping a session's pin handle out of a dict drops it; PinnedPages.__del__ returns the pages zeroed", '''
class PinnedPages:
    """Pins a streaming session's pages between turns; dropping the handle returns them to the pool, zeroed."""

    def __init__(self, kv_pool, layer_id, slots):
        self.kv_pool, self.layer_id, self.slots = kv_pool, layer_id, slots

    def __del__(self):
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[self.slots] = torch.zeros(self.slots.numel(), 2, 4).to(dst.dtype)
''', '''
self.helper.pop("session-42", None)''', ret="len(self.helper)", setup='''
helper = {"session-42": PinnedPages(pool, 1, torch.tensor([3]))}''')

std("weakref_callback_staging_lease_writeback", FAM_LIFE,
    "a draft writes into a staging lease, then `del lease`; the lease's weakref callback writes the staging rows "
    "back into the pool", '''
import weakref


class StagingLease:
    def __init__(self, loc, rows):
        self.loc, self.rows = loc, rows


class StagingManager:
    """Hands out staging rows for the draft model; when a lease is released its rows are written back to
    the pool (write-back on release)."""

    def __init__(self, kv_pool, layer_id):
        self.kv_pool, self.layer_id, self._refs = kv_pool, layer_id, []

    def lease(self, loc):
        rows = torch.zeros(loc.numel(), 2, 4)
        lease = StagingLease(loc, rows)
        self._refs.append(weakref.ref(lease, lambda _ref, loc=loc, rows=rows: self._write_back(loc, rows)))
        return lease

    def _write_back(self, loc, rows):
        dst = self.kv_pool.k_buffer[self.layer_id]
        dst[loc] = rows.to(dst.dtype)
''', '''
lease = self.helper.lease(forward_batch.out_cache_loc)
lease.rows.fill_(0.5)
del lease''', setup="helper = StagingManager(pool, 1)")

# ================================================================ E. the pool tensor re-pointed in place
FAM_REPOINT = ("the pool's tensor object is re-pointed or re-strided in place, so the same object now shows other "
               "data: Tensor.set_ adopting a migrated buffer, `.data =` on a memory-saver resume, "
               "torch.utils.swap_tensors flipping a double buffer, as_strided_ for a backend's HND layout")

std("set_adopts_migrated_buffer", FAM_REPOINT,
    "live migration (llumnix-style): the layer's K buffer adopts the received tensor zero-copy with "
    "Tensor.set_", '''
class MigrationReceiver:
    """The migrated instance's KV arrives as one tensor per layer; it is adopted without a copy."""

    def __init__(self, received):
        self.received = received

    def buffer_for(self, layer_id):
        return self.received[layer_id]
''', '''
self.token_to_kv_pool.get_key_buffer(layer.layer_id).set_(self.helper.buffer_for(layer.layer_id))''',
    setup='''
helper = MigrationReceiver({1: torch.full((16, 2, 4), 0.5).to(pool.dtype)})''')

std("data_assign_memory_saver_resume", FAM_REPOINT,
    "a memory-saver pause/resume cycle (colocated RL weight sync) between the cast and the gather re-points the "
    "KV tensors with `.data =` (released, then re-mapped to fresh zeroed pages)", '''
class MemorySaver:
    """torch_memory_saver-like: pause releases the physical memory of a region's tensors, resume maps
    fresh (zeroed) pages back; the tensor objects stay the same."""

    def __init__(self):
        self.regions, self.shapes = {}, {}

    def register(self, tag, tensors):
        self.regions[tag] = tensors
        self.shapes[tag] = [t.shape for t in tensors]

    def pause(self, tag):
        for t in self.regions[tag]:
            t.data = torch.empty(0, dtype=t.dtype)

    def resume(self, tag):
        for t, shape in zip(self.regions[tag], self.shapes[tag]):
            t.data = torch.zeros(shape, dtype=t.dtype)
''', '''
if self.helper.regions:
    self.helper.pause("kv_cache")
    self.helper.resume("kv_cache")''', setup='''
helper = MemorySaver()
helper.register("kv_cache", pool.k_buffer + pool.v_buffer)''')

std("swap_tensors_double_buffer_flip", FAM_REPOINT,
    "torch.utils.swap_tensors(front, back) flips a double-buffered KV layer (the back buffer was filled by the "
    "overlap step); the pool's tensor object now holds the back data", '''
class DoubleBufferedKV:
    """Front/back K buffers per layer: the overlap step fills the back buffer, the flip swaps them."""

    def __init__(self, kv_pool, back):
        self.kv_pool, self.back = kv_pool, back
''', '''
torch.utils.swap_tensors(self.token_to_kv_pool.k_buffer[layer.layer_id], self.helper.back[layer.layer_id])''',
    setup='''
helper = DoubleBufferedKV(pool, [torch.zeros(16, 2, 4).to(pool.dtype), torch.full((16, 2, 4), 0.5).to(pool.dtype)])''')

std("as_strided_inplace_hnd_relayout", FAM_REPOINT,
    "switching to a backend that wants HND re-strides the layer in place with as_strided_ (the storage is "
    "reinterpreted as [heads, slots, dim]); slot 3 now reads other elements", '''
class LayoutSwitcher:
    """Runtime attention-backend switch: the new backend expects the cache in HND order; the buffers are
    re-strided in place (the data is permuted later by the backend's first kernel)."""

    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.layout = "NHD"

    def to_hnd(self, layer_id):
        if self.layout == "HND":
            return False
        for buf in (self.kv_pool.k_buffer[layer_id], self.kv_pool.v_buffer[layer_id]):
            size, heads, dim = buf.shape
            buf.as_strided_((size, heads, dim), (dim, size * dim, 1))
        self.layout = "HND"
        return True
''', '''
switched = self.helper.to_hnd(layer.layer_id)''', ret="switched", setup="helper = LayoutSwitcher(pool)",
    result='{"out": out, "k": [t.contiguous() for t in pool.k_buffer]}')

# ================================================================ F. caches registered as module buffers
FAM_MODULE = ("the KV cache is registered as buffers of the model's modules (gpt-fast / HF StaticCache style) and "
              "a module-level operation between the cast and the gather reaches it: load_state_dict of a LoRA "
              "checkpoint that also holds the persistent cache buffers, model.apply(reset), a reset_parameters() "
              "loop over model.modules()")

GPTFAST = '''
class KVCache(torch.nn.Module):
    """gpt-fast-style cache module: the K/V caches are registered buffers."""

    def __init__(self, size, heads, dim, dtype, g):
        super().__init__()
        self.register_buffer("k_cache", torch.randn(size, heads, dim, generator=g).to(dtype))
        self.register_buffer("v_cache", torch.randn(size, heads, dim, generator=g).to(dtype))

    def reset_parameters(self):
        self.k_cache.zero_()
        self.v_cache.zero_()


class LoRALinear(torch.nn.Module):
    def __init__(self, d, r):
        super().__init__()
        self.lora_a = torch.nn.Parameter(torch.ones(r, d))
        self.lora_b = torch.nn.Parameter(torch.ones(d, r))

    def reset_parameters(self):
        torch.nn.init.zeros_(self.lora_b)


class Attention(torch.nn.Module):
    def __init__(self, g):
        super().__init__()
        self.kv_cache = KVCache(16, 2, 4, torch.float8_e4m3fn, g)
        self.wq_lora = LoRALinear(8, 2)


class Transformer(torch.nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.layers = torch.nn.ModuleList([Attention(g) for _ in range(n_layers)])


class ModuleKVPool:
    """The backend's view of the model's cache modules, with the usual pool accessors."""

    def __init__(self, model):
        self.model = model
        self.dtype = torch.float8_e4m3fn

    @property
    def k_buffer(self):
        return [layer.kv_cache.k_cache for layer in self.model.layers]

    def get_key_buffer(self, layer_id):
        return self.model.layers[layer_id].kv_cache.k_cache
'''

std("load_state_dict_lora_ckpt_with_cache_buffers", FAM_MODULE,
    "a LoRA hot-swap calls model.load_state_dict(adapter_sd, strict=False); the adapter checkpoint was saved from "
    "a model whose persistent cache buffers were included, so the cache is copied over in place", GPTFAST, '''
model, adapter_state = self.helper
model.load_state_dict(adapter_state, strict=False)''', pool="ModuleKVPool(Transformer())", setup='''
helper = (pool.model, {"layers.1.wq_lora.lora_a": torch.zeros(2, 8),
                       "layers.1.kv_cache.k_cache": torch.full((16, 2, 4), 0.5).to(torch.float8_e4m3fn)})''')

std("module_apply_resets_finished_rows", FAM_MODULE,
    "model.apply(fn) with a function that zeroes the finished requests' rows of every KVCache module", GPTFAST + '''

def make_row_reset(rows):
    def reset(module):
        if isinstance(module, KVCache):
            module.k_cache[rows] = torch.zeros(rows.numel(), 2, 4).to(module.k_cache.dtype)
    return reset
''', '''
self.helper.apply(make_row_reset(torch.tensor([3, 5])))''', pool="ModuleKVPool(Transformer())",
    setup="helper = pool.model")

std("reset_parameters_loop_reaches_cache", FAM_MODULE,
    "re-initialising LoRA adapters by calling reset_parameters() on every module that has one also reaches the "
    "KVCache modules, which zero their caches", GPTFAST, '''
for m in self.helper.modules():
    if hasattr(m, "reset_parameters"):
        m.reset_parameters()''', pool="ModuleKVPool(Transformer())", setup="helper = pool.model")

# ================================================================ G. pools living in Python buffers
FAM_BUFFER = ("the pool's tensors are torch.frombuffer views of a Python buffer (an anonymous mmap shared with a "
              "transfer agent, a bytearray arena) and engine code writes that buffer through the buffer protocol: "
              "an mmap slice assignment, socket.recv_into a memoryview, BytesIO.readinto a memoryview, "
              "struct.pack_into")

ARENA_POOL = '''
class ArenaKVPool(MHATokenToKVPool):
    """Host KV pool whose layers are torch.frombuffer views of one Python buffer (a bytearray here, an
    anonymous shared mapping for the mmap variant), so that transfer agents can write it directly."""

    def __init__(self, size, head_num, head_dim, layer_num, backing="bytearray", seed=0):
        g = torch.Generator().manual_seed(seed)
        self.dtype, self.size = torch.float8_e4m3fn, size
        self.row_bytes = head_num * head_dim
        self.layer_bytes = size * self.row_bytes
        total = 2 * layer_num * self.layer_bytes
        self.arena = bytearray(total) if backing == "bytearray" else mmap.mmap(-1, total)
        views = []
        for i in range(2 * layer_num):
            t = torch.frombuffer(self.arena, dtype=torch.uint8, count=self.layer_bytes, offset=i * self.layer_bytes)
            t = t.view(torch.float8_e4m3fn).view(size, head_num, head_dim)
            t.copy_(torch.randn(size, head_num, head_dim, generator=g).to(self.dtype))
            views.append(t)
        self.k_buffer, self.v_buffer = views[:layer_num], views[layer_num:]

    def k_offset(self, layer_id, slot):
        return layer_id * self.layer_bytes + slot * self.row_bytes


def fp8_bytes(values):
    return torch.tensor(values).to(torch.float8_e4m3fn).view(torch.uint8).tolist()
'''

std("mmap_slice_assign_transfer_agent", FAM_BUFFER,
    "the transfer agent's poll lands a finished chunk by assigning a slice of the anonymous mmap backing the "
    "pool", "import mmap\n" + ARENA_POOL + '''

class TransferAgent:
    """NIXL/mooncake-like agent with the pool's mapping registered; completed chunks land as raw bytes."""

    def __init__(self, region, completed):
        self.region, self.completed = region, completed

    def poll(self):
        n = 0
        while self.completed:
            offset, payload = self.completed.pop(0)
            self.region[offset:offset + len(payload)] = payload
            n += 1
        return n
''', '''
n_landed = self.helper.poll()''', ret="n_landed", pool='ArenaKVPool(16, 2, 4, 2, backing="mmap")', setup='''
helper = TransferAgent(pool.arena, [(pool.k_offset(1, 3), bytes(fp8_bytes([0.5] * 8)))])''')

std("socket_recv_into_arena_memoryview", FAM_BUFFER,
    "a TCP-style KV receiver reads a row with sock.recv_into(memoryview(pool.arena)[off:off + n]) straight into "
    "the pool's arena", "import mmap\nimport socket\n" + ARENA_POOL + '''

class SocketKVReceiver:
    def __init__(self, sock, kv_pool):
        self.sock, self.kv_pool = sock, kv_pool

    def recv_row(self, layer_id, slot):
        off = self.kv_pool.k_offset(layer_id, slot)
        view = memoryview(self.kv_pool.arena)[off:off + self.kv_pool.row_bytes]
        got = 0
        while got < len(view):
            got += self.sock.recv_into(view[got:], len(view) - got)
        view.release()
        self.sock.close()
        return got
''', '''
n_bytes = self.helper.recv_row(layer.layer_id, 3)''', ret="n_bytes", pool="ArenaKVPool(16, 2, 4, 2)", setup='''
rx, tx = socket.socketpair()
tx.sendall(bytes(fp8_bytes([0.5] * 8)))
tx.close()
helper = SocketKVReceiver(rx, pool)''')

std("bytesio_readinto_swap_in", FAM_BUFFER,
    "swapping a page back in from the swap file with f.readinto(memoryview(pool.arena)[off:off + n])",
    "import io\nimport mmap\n" + ARENA_POOL + '''

class SwapSpace:
    """Swapped-out rows live in a file; swap-in reads them straight into the pool's arena."""

    def __init__(self, f, kv_pool, where):
        self.f, self.kv_pool, self.where = f, kv_pool, where

    def swap_in(self, layer_id, slot):
        if (layer_id, slot) not in self.where:
            return 0
        self.f.seek(self.where.pop((layer_id, slot)))
        off = self.kv_pool.k_offset(layer_id, slot)
        with memoryview(self.kv_pool.arena) as mv:
            return self.f.readinto(mv[off:off + self.kv_pool.row_bytes])
''', '''
n_bytes = 0
for slot in (3, 1):
    n_bytes += self.helper.swap_in(layer.layer_id, slot)''', ret="n_bytes", pool="ArenaKVPool(16, 2, 4, 2)",
    setup='''
helper = SwapSpace(io.BytesIO(bytes(8) + bytes(fp8_bytes([0.5] * 8))), pool, {(1, 3): 8})''')

std("struct_pack_into_fp8_row", FAM_BUFFER,
    "a host-side FP8 row encoder writes the new token's K into the arena with struct.pack_into", "import mmap\nimport struct\n"
    + ARENA_POOL + '''

class HostRowWriter:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool

    def write_row(self, layer_id, slot, values):
        raw = fp8_bytes(values)
        struct.pack_into(f"<{len(raw)}B", self.kv_pool.arena, self.kv_pool.k_offset(layer_id, slot), *raw)
        return len(raw)
''', '''
n_bytes = self.helper.write_row(layer.layer_id, int(forward_batch.out_cache_loc[0]), [0.5] * 8)''', ret="n_bytes",
    pool="ArenaKVPool(16, 2, 4, 2)", setup="helper = HostRowWriter(pool)")

# ================================================================ H. torch function interception
FAM_TF = ("a torch-function override turns an innocent-looking op into a pool write: a TorchFunctionMode entered "
          "around the decode step mirrors copy_ into the backend's staging buffer to the slot's home row in the "
          "pool; an index tensor subclass pages slots in from the host mirror when it indexes a pool buffer")

case("torch_function_mode_mirrors_staging_copy", FAM_TF,
     "inside `with self.write_through:` (a TorchFunctionMode), self.staging.copy_(new_k) into the backend's own "
     "staging buffer is mirrored by the mode into the slot's home row of the pool", '''
from torch.overrides import TorchFunctionMode


class WriteThroughMode(TorchFunctionMode):
    """Unified-memory emulation for the CPU-offload path: in-place copies into a registered staging tensor
    are written through to the staging tensor's home rows in the pool."""

    def __init__(self):
        super().__init__()
        self.mirrors = []

    def register(self, staging, home, loc):
        self.mirrors.append((staging, home, loc))

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.Tensor.copy_:
            for staging, home, loc in self.mirrors:
                if args[0] is staging:
                    home[loc] = staging.to(home.dtype)
        return out


class DecodeBackend:
    def __init__(self, token_to_kv_pool, write_through):
        self.token_to_kv_pool = token_to_kv_pool
        self.write_through = write_through
        self.staging = torch.zeros(1, 2, 4)

    def forward_decode(self, q, layer, forward_batch, new_k):
        with self.write_through:
            k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
            self.staging.copy_(new_k)
            return k[forward_batch.kv_indices], self.staging.clone()


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    backend = DecodeBackend(pool, WriteThroughMode())
    backend.write_through.register(backend.staging, pool.k_buffer[1], fb.out_cache_loc)
    out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb, torch.full((1, 2, 4), 0.5))
    return {"out": out, "k": pool.k_buffer}
''')

std("index_subclass_pages_in_on_gather", FAM_TF,
    "forward_batch.kv_indices is a ResidentIndex tensor subclass whose __torch_function__ pages the indexed slots "
    "in from the host mirror when it indexes a registered pool buffer (the cast copy is not registered)", '''
class Residency:
    def __init__(self, kv_pool, layer_id, host_mirror, offloaded):
        self.home = kv_pool.k_buffer[layer_id]
        self.host_mirror, self.offloaded = host_mirror, offloaded

    def page_in(self, index):
        missing = [s for s in index.tolist() if s in self.offloaded]
        if missing:
            idx = torch.tensor(missing)
            self.home[idx] = self.host_mirror[idx].to(self.home.dtype)
            self.offloaded.difference_update(missing)


class ResidentIndex(torch.Tensor):
    """kv_indices of a UVM-style offloaded cache: indexing a registered device buffer with it first makes the
    indexed slots resident."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunctionSubclass():
            if func is torch.Tensor.__getitem__ and isinstance(args[1], ResidentIndex):
                residency = args[1].__dict__.get("residency")
                if residency is not None and args[0] is residency.home:
                    residency.page_in(args[1])
            return func(*args, **(kwargs or {}))
''', '''
bs = forward_batch.batch_size''', ret="bs", setup='''
fb.kv_indices = torch.tensor([3, 1]).as_subclass(ResidentIndex)
fb.kv_indices.residency = Residency(pool, 1, torch.full((16, 2, 4), 0.5), {3})
helper = None''')

# ================================================================ I. other reads of the cast variable
FAM_READ = ("the cast variable is read between the cast and the gather for something other than a gather, so "
            "moving the cast changes what that read sees: q = q.to(k.dtype), clamp bounds from torch.finfo(k.dtype), "
            "a workspace k.new_zeros(...), a split count from k.element_size()")

std("q_to_k_dtype", FAM_READ,
    "q = q.to(k.dtype) (the query matched to the cache's compute dtype) between the cast and the gather", "", '''
q = q.to(k.dtype)''', ret="q")

std("finfo_of_k_dtype_clamps_scores", FAM_READ,
    "scores clamped to +-torch.finfo(k.dtype).max (an overflow guard for the cache's dtype)", "", '''
scores = (q.float() * 300.0).sum(-1)
bound = torch.finfo(k.dtype).max
scores = scores.clamp(-bound, bound)''', ret="scores")

std("new_zeros_workspace_from_k", FAM_READ,
    "the output workspace is allocated as k.new_zeros((bs, heads, dim))", "", '''
o = k.new_zeros((forward_batch.batch_size, layer.tp_k_head_num, layer.head_dim))''', ret="o", cast=".float()")

std("element_size_sets_num_splits", FAM_READ,
    "the split-K count is derived from k.element_size() (bytes per cached element)", "", '''
bytes_per_token = k.element_size() * layer.tp_k_head_num * layer.head_dim
num_kv_splits = max(1, 64 // bytes_per_token)''', ret="num_kv_splits", cast=".half()")

# ================================================================ J. engine subsystems
FAM_SUB = ("an engine subsystem other than those of rounds 7-8 writes the gathered rows between the cast and the "
           "gather: the multimodal encoder cache filling cross-attention KV on a miss, grammar jump-forward "
           "re-tokenisation recomputing the boundary token's K, a lazy warm-up (profile run) on the first step, "
           "a CPU-attention host pool receiving write_backup, a one-time lru_cache'd attention-sink init")

std("encoder_cache_miss_fills_cross_attn_kv", FAM_SUB,
    "mllama-style cross-attention: self.encoder_cache.get_or_compute(image_hash) runs the vision encoder on a miss "
    "and writes the image's cross-attention K into its slots", '''
class EncoderCache:
    def __init__(self, cross_pool, slots_of_image, encoder):
        self.cross_pool, self.slots_of_image, self.encoder = cross_pool, slots_of_image, encoder
        self.done = set()

    def get_or_compute(self, image_hash):
        loc = self.slots_of_image[image_hash]
        if image_hash not in self.done:
            feats = self.encoder(image_hash, loc.numel())
            for dst in self.cross_pool.k_buffer:
                dst[loc] = feats.to(dst.dtype)
            self.done.add(image_hash)
        return int(loc.numel())


def toy_vision_encoder(image_hash, n):
    return torch.full((n, 2, 4), 0.5)
''', '''
n_image_tokens = self.helper.get_or_compute(forward_batch.image_hash)''', ret="n_image_tokens", setup='''
fb.image_hash = "img-9f2"
helper = EncoderCache(pool, {"img-9f2": torch.tensor([2, 3])}, toy_vision_encoder)''')

std("grammar_jump_forward_retokenizes_boundary", FAM_SUB,
    "xgrammar-style jump-forward: the forced string is appended and the boundary token re-tokenised; its K is "
    "recomputed in place in the same slot", '''
class JumpForwardGrammar:
    def __init__(self, kv_pool, boundary_slot, recompute_k):
        self.kv_pool, self.boundary_slot, self.recompute_k = kv_pool, boundary_slot, recompute_k

    def try_jump_forward(self, req_id):
        forced = '": '
        new_k = self.recompute_k(forced)
        for dst in self.kv_pool.k_buffer:
            dst[self.boundary_slot] = new_k.to(dst.dtype)
        return len(forced)
''', '''
jump_len = self.helper.try_jump_forward("req-0") if forward_batch.forward_mode == "decode" else 0''',
    ret="jump_len", setup='''
helper = JumpForwardGrammar(pool, 3, lambda s: torch.full((2, 4), 0.5))''')

std("lazy_profile_run_writes_dummy_kv", FAM_SUB,
    "the first decode step triggers the lazy warm-up: profile_run() runs a dummy batch whose K is written into "
    "slots 0..7", '''
class ModelRunner:
    def __init__(self, kv_pool, max_num_tokens):
        self.kv_pool, self.max_num_tokens = kv_pool, max_num_tokens
        self.warmed_up = False

    def profile_run(self):
        loc = torch.arange(self.max_num_tokens)
        dummy = torch.zeros(self.max_num_tokens, 2, 4)
        for layer_id in range(len(self.kv_pool.k_buffer)):
            self.kv_pool.set_kv_buffer(layer_id, loc, dummy, dummy)
        self.warmed_up = True
''', '''
if not self.helper.warmed_up:
    self.helper.profile_run()''', setup="helper = ModelRunner(pool, 8)")

std("host_pool_attention_write_backup", FAM_SUB,
    "CPU attention over the host pool (offloaded decode): the cache controller's write_backup copies the "
    "device rows into host slots that are being gathered", '''
class CacheController:
    """HiCache-style controller: write_backup copies device rows into host slots (device -> host)."""

    def __init__(self, device_pool, host_pool):
        self.device_pool, self.host_pool = device_pool, host_pool

    def write_backup(self, device_indices, host_indices):
        for src, dst in zip(self.device_pool.k_buffer, self.host_pool.k_buffer):
            dst[host_indices] = src[device_indices]
        return int(host_indices.numel())
''', '''
n_backed = self.helper.write_backup(torch.tensor([5]), forward_batch.out_cache_loc)''', ret="n_backed", setup='''
helper = CacheController(MHATokenToKVPool(16, 2, 4, 2, seed=1), pool)''')

std("lru_cache_one_time_sink_init", FAM_SUB,
    "sink_slots(pool, layer_id), an lru_cache'd helper, initialises the attention-sink slots with the learned "
    "sink key on its first call", '''
import functools


@functools.lru_cache(maxsize=None)
def sink_slots(kv_pool, layer_id, num_sinks=4):
    """Attention-sink slots 0..num_sinks-1 hold a learned sink key; written once, on first use."""
    loc = torch.arange(num_sinks)
    dst = kv_pool.k_buffer[layer_id]
    dst[loc] = torch.full((num_sinks, 2, 4), 0.5).to(dst.dtype)
    return tuple(loc.tolist())
''', '''
sinks = sink_slots(self.token_to_kv_pool, layer.layer_id)''', ret="sinks")
