# Hazard case bodies for make_cases.py (round 14): (name, family, doc, code). Each code block follows the
# shared header (toy FP8 pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch); the shape of the
# code is _template.py's. Like rounds 7-13 this round is realistic engine code, through yet other paths
# between the cast and the gather: operator dunders not used before on engine objects (__sub__, __ge__,
# __mod__, __and__, __invert__, __round__, and a <= derived by functools.total_ordering from a writing
# __lt__), class machinery (a metaclass __prepare__, a metaclass __instancecheck__, a descriptor's
# __delete__, an Enum's _missing_), library callbacks (concurrent.futures add_done_callback on a finished
# future, torch.futures then() run by set_result, a warnings.showwarning hook, a copyreg reducer under
# pickle.dumps, inspect.signature reading a __wrapped__ property, sched.scheduler.run(blocking=False),
# nn.Module load_state_dict post-hooks, state_dict pre-hooks and a train() override reached by eval()),
# aliases that look like copies (.cpu() on a CPU backend, .contiguous() of a contiguous layer,
# torch.as_tensor, split() page views, .to() of the storage dtype), the cast's dtype read from state changed
# through other paths (vars(config).update, setattr over a dict of overrides, a nested def's nonlocal, a
# match capture pattern, a for loop's target, torch.autocast's dtype), grad mode (a Parameter pool cast under
# no_grad) and a storage released with untyped_storage().resize_(0).
import importlib.util
import os

_SPEC = importlib.util.spec_from_file_location(
    "fb14_template", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_template.py"))
T = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(T)
ROW, ROW1, BF16_POOL = T.ROW, T.ROW1, T.BF16_POOL

CASES = []


def std(name, family, doc, prelude, between, **kw):
    CASES.append((name, "hazard", family, doc, T.render(len(CASES), prelude, between, **kw)))


# ---------------------------------------------------------------- operator dunders on engine objects
F_OP = ("an operator or builtin not used in rounds 7-13 runs a dunder of an engine object that writes the pool")

std("sub_device_seq_lens_syncs_deferred_append", F_OP,
    "new_tokens = device_seq_lens - prefix_lens: the overlap scheduler's DeviceSeqLens.__sub__ syncs the "
    "previous step's deferred append (storing its K) before it subtracts",
    '''
class DeviceSeqLens:
    """Overlap scheduler: seq_lens live on the device and the previous step's KV append is deferred.
    Arithmetic on them needs the final lengths, so it syncs the deferred append first."""

    def __init__(self, pool, lens):
        self.pool = pool
        self.lens = list(lens)
        self.deferred = []

    def defer_append(self, layer_id, loc, k_row, req_idx):
        self.deferred.append((layer_id, loc, k_row, req_idx))

    def _sync(self):
        for layer_id, loc, k_row, req_idx in self.deferred:
            self.pool.k_buffer[layer_id][loc] = k_row
            self.lens[req_idx] += 1
        self.deferred.clear()

    def __sub__(self, other):
        self._sync()
        return [a - b for a, b in zip(self.lens, other)]
''',
    "new_tokens = self.helper - self.prefix_lens",
    init="self.prefix_lens = [2, 5]", ret="new_tokens",
    setup=f"helper = DeviceSeqLens(pool, [4, 7])\nhelper.defer_append(1, 3, {ROW}, 0)")

std("ge_free_slot_counter_reclaims_finished", F_OP,
    "if self.allocator.available >= need: the allocator's available-size view reclaims finished requests' "
    "slots in __ge__ and the debug sanitizer scrubs them",
    '''
class AvailableSlots:
    """The token allocator's available size. Finished requests are freed lazily; comparing the available
    size against a demand reclaims them first, and the KV sanitizer (debug mode) scrubs what it frees."""

    def __init__(self, allocator):
        self.allocator = allocator

    def __ge__(self, need):
        self.allocator.reclaim_finished()
        return len(self.allocator.free_slots) >= need


class TokenAllocator:
    def __init__(self, pool, free_slots, finished_slots, sanitize=True):
        self.pool = pool
        self.free_slots = list(free_slots)
        self.finished_slots = list(finished_slots)
        self.sanitize = sanitize
        self.available = AvailableSlots(self)

    def reclaim_finished(self):
        for loc in self.finished_slots:
            if self.sanitize:
                for layer_buf in self.pool.k_buffer:
                    layer_buf[loc] = torch.zeros(2, 4)
            self.free_slots.append(loc)
        self.finished_slots.clear()
''',
    """
if self.helper.available >= forward_batch.batch_size + 2:
    self.can_prealloc = True
""",
    init="self.can_prealloc = False", ret="self.can_prealloc",
    setup="helper = TokenAllocator(pool, [9], [3])")

std("mod_sliding_window_ring_cursor_scrubs", F_OP,
    "write_slot = ring_cursor % window: a rolling-window KV cursor's __mod__ wraps it and scrubs the slot "
    "that leaves the window",
    '''
class RingCursor:
    """Mistral-style rolling KV cache of one request: slots base .. base + window - 1 are reused in a ring.
    Taking the cursor modulo the window wraps it; the slot about to be reused leaves the window and is
    scrubbed so that a stale key is never attended to."""

    def __init__(self, pool, layer_id, base, pos):
        self.pool = pool
        self.layer_id = layer_id
        self.base = base
        self.pos = pos

    def __mod__(self, window):
        slot = self.base + self.pos % window
        if self.pos >= window:
            self.pool.k_buffer[self.layer_id][slot] = torch.zeros(2, 4)
        return slot
''',
    "write_slot = self.helper % self.sliding_window",
    init="self.sliding_window = 4", ret="write_slot",
    setup="helper = RingCursor(pool, 1, 0, 7)")

std("and_layerwise_load_tracker_lands_layer", F_OP,
    "ready = loaded_layers & {layer_id}: an LMCache-style layerwise load tracker's __and__ polls the "
    "transfer and lands the staged layer",
    '''
class LoadedLayers:
    """Layer-wise KV loading (LMCache style): the set of layers whose prefix KV has landed. Intersecting it
    polls the transfer engine first, which lands the layers whose copies completed."""

    def __init__(self, pool, staged):
        self.pool = pool
        self.staged = dict(staged)
        self.done = set()

    def _poll(self):
        for layer_id, (loc, k_rows) in sorted(self.staged.items()):
            self.pool.k_buffer[layer_id][loc] = k_rows
            self.done.add(layer_id)
        self.staged.clear()

    def __and__(self, layers):
        self._poll()
        return self.done & set(layers)
''',
    """
ready = self.helper & {layer.layer_id}
if not ready:
    self.waits += 1
""",
    init="self.waits = 0", ret="(sorted(ready), self.waits)",
    setup=f"helper = LoadedLayers(pool, {{1: (3, {ROW})}})")

std("invert_occupancy_mask_scrubs_freed", F_OP,
    "free = ~allocator.occupancy: a paged allocator's occupancy bitmap applies the pending frees in "
    "__invert__, and the sanitizer scrubs the freed slots",
    '''
class OccupancyMask:
    """A paged allocator's occupancy bitmap with lazily applied frees. ~mask (the free set) applies the
    pending frees first; in sanitizer mode each freed slot is poisoned so that a use-after-free is loud."""

    def __init__(self, pool, size, occupied, pending_free):
        self.pool = pool
        self.occupied = torch.zeros(size, dtype=torch.bool)
        self.occupied[torch.tensor(occupied)] = True
        self.pending_free = list(pending_free)

    def __invert__(self):
        for loc in self.pending_free:
            self.occupied[loc] = False
            for layer_buf in self.pool.k_buffer:
                layer_buf[loc] = torch.full((2, 4), -448.0)
        self.pending_free.clear()
        return ~self.occupied
''',
    "free_slots = (~self.helper).nonzero().flatten().tolist()",
    ret="free_slots[:4]",
    setup="helper = OccupancyMask(pool, 16, [1, 3, 5], [3])")

std("round_kv_usage_gauge_lands_inflight", F_OP,
    "round(kv_usage_gauge, 3) for the step's metrics: the gauge's __round__ lands in-flight host loads so "
    "that they count as resident",
    '''
class KVUsageGauge:
    """The scheduler's token-usage gauge. In-flight host-to-device loads are only counted once they land,
    so reporting the gauge (round() for the metrics line) lands the completed ones first."""

    def __init__(self, pool, used, total, inflight):
        self.pool = pool
        self.used = used
        self.total = total
        self.inflight = list(inflight)

    def __round__(self, ndigits=None):
        for layer_id, loc, k_row in self.inflight:
            self.pool.k_buffer[layer_id][loc] = k_row
            self.used += 1
        self.inflight.clear()
        return round(self.used / self.total, ndigits)
''',
    "self.metrics.append(('token_usage', round(self.helper, 3)))",
    init="self.metrics = []", ret="self.metrics",
    setup=f"helper = KVUsageGauge(pool, 5, 16, [(1, 3, {ROW})])")

std("total_ordering_derived_le_polls_prefetch", F_OP,
    "if progress <= threshold: functools.total_ordering derives __le__ from a HiCache prefetch progress's "
    "__lt__, which polls the prefetch (landing completed pages) before comparing",
    '''
@functools.total_ordering
class PrefetchProgress:
    """HiCache prefetch progress of a request, ordered by the number of tokens landed. __lt__ polls the
    prefetch first so that a comparison sees the current progress; total_ordering supplies the rest."""

    def __init__(self, pool, landed, pending):
        self.pool = pool
        self.landed = landed
        self.pending = list(pending)

    def _poll(self):
        for layer_id, loc, k_row in self.pending:
            self.pool.k_buffer[layer_id][loc] = k_row
            self.landed += 1
        self.pending.clear()

    def __eq__(self, other):
        return self.landed == int(other)

    def __lt__(self, other):
        self._poll()
        return self.landed < int(other)
''',
    """
if self.helper <= self.prefetch_threshold:
    self.prefetch_skips += 1
""",
    init="self.prefetch_threshold = 8\nself.prefetch_skips = 0", ret="self.prefetch_skips",
    imports="import functools",
    setup=f"helper = PrefetchProgress(pool, 2, [(1, 3, {ROW})])")

# ---------------------------------------------------------------- class machinery
F_CLS = "class machinery not used in rounds 7-13 runs engine code that writes the pool"

std("metaclass_prepare_reserves_sink_slot", F_CLS,
    "a per-step plan class declared in forward_decode with a graph-runner metaclass: __prepare__ "
    "reserves (and clears) the attention-sink slot its static buffers point at",
    '''
class GraphPlanMeta(type):
    """A CUDA-graph runner's plan DSL: plan classes get a namespace prepared by the runner, which reserves
    the attention-sink slot that the captured graph's static buffers point at (and clears it)."""

    runner = None

    @classmethod
    def __prepare__(mcls, name, bases, **kwargs):
        slot = mcls.runner.reserve_sink_slot()
        return {"sink_slot": slot}


class GraphRunner:
    def __init__(self, pool, sink_slot):
        self.pool = pool
        self.sink_slot = sink_slot
        self.reserved = False

    def reserve_sink_slot(self):
        if not self.reserved:
            for layer_buf in self.pool.k_buffer:
                layer_buf[self.sink_slot] = torch.zeros(2, 4)
            self.reserved = True
        return self.sink_slot
''',
    """
class StepPlan(metaclass=GraphPlanMeta):
    batch_size = forward_batch.batch_size
    head_dim = layer.head_dim
""",
    ret="(StepPlan.sink_slot, StepPlan.batch_size)",
    setup="helper = GraphRunner(pool, 3)\nGraphPlanMeta.runner = helper",
    finally_="GraphPlanMeta.runner = None")

std("metaclass_instancecheck_binds_spec_plugin", F_CLS,
    "isinstance(spec_info, EagleVerifyInput) where the class is a platform plugin's placeholder: its "
    "metaclass __instancecheck__ binds the plugin, which commits the pending draft K",
    '''
class _PluginBoundMeta(type):
    """vLLM-style platform plugins: speculative input classes are placeholders until the plugin is bound.
    isinstance() binds it (once); binding the plugin commits the draft KV it had staged."""

    plugin = None

    def __instancecheck__(cls, obj):
        if cls.plugin is not None:
            cls.plugin.bind()
        return type(obj).__name__ == cls.__name__


class EagleVerifyInput(metaclass=_PluginBoundMeta):
    pass


class SpecPlugin:
    def __init__(self, pool, staged):
        self.pool = pool
        self.staged = list(staged)
        self.bound = False

    def bind(self):
        if not self.bound:
            for layer_id, loc, k_row in self.staged:
                self.pool.k_buffer[layer_id][loc] = k_row
            self.bound = True
''',
    """
if isinstance(forward_batch.spec_info, EagleVerifyInput):
    self.verify_steps += 1
""",
    init="self.verify_steps = 0", ret="self.verify_steps",
    setup=f"helper = SpecPlugin(pool, [(1, 3, {ROW})])\n_PluginBoundMeta.plugin = helper\n"
          "fb.spec_info = type('EagleVerifyInput', (), {})()",
    finally_="_PluginBoundMeta.plugin = None")

std("descriptor_delete_releases_metadata_pages", F_CLS,
    "del self.forward_metadata: the backend's metadata is a data descriptor whose __delete__ releases the "
    "step's scratch pages back to the allocator, which scrubs them",
    '''
class StepMetadataSlot:
    """Holds a backend's per-step metadata. Deleting it ends the step's ownership of its scratch pages:
    they go back to the allocator, which scrubs them (the page may hold another request's rows next)."""

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.__dict__["_forward_metadata"]

    def __set__(self, obj, value):
        obj.__dict__["_forward_metadata"] = value

    def __delete__(self, obj):
        metadata = obj.__dict__.pop("_forward_metadata")
        obj.helper.release(metadata["scratch_locs"])


class ScrubbingAllocator:
    def __init__(self, pool):
        self.pool = pool
        self.free_slots = []

    def release(self, locs):
        for loc in locs:
            for layer_buf in self.pool.k_buffer:
                layer_buf[loc] = torch.zeros(2, 4)
            self.free_slots.append(loc)
''',
    """
num_pages = self.forward_metadata["num_pages"]
del self.forward_metadata
""",
    cls_attrs="forward_metadata = StepMetadataSlot()",
    init='self.forward_metadata = {"num_pages": 2, "scratch_locs": [3]}',
    ret="(num_pages, self.helper.free_slots)",
    setup="helper = ScrubbingAllocator(pool)")

std("enum_missing_legacy_layout_migrates_pool", F_CLS,
    "KVLayout(config_name) with a legacy name: the Enum's _missing_ maps it and migrates the registered "
    "pools, re-zeroing their padding slot",
    '''
_REGISTERED_POOLS = []
_MIGRATED = []


class KVLayout(enum.Enum):
    """KV layouts. Legacy config spellings are still accepted: _missing_ maps them, and the first time
    it migrates the registered pools to the new padding convention (the padding slot is re-zeroed)."""

    NHD = "nhd"
    HND = "hnd"

    @classmethod
    def _missing_(cls, value):
        legacy = {"nhd_paged_v0": cls.NHD, "hnd_paged_v0": cls.HND}
        if value not in legacy:
            return None
        if not _MIGRATED:
            for pool, padding_slot in _REGISTERED_POOLS:
                for layer_buf in pool.k_buffer:
                    layer_buf[padding_slot] = torch.zeros(2, 4)
            _MIGRATED.append(value)
        return legacy[value]
''',
    "layout = KVLayout(self.layout_name)",
    init='self.layout_name = "nhd_paged_v0"', ret="layout.value",
    imports="import enum",
    setup="_REGISTERED_POOLS.clear()\n_MIGRATED.clear()\n_REGISTERED_POOLS.append((pool, 3))\nhelper = None")

# ---------------------------------------------------------------- library callbacks
F_LIB = "a library function or hook not used in rounds 7-13 calls engine code that writes the pool"

std("future_add_done_callback_runs_at_once", F_LIB,
    "disaggregated decode hooks the transfer's concurrent.futures.Future with add_done_callback; the "
    "transfer already finished, so the landing callback runs at once",
    '''
class KVReceiver:
    """PD disaggregation, decode side: one concurrent.futures.Future per KV transfer, resolved with the
    (slot, rows) that arrived in the staging buffer. Landing is hooked with add_done_callback."""

    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id
        self.futures = {}
        self.landed = []

    def land(self, future):
        loc, k_rows = future.result()
        self.pool.k_buffer[self.layer_id][loc] = k_rows
        self.landed.append(int(loc))
''',
    "self.helper.futures[self.rid].add_done_callback(self.helper.land)",
    init='self.rid = "req-0"', ret="self.helper.landed",
    imports="import concurrent.futures",
    setup=f"helper = KVReceiver(pool, 1)\nfut = concurrent.futures.Future()\n"
          f"fut.set_result((3, {ROW}))\nhelper.futures['req-0'] = fut")

std("torch_future_set_result_runs_then_callback", F_LIB,
    "an RPC-style KV pull: poll() sets the reply on a torch.futures.Future whose then() callback writes the "
    "rows into the pool",
    '''
class PrefixKVPull:
    """Pulls a prefix's KV from a peer (torch.distributed.rpc style). The reply future's then() callback
    writes the rows into the pool; poll() resolves the future once the reply has arrived."""

    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id
        self.reply = None
        self.future = torch.futures.Future()
        self.done = self.future.then(self._write_rows)

    def _write_rows(self, fut):
        loc, k_rows = fut.value()
        self.pool.k_buffer[self.layer_id][loc] = k_rows
        return loc

    def poll(self):
        if self.reply is not None and not self.future.done():
            self.future.set_result(self.reply)
        return self.future.done()
''',
    "arrived = self.helper.poll()",
    ret="arrived",
    setup=f"helper = PrefixKVPull(pool, 1)\nhelper.reply = (3, {ROW})")

std("warnings_showwarning_hook_rescales_saturated", F_LIB,
    "warnings.warn(FP8SaturationWarning) reaches a numerics watchdog's showwarning hook, which rescales "
    "the saturated slot in place",
    '''
class FP8SaturationWarning(UserWarning):
    pass


class NumericsWatchdog:
    """Installed around a step: catches FP8 saturation warnings raised by the kernels' host-side checks
    and halves the saturated slot's K in place (a cheap re-quantisation until the next calibration)."""

    def __init__(self, pool, layer_id, slot):
        self.pool = pool
        self.layer_id = layer_id
        self.slot = slot
        self.seen = []

    @contextlib.contextmanager
    def watch(self):
        with warnings.catch_warnings():
            warnings.simplefilter("always", FP8SaturationWarning)
            warnings.showwarning = self._on_warning
            yield self

    def _on_warning(self, message, category, filename, lineno, file=None, line=None):
        if issubclass(category, FP8SaturationWarning):
            row = self.pool.k_buffer[self.layer_id][self.slot]
            self.pool.k_buffer[self.layer_id][self.slot] = row.to(torch.float32) * 0.5
            self.seen.append(str(message))
''',
    """
if self.check_saturation:
    warnings.warn(f"layer {layer.layer_id}: K saturated at slot 3", FP8SaturationWarning)
""",
    init="self.check_saturation = True", ret="self.helper.seen",
    imports="import contextlib\nimport warnings",
    setup="helper = NumericsWatchdog(pool, 1, 3)", call_wrap="helper.watch()")

std("pickle_copyreg_reducer_materialises_handle", F_LIB,
    "pickle.dumps of the step output sent to the detokenizer: a copyreg reducer registered for the lazy KV "
    "handle materialises the offloaded row first",
    '''
class LazyKVHandle:
    """A request's offloaded KV row, brought back on demand. Shipped to another process it is reduced to
    its resident slot, so the reducer materialises it first."""

    def __init__(self, pool, layer_id, loc, host_row):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.host_row = host_row

    def materialise(self):
        if self.host_row is not None:
            self.pool.k_buffer[self.layer_id][self.loc] = self.host_row
            self.host_row = None
        return self.loc


def reduce_kv_handle(handle):
    return int, (handle.materialise(),)


class DetokenizerChannel:
    def __init__(self, handle):
        self.handle = handle
        self.outbox = []
''',
    """
payload = pickle.dumps({"rid": "req-0", "kv": self.helper.handle, "step": self.step})
self.helper.outbox.append(payload)
""",
    init="self.step = 7", ret="pickle.loads(payload)",
    imports="import copyreg\nimport pickle",
    setup=f"helper = DetokenizerChannel(LazyKVHandle(pool, 1, 3, {ROW}))\n"
          "copyreg.pickle(LazyKVHandle, reduce_kv_handle)",
    finally_="copyreg.dispatch_table.pop(LazyKVHandle, None)")

std("inspect_signature_wrapped_property_warms_kernel", F_LIB,
    "inspect.signature(decode_kernel) to check for a sinks argument: the lazy JIT kernel's __wrapped__ "
    "property compiles it and runs the warm-up launch, which writes the padding slot",
    '''
class LazyJitKernel:
    """A decode kernel compiled on first use (Triton / aiter style). The compiled function is exposed as
    __wrapped__; building it runs a warm-up launch on the registered pool's padding slot."""

    def __init__(self, pool, padding_slot):
        self.pool = pool
        self.padding_slot = padding_slot
        self._impl = None

    @property
    def __wrapped__(self):
        if self._impl is None:
            for layer_buf in self.pool.k_buffer:
                layer_buf[self.padding_slot] = torch.zeros(2, 4)

            def decode_attention(q, k_buffer, kv_indices, *, sm_scale, sinks=None):
                return None
            self._impl = decode_attention
        return self._impl

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)
''',
    'supports_sinks = "sinks" in inspect.signature(self.helper).parameters',
    ret="supports_sinks",
    imports="import inspect",
    setup="helper = LazyJitKernel(pool, 3)")

std("sched_run_nonblocking_deferred_free_scrub", F_LIB,
    "sched.scheduler.run(blocking=False) on the engine's step clock runs a due deferred free, which scrubs "
    "the freed slot",
    '''
class DeferredFrees:
    """Slots of finished requests are freed a few steps late (no in-flight step may still read them).
    A sched.scheduler keyed on the engine's step counter holds the frees; freeing scrubs the slot."""

    def __init__(self, pool):
        self.pool = pool
        self.step = 0
        self.queue = sched.scheduler(timefunc=lambda: self.step, delayfunc=lambda _: None)
        self.freed = []

    def free_later(self, step, locs):
        self.queue.enterabs(step, 0, self._free, (locs,))

    def _free(self, locs):
        for loc in locs:
            for layer_buf in self.pool.k_buffer:
                layer_buf[loc] = torch.zeros(2, 4)
            self.freed.append(loc)
''',
    """
self.helper.step = self.step_counter
self.helper.queue.run(blocking=False)
""",
    init="self.step_counter = 4", ret="self.helper.freed",
    imports="import sched",
    setup="helper = DeferredFrees(pool)\nhelper.free_later(3, [3])")

std("load_state_dict_post_hook_invalidates_prefix", F_LIB,
    "a LoRA adapter hot-swap with load_state_dict: a post-hook registered by the radix cache invalidates "
    "the prefix computed under the old adapter and scrubs its slots",
    '''
class LoRAAdapterSlot(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lora_A = torch.nn.Parameter(torch.zeros(2, 8))
        self.lora_B = torch.nn.Parameter(torch.zeros(8, 2))


class AdapterManager:
    """One resident adapter slot (S-LoRA style, tiny). The radix cache registers a load_state_dict
    post-hook: prefixes cached under the previous adapter are stale, their slots are scrubbed."""

    def __init__(self, pool, stale_prefix_slots):
        self.pool = pool
        self.adapter = LoRAAdapterSlot()
        self.active = "base"
        self.weights = {"sql": {"lora_A": torch.ones(2, 8), "lora_B": torch.ones(8, 2)}}
        self.stale_prefix_slots = list(stale_prefix_slots)
        self.adapter.register_load_state_dict_post_hook(self._invalidate_prefix)

    def _invalidate_prefix(self, module, incompatible_keys):
        for loc in self.stale_prefix_slots:
            for layer_buf in self.pool.k_buffer:
                layer_buf[loc] = torch.zeros(2, 4)
''',
    """
if self.helper.active != self.lora_id:
    self.helper.adapter.load_state_dict(self.helper.weights[self.lora_id])
    self.helper.active = self.lora_id
""",
    init='self.lora_id = "sql"', ret="self.helper.active",
    setup="helper = AdapterManager(pool, [3])")

std("state_dict_pre_hook_flushes_draft_kv", F_LIB,
    "a weight-version check calls the draft model's state_dict(); a state_dict pre-hook flushes the draft "
    "model's deferred KV into the shared pool first",
    '''
class DraftHead(torch.nn.Module):
    """An EAGLE draft head sharing the target's KV pool. Its KV writes are deferred to the end of the
    draft loop; a state_dict pre-hook flushes them so that an exported snapshot is consistent."""

    def __init__(self, pool):
        super().__init__()
        self.pool = pool
        self.fc = torch.nn.Linear(4, 4, bias=False)
        self.deferred = []
        self.register_state_dict_pre_hook(self._flush)

    @staticmethod
    def _flush(module, prefix, keep_vars):
        for layer_id, loc, k_row in module.deferred:
            module.pool.k_buffer[layer_id][loc] = k_row
        module.deferred.clear()


class DraftWorker:
    def __init__(self, pool):
        self.draft_model = DraftHead(pool)
''',
    "weight_keys = sorted(self.helper.draft_model.state_dict().keys())",
    ret="weight_keys",
    setup=f"helper = DraftWorker(pool)\nhelper.draft_model.deferred.append((1, 3, {ROW}))")

std("module_eval_train_override_rematerialises_sinks", F_LIB,
    "model.eval() after an RL weight update: a learned-sink submodule overrides train(), and leaving "
    "training mode writes its sink rows into the pool",
    '''
class LearnedSinkKV(torch.nn.Module):
    """Learned attention-sink KV (a parameter) materialised into the pool's sink slot. In training mode
    the sink is read from the parameter; leaving training mode re-materialises it into the pool."""

    def __init__(self, pool, layer_id, sink_slot):
        super().__init__()
        self.pool = pool
        self.layer_id = layer_id
        self.sink_slot = sink_slot
        self.sink_k = torch.nn.Parameter(torch.full((2, 4), 3.0))

    def train(self, mode=True):
        super().train(mode)
        if not mode:
            self.pool.k_buffer[self.layer_id][self.sink_slot] = self.sink_k.detach()
        return self


class PolicyModel(torch.nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.sinks = LearnedSinkKV(pool, 1, 3)
''',
    """
if self.helper.training:
    self.helper.eval()
""",
    ret="self.helper.training",
    setup="helper = PolicyModel(pool)\nhelper.train()")

# ---------------------------------------------------------------- aliases that look like copies
F_ALIAS = ("a store through a call that looks like a copy but returns the pool's own tensor (or a view of "
           "it), spelled in a way not used in rounds 7-13")

std("cpu_of_host_pool_is_the_pool", F_ALIAS,
    "a CPU backend stores the new token through pool.get_key_buffer(i).cpu(): the pool already lives on the "
    "host, so .cpu() returns the same tensor",
    "",
    """
k_host = self.token_to_kv_pool.get_key_buffer(layer.layer_id).cpu()
k_host[forward_batch.out_cache_loc] = self.helper.new_k.to(k_host.dtype)
""",
    setup=f"helper = type('StepInputs', (), {{'new_k': {ROW1}}})()")

std("contiguous_of_contiguous_layer_npu_store", F_ALIAS,
    "an NPU-style backend hands pool.get_key_buffer(i).contiguous() to its reshape-and-cache op "
    "(index_copy_): the layer is contiguous, so .contiguous() returns the pool's tensor",
    '''
def npu_reshape_and_cache(key, key_cache, slot_mapping):
    """torch_npu._npu_reshape_and_cache-like: writes key into key_cache at slot_mapping."""
    key_cache.index_copy_(0, slot_mapping, key.to(key_cache.dtype))
''',
    """
key_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id).contiguous()
npu_reshape_and_cache(self.helper.new_k, key_cache, forward_batch.out_cache_loc)
""",
    pool=BF16_POOL, cast=".float()",
    setup=f"helper = type('StepInputs', (), {{'new_k': {ROW1}}})()")

std("as_tensor_scrub_utility_on_pool_layer", F_ALIAS,
    "a scrub utility normalises its argument with torch.as_tensor (a no-op for a tensor of any dtype) and "
    "zeroes the freed slots of the pool's layer",
    '''
def scrub_slots(cache, locs):
    """Debug utility (accepts a tensor or a nested list)."""
    cache = torch.as_tensor(cache)
    cache[torch.as_tensor(locs, dtype=torch.long)] = 0.0
    return cache.shape[0]
''',
    "scrub_slots(self.token_to_kv_pool.get_key_buffer(layer.layer_id), self.helper.freed)",
    setup="helper = type('StepInputs', (), {'freed': [3]})()")

std("split_page_views_store_new_token", F_ALIAS,
    "a paged backend splits the layer into page views with .split(page_size) and stores the new token "
    "into its page",
    "",
    """
pages = self.token_to_kv_pool.get_key_buffer(layer.layer_id).split(self.page_size)
loc = int(forward_batch.out_cache_loc[0])
pages[loc // self.page_size][loc % self.page_size] = self.helper.new_k
""",
    init="self.page_size = 2",
    setup=f"helper = type('StepInputs', (), {{'new_k': {ROW}}})()")

std("to_storage_dtype_is_the_pool", F_ALIAS,
    "a generic store path casts the layer to the cache's storage dtype before writing: "
    ".to(self.kv_cache_dtype) of an FP8 layer to FP8 returns the pool's own tensor",
    "",
    """
cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(self.kv_cache_dtype)
cache[forward_batch.out_cache_loc] = self.helper.new_k.to(self.kv_cache_dtype)
""",
    init="self.kv_cache_dtype = token_to_kv_pool.dtype",
    setup=f"helper = type('StepInputs', (), {{'new_k': {ROW1}}})()")

# ---------------------------------------------------------------- the cast's dtype changed by other paths
F_DTYPE = ("the cast's dtype is read from state that code between the cast and the gather changes, through "
           "a path not used in rounds 7-13 (moved, the cast reads the new dtype)")

std("vars_update_config_overrides_dtype", F_DTYPE,
    "vars(model_config).update(overrides) applies pending config overrides (a hot reload) and sets "
    "kv_compute_dtype; the cast reads self.model_config.kv_compute_dtype",
    '''
class ModelConfig:
    def __init__(self):
        self.kv_compute_dtype = torch.bfloat16
        self.max_running_requests = 16


class ConfigReloader:
    def __init__(self, overrides):
        self.pending = dict(overrides)

    def pop_overrides(self):
        pending, self.pending = self.pending, {}
        return pending
''',
    "vars(self.model_config).update(self.helper.pop_overrides())",
    cast=".to(self.model_config.kv_compute_dtype)",
    init="self.model_config = ModelConfig()", ret="self.model_config.max_running_requests",
    setup="helper = ConfigReloader({'kv_compute_dtype': torch.float32, 'max_running_requests': 8})")

std("setattr_over_internal_state_updates_dtype", F_DTYPE,
    "a set_internal_state request applied with setattr(server_args, key, value) over its fields sets "
    "kv_compute_dtype; the cast reads self.server_args.kv_compute_dtype",
    '''
class ServerArgs:
    def __init__(self):
        self.kv_compute_dtype = torch.float16
        self.max_prefill_tokens = 4096


class InternalStateInbox:
    def __init__(self, requests):
        self.requests = list(requests)

    def drain(self):
        requests, self.requests = self.requests, []
        return requests
''',
    """
for request in self.helper.drain():
    for key, value in request.items():
        setattr(self.server_args, key, value)
""",
    cast=".to(self.server_args.kv_compute_dtype)",
    init="self.server_args = ServerArgs()", ret="self.server_args.max_prefill_tokens",
    setup="helper = InternalStateInbox([{'max_prefill_tokens': 2048, 'kv_compute_dtype': torch.float32}])")

std("nonlocal_fallback_closure_rebinds_dtype", F_DTYPE,
    "a nested fall_back_to_fp32 closure rebinds forward_decode's compute_dtype with nonlocal when the "
    "overflow check fires; the cast reads the local compute_dtype",
    '''
class OverflowCheck:
    def __init__(self, risky_layers):
        self.risky_layers = set(risky_layers)

    def at_risk(self, layer):
        return layer.layer_id in self.risky_layers
''',
    """
if self.helper.at_risk(layer):
    fall_back_to_fp32("k overflow risk")
""",
    pre="""
compute_dtype = self.compute_dtype

def fall_back_to_fp32(reason):
    nonlocal compute_dtype
    self.fallbacks.append(reason)
    compute_dtype = torch.float32
""",
    cast=".to(compute_dtype)",
    init="self.compute_dtype = torch.bfloat16\nself.fallbacks = []", ret="self.fallbacks",
    setup="helper = OverflowCheck([1])")

std("match_mapping_capture_rebinds_dtype", F_DTYPE,
    "a match statement over the planner's step plan captures compute_dtype in a mapping pattern "
    "({'kind': 'fp32_fallback', 'dtype': compute_dtype}); the cast reads the local compute_dtype",
    '''
class Planner:
    def __init__(self, plans):
        self.plans = dict(plans)

    def plan(self, layer):
        return self.plans.get(layer.layer_id, {"kind": "default"})
''',
    """
match self.helper.plan(layer):
    case {"kind": "fp32_fallback", "dtype": compute_dtype}:
        self.fallback_steps += 1
    case _:
        pass
""",
    pre="compute_dtype = torch.bfloat16",
    cast=".to(compute_dtype)",
    init="self.fallback_steps = 0", ret="self.fallback_steps",
    setup="helper = Planner({1: {'kind': 'fp32_fallback', 'dtype': torch.float32}})")

std("for_target_reuses_dtype_name", F_DTYPE,
    "sizing the split-KV workspace, a for loop over the accumulator dtypes reuses the name compute_dtype "
    "as its target; the cast reads the local compute_dtype",
    '''
class SplitKVPlanner:
    def __init__(self, accum_dtypes):
        self.accum_dtypes = list(accum_dtypes)
''',
    """
workspace_bytes = 0
for compute_dtype in self.helper.accum_dtypes:
    workspace_bytes += torch.empty((), dtype=compute_dtype).element_size() * forward_batch.batch_size * 8
""",
    pre="compute_dtype = self.compute_dtype",
    cast=".to(compute_dtype)",
    init="self.compute_dtype = torch.float16", ret="workspace_bytes",
    setup="helper = SplitKVPlanner([torch.bfloat16, torch.float32])")

std("autocast_dtype_scope_around_gather", F_DTYPE,
    "a CPU backend casts to torch.get_autocast_dtype('cpu') and runs the attention (the gather included) "
    "under the engine's torch.autocast('cpu', dtype=fp16) scope",
    "",
    "",
    fd="""
k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.get_autocast_dtype("cpu"))
kv_indices = forward_batch.kv_indices
with torch.autocast("cpu", dtype=self.helper.amp_dtype):
    k_sel = k[kv_indices]
    scores = (q.float() * k_sel.float()).sum(-1)
return k_sel, scores
""",
    setup="helper = type('EngineAmp', (), {'amp_dtype': torch.float16})()")

# ---------------------------------------------------------------- grad mode and released storage
std("no_grad_cast_of_trainable_prefix_pool",
    "grad mode: the cast runs under torch.no_grad() and the gather after it; the pool's layers are "
    "trainable Parameters (moved, the gathered rows require grad)",
    "an online prefix-tuning pool keeps its virtual-token KV as nn.Parameters; the backend makes its "
    "working copy under torch.no_grad() and gathers after the block",
    '''
class PrefixTuningPool(MHATokenToKVPool):
    """The prefix pool of an online P-tuning setup: each layer's K / V are trainable Parameters."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.k_buffer = [torch.nn.Parameter(b) for b in self.k_buffer]
        self.v_buffer = [torch.nn.Parameter(b) for b in self.v_buffer]
''',
    "",
    fd="""
with torch.no_grad():
    k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
kv_indices = forward_batch.kv_indices
return k[kv_indices], 0
""",
    pool="PrefixTuningPool(16, 2, 4, 2, dtype=torch.bfloat16)")

std("untyped_storage_resize_zero_releases_occupation",
    "a memory saver releases the KV pool's memory with untyped_storage().resize_(0) between the cast and "
    "the gather (moved, the gather reads a released storage and raises)",
    "an RL engine's abort-and-release request arrives mid-step: the memory saver releases the pool's "
    "storage with untyped_storage().resize_(0); the step finishes on its working copy",
    '''
class MemorySaver:
    """torch_memory_saver-like: release_memory_occupation frees the pool's storage in place (the tensors
    stay, their storage shrinks to 0 bytes) until resume."""

    def __init__(self, pool):
        self.pool = pool
        self.release_requested = False
        self.released = False

    def maybe_release(self):
        if self.release_requested and not self.released:
            for layer_buf in self.pool.k_buffer + self.pool.v_buffer:
                layer_buf.untyped_storage().resize_(0)
            self.released = True
        return self.released
''',
    "released = self.helper.maybe_release()",
    ret="released",
    setup="helper = MemorySaver(pool)\nhelper.release_requested = True",
    result='{"out": out, "released": helper.released}')
