# Hazard case bodies for make_cases.py (round 13): (name, family, doc, code). Each code block follows the
# shared header (toy FP8 pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch). Like rounds 7-12
# this round is realistic engine code, through yet other paths between the cast and the gather: dunders not
# used before on engine objects (__missing__ of a dict subclass, __dlpack__ under torch.from_dlpack, __float__,
# __length_hint__ under list(), __ior__, __imatmul__, __sizeof__ under sys.getsizeof), class-creation hooks
# (__set_name__, __mro_entries__), attribute and item lookups hidden in match class / mapping patterns and in a
# str.format field, an unconsumed generator expression's eagerly evaluated iterable, an except* handler,
# library callbacks (contextlib.closing, json.loads(object_hook=), itertools.groupby(key=), dataclasses.asdict
# deep-copying a field, a PEP 562 module __getattr__, a global module forward pre-hook,
# torch.func.functional_call with the pool bound as a module buffer), alias spellings not used before
# (torch.as_strided, unfold, .mT), the cast's own dtype argument (evaluated after the gather once moved: it
# writes, it records, it raises), dtype state changed through containers and caches (dict.setdefault, a frozen
# dataclass written with object.__setattr__, a cached_property dropped from __dict__, functools.cache
# cache_clear, a thread-local forward context), and torch.result_type read of the cast variable.
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
ROW1 = "torch.full((1, 2, 4), 3.0)"
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


# ---------------------------------------------------------------- dunders not used in rounds 7-12
F_DUNDER = ("a dunder not used in rounds 7-12, run by a builtin, an operator or a library call on an engine "
            "object, writes the pool: __missing__ of a block-table dict subclass (swap-in), __dlpack__ under "
            "torch.from_dlpack (a NIXL-style read descriptor completes its read), __float__ of a delayed FP8 "
            "K scale (requantises the layer), __length_hint__ under list() (the ready-chunk view polls its "
            "completion queue), __ior__ of a resident-page set (copies arrived pages in), __imatmul__ of a "
            "low-rank KV basis (re-projects live rows), __sizeof__ under sys.getsizeof (the host tier flushes "
            "its write-back)")

std("missing_block_table_swap_in", F_DUNDER,
    "`self.helper[rid]` on a block-table dict subclass whose __missing__ swaps the preempted request's blocks "
    "back in from the CPU tier",
    '''
class BlockTableCache(dict):
    """vLLM-style per-request block tables. A request preempted by swapping has no entry here; looking it
    up swaps its blocks back in from the CPU tier (the saved rows are copied into its GPU slots)."""

    def __init__(self, pool, cpu_tier):
        super().__init__()
        self.pool = pool
        self.cpu_tier = cpu_tier  # req_id -> [(layer_id, slot, host_row)]

    def __missing__(self, req_id):
        slots = []
        for layer_id, slot, host_row in self.cpu_tier.pop(req_id):
            self.pool.k_buffer[layer_id][slot] = host_row.to(self.pool.dtype)
            slots.append(slot)
        self[req_id] = slots
        return slots''',
    "block_ids = self.helper[forward_batch.rids[0]]",
    setup=f'fb.rids = ["req-7"]\nhelper = BlockTableCache(pool, {{"req-7": [(1, 3, {ROW})]}})', ret="block_ids")

std("from_dlpack_read_descriptor_completes", F_DUNDER,
    "torch.from_dlpack(descriptor) calls the NIXL-style read descriptor's __dlpack__, which completes the "
    "remote read into the pool before exporting the landed rows",
    '''
class NixlReadDescriptor:
    """A remote KV read posted by the decode worker. Exporting it through DLPack hands out the landed
    rows, so it completes the read (remote rows copied into the local slots) before exporting them."""

    def __init__(self, pool, layer_id, loc, remote_rows):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.remote_rows = remote_rows
        self.done = False

    def _complete(self):
        if not self.done:
            self.pool.k_buffer[self.layer_id][self.loc] = self.remote_rows.to(self.pool.dtype)
            self.done = True

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0

    def __dlpack__(self, *args, **kwargs):
        self._complete()
        landed = self.pool.k_buffer[self.layer_id][self.loc.min():self.loc.max() + 1]
        return landed.__dlpack__(*args, **kwargs)''',
    "landed = torch.from_dlpack(self.helper)",
    setup=f"helper = NixlReadDescriptor(pool, 1, torch.tensor([3]), {ROW1})", ret="landed")

std("float_delayed_k_scale_requantises", F_DUNDER,
    "float(layer.k_scale) on a delayed FP8 scale folds the amax history in and requantises the layer's "
    "cached K to the new scale",
    '''
class DelayedKScale:
    """Per-layer FP8 K scale with delayed calibration (TRT-LLM style): the amax history is folded into
    the scale the first time it is read as a number, and the layer's cached K is requantised to it."""

    def __init__(self, pool, layer_id, scale, calibrated):
        self.pool = pool
        self.layer_id = layer_id
        self.scale = scale
        self.pending = calibrated

    def __float__(self):
        if self.pending is not None:
            layer_k = self.pool.k_buffer[self.layer_id]
            requant = layer_k.float() * (self.scale / self.pending)
            layer_k.copy_(requant.to(layer_k.dtype))
            self.scale, self.pending = self.pending, None
        return float(self.scale)''',
    "sm_scale = layer.head_dim ** -0.5 * float(layer.k_scale)",
    setup="helper = DelayedKScale(pool, 1, 1.0, 2.0)", layer="RadixLayer(1, k_scale=helper)", ret="sm_scale")

std("list_length_hint_polls_ready_chunks", F_DUNDER,
    "list(ready_view) asks the receiver's ready-chunk view for __length_hint__, which polls the completion "
    "queue and lands every completed chunk",
    '''
class ReadyChunkView:
    """The KV receiver's view of a layer's arrived chunks (Mooncake style). It iterates over the chunks
    known to be ready; its length hint is exact because it polls the completion queue first, which lands
    every completed chunk into the pool."""

    def __init__(self, pool, layer_id, completions):
        self.pool = pool
        self.layer_id = layer_id
        self.completions = completions  # [(loc, rows)]
        self.ready = []

    def _poll(self):
        while self.completions:
            loc, rows = self.completions.pop(0)
            self.pool.k_buffer[self.layer_id][loc] = rows.to(self.pool.dtype)
            self.ready.append(int(loc.numel()))

    def __iter__(self):
        return self

    def __length_hint__(self):
        self._poll()
        return len(self.ready)

    def __next__(self):
        if not self.ready:
            raise StopIteration
        return self.ready.pop(0)''',
    "arrived = list(self.helper)",
    setup=f"helper = ReadyChunkView(pool, 1, [(torch.tensor([3]), {ROW1})])", ret="arrived")

std("ior_resident_pages_copy_in", F_DUNDER,
    "`self.helper |= forward_batch.arrived_pages` runs the resident-page set's __ior__, which copies the newly "
    "arrived pages in from the transfer engine's staging buffer",
    '''
class ResidentPageSet:
    """The decode worker's set of resident pages (PD disaggregation with a staged transfer): or-ing in
    the pages that arrived copies them from the staging buffer the transfer engine wrote."""

    def __init__(self, pool, layer_id, staging):
        self.pool = pool
        self.layer_id = layer_id
        self.staging = staging  # page -> rows
        self.pages = set()

    def __ior__(self, arrived):
        for page in sorted(arrived - self.pages):
            self.pool.k_buffer[self.layer_id][page] = self.staging[page].to(self.pool.dtype)
        self.pages |= arrived
        return self''',
    "self.helper |= forward_batch.arrived_pages",
    setup=f"fb.arrived_pages = {{3}}\nhelper = ResidentPageSet(pool, 1, {{3: {ROW}}})",
    ret="sorted(self.helper.pages)")

std("imatmul_low_rank_basis_reprojects_rows", F_DUNDER,
    "`self.helper @= forward_batch.basis_update` runs the low-rank KV basis's __imatmul__, which re-projects "
    "the live cached rows in place",
    '''
class LowRankKVBasis:
    """Online low-rank KV compression (Palu / eigen-attention style): cached K rows live in a learned
    basis; `basis @= rotation` refreshes the basis and re-projects the live rows so attention over them
    stays consistent."""

    def __init__(self, pool, layer_id, live_slots, basis):
        self.pool = pool
        self.layer_id = layer_id
        self.live_slots = live_slots
        self.basis = basis

    def __imatmul__(self, rotation):
        layer_k = self.pool.k_buffer[self.layer_id]
        for slot in self.live_slots:
            row = layer_k[slot].float().reshape(1, -1) @ rotation
            layer_k[slot] = row.reshape(2, 4).to(layer_k.dtype)
        self.basis = self.basis @ rotation
        return self''',
    "self.helper @= forward_batch.basis_update",
    setup="fb.basis_update = torch.eye(8).flip(0)\nhelper = LowRankKVBasis(pool, 1, [3], torch.eye(8))",
    ret="self.helper.basis[0]")

std("sizeof_host_tier_flushes_writeback", F_DUNDER,
    "sys.getsizeof(host_cache) for the memory monitor runs the HiCache host tier's __sizeof__, which flushes "
    "its pending write-back to the device pool first",
    '''
class HostKVTier:
    """HiCache host tier. Its __sizeof__ reports the footprint for the memory monitor; entries still being
    written back to the device are flushed first so they are not counted on both tiers."""

    def __init__(self, pool, entries):
        self.pool = pool
        self.entries = entries
        self.writeback = []

    def __sizeof__(self):
        for layer_id, slot, row in self.writeback:
            self.pool.k_buffer[layer_id][slot] = row.to(self.pool.dtype)
        self.writeback.clear()
        return object.__sizeof__(self) + 64 * len(self.entries)''',
    "host_bytes = sys.getsizeof(self.helper)",
    imports="import sys",
    setup=f"helper = HostKVTier(pool, [7, 8])\nhelper.writeback.append((1, 3, {ROW}))", ret="host_bytes > 0")

# ---------------------------------------------------------------- class-creation hooks
F_CLASS = ("a class statement inside forward_decode runs engine code at class creation: a descriptor "
           "field's __set_name__ reserves and clears the attention-sink slot; a base that is an instance runs "
           "its __mro_entries__, which warms the CUDA-graph bucket up (writing the padding slot)")

std("set_name_step_plan_sink_field", F_CLASS,
    "a per-step plan class defined in forward_decode names a SinkSlotField, whose __set_name__ reserves the "
    "layer's attention-sink slot and clears it",
    '''
class SinkSlotField:
    """A field of a decode step plan. Naming it in a plan class reserves the layer's attention-sink slot
    (StreamingLLM style) and clears it so the sink starts from zeros."""

    def __init__(self, pool, layer_id, slot):
        self.pool = pool
        self.layer_id = layer_id
        self.slot = slot

    def __set_name__(self, owner, name):
        self.pool.k_buffer[self.layer_id][self.slot].zero_()
        owner.reserved = (name, self.slot)

    def __get__(self, obj, objtype=None):
        return self.slot''',
    '''
class _StepPlan:
    sink = self.helper
    batch_size = forward_batch.batch_size
sink_slot = _StepPlan.sink''',
    setup="helper = SinkSlotField(pool, 1, 3)", ret="(_StepPlan.reserved, sink_slot)")

std("mro_entries_graph_bucket_warmup", F_CLASS,
    "`class _BucketPlan(self.helper)` with a CUDA-graph bucket spec as the base runs its __mro_entries__, "
    "which warms the bucket up (a dummy decode writes the padding slot)",
    '''
class CapturedPlan:
    """The plan class of a captured CUDA-graph bucket."""

    replayable = True


class GraphBucketSpec:
    """A CUDA-graph runner's spec for one batch-size bucket, usable as a base class (like a typing
    alias): subclassing it resolves to the captured plan class, and resolving makes sure the bucket was
    warmed up, which runs a dummy decode that writes the padding slot."""

    def __init__(self, pool, layer_id, pad_slot):
        self.pool = pool
        self.layer_id = layer_id
        self.pad_slot = pad_slot
        self.warmed = False

    def __mro_entries__(self, bases):
        if not self.warmed:
            self.pool.k_buffer[self.layer_id][self.pad_slot] = torch.zeros(2, 4).to(self.pool.dtype)
            self.warmed = True
        return (CapturedPlan,)''',
    '''
class _BucketPlan(self.helper):
    bs = forward_batch.batch_size''',
    setup="helper = GraphBucketSpec(pool, 1, 3)", ret="(_BucketPlan.__mro__[1].__name__, _BucketPlan.bs)")

# ---------------------------------------------------------------- lookups hidden in patterns and strings
F_LOOKUP = ("an attribute or item lookup that is not spelled as one runs engine code that writes the pool: "
            "a match class pattern's keyword (the spec-info's accept_length property commits the accepted "
            "draft K), a match mapping pattern (the plan-args Mapping's __getitem__ waits for the metadata "
            "copy, landing the staged K), a str.format replacement field `{1.num_loaded}` (the HiCache "
            "load-back handle's property completes the load)")

std("match_class_pattern_accept_length_commits", F_LOOKUP,
    "`case EagleVerifyInput(accept_length=n)` reads the spec-info's accept_length property, which commits the "
    "accepted draft tokens' K into their target slots",
    '''
class EagleVerifyInput:
    """Spec-decoding verify input. accept_length is known once verification ran; reading it commits the
    accepted draft tokens' K into their target slots (the EAGLE worker's lazy move of the draft KV)."""

    def __init__(self, pool, layer_id, tgt, draft_rows):
        self.pool = pool
        self.layer_id = layer_id
        self.tgt = tgt
        self.draft_rows = draft_rows
        self._accepted = None

    @property
    def accept_length(self):
        if self._accepted is None:
            self.pool.k_buffer[self.layer_id][self.tgt] = self.draft_rows.to(self.pool.dtype)
            self._accepted = int(self.tgt.numel())
        return self._accepted''',
    '''
match forward_batch.spec_info:
    case EagleVerifyInput(accept_length=n_accepted):
        pass
    case _:
        n_accepted = 0''',
    setup=f"fb.spec_info = EagleVerifyInput(pool, 1, torch.tensor([3]), {ROW1})\nhelper = None", ret="n_accepted")

std("match_mapping_pattern_plan_args_wait", F_LOOKUP,
    "`case {\"page_size\": ps, \"num_splits\": n}` on the plan-args Mapping looks its keys up; __getitem__ waits "
    "for the metadata builder's copy, which lands the K it staged",
    '''
import collections.abc


class PlanArgs(collections.abc.Mapping):
    """FlashInfer-style plan arguments produced by the metadata builder's async host-to-device copy.
    Reading any entry waits for that copy, which also lands the K the builder staged for this step."""

    def __init__(self, pool, layer_id, loc, rows, args):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.rows = rows
        self.args = args
        self.pending = True

    def _wait(self):
        if self.pending:
            self.pool.k_buffer[self.layer_id][self.loc] = self.rows.to(self.pool.dtype)
            self.pending = False

    def __getitem__(self, key):
        self._wait()
        return self.args[key]

    def __iter__(self):
        return iter(self.args)

    def __len__(self):
        return len(self.args)''',
    '''
match self.helper:
    case {"page_size": page_size, "num_splits": num_splits}:
        pass
    case _:
        page_size, num_splits = 1, 1''',
    setup=f'helper = PlanArgs(pool, 1, torch.tensor([3]), {ROW1}, {{"page_size": 1, "num_splits": 2}})',
    ret="(page_size, num_splits)")

std("str_format_field_completes_load_back", F_LOOKUP,
    "a trace line built with str.format reads `{1.num_loaded}` on the HiCache load-back handle; the "
    "property completes the load-back into the pool",
    '''
class LoadBackHandle:
    """HiCache load-back of a matched prefix from the host tier. num_loaded is final once the load-back
    finished, so reading it completes the copy into the device pool."""

    def __init__(self, pool, layer_id, loc, host_rows):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.host_rows = host_rows
        self._loaded = None

    @property
    def num_loaded(self):
        if self._loaded is None:
            self.pool.k_buffer[self.layer_id][self.loc] = self.host_rows.to(self.pool.dtype)
            self._loaded = int(self.loc.numel())
        return self._loaded''',
    'self.trace.append("layer {0.layer_id}: loaded {1.num_loaded} prefix tokens".format(layer, self.helper))',
    init="self.trace = []",
    setup=f"helper = LoadBackHandle(pool, 1, torch.tensor([3]), {ROW1})", ret="self.trace")

# ---------------------------------------------------------------- syntax that runs earlier than it reads
F_SYNTAX = ("syntax not used in rounds 7-12 runs the write: the outermost iterable of a generator expression "
            "is evaluated when the expression is made, although the generator is consumed only after the "
            "gather (the receiver's poll_completed lands the completed transfers); an except* handler of an "
            "ExceptionGroup from a grouped layer transfer restores the aborted chunk's backup row")

std("genexpr_outer_iterable_polls_completions", F_SYNTAX,
    "a token count kept as a generator expression over self.helper.poll_completed(...) (consumed only after "
    "the gather); its outermost iterable runs at once and lands the completed transfers",
    '''
import collections

Transfer = collections.namedtuple("Transfer", "loc rows")


class CompletionQueue:
    """The KV receiver's completion queue: poll_completed lands every completed transfer into the pool
    and returns them."""

    def __init__(self, pool, inflight):
        self.pool = pool
        self.inflight = inflight

    def poll_completed(self, layer_id):
        done, self.inflight = self.inflight, []
        for t in done:
            self.pool.k_buffer[layer_id][t.loc] = t.rows.to(self.pool.dtype)
        return done''',
    "landed_tokens = (int(t.loc.numel()) for t in self.helper.poll_completed(layer.layer_id))",
    setup=f"helper = CompletionQueue(pool, [Transfer(torch.tensor([3]), {ROW1})])", ret="sum(landed_tokens)")

std("except_star_group_restores_aborted_chunk", F_SYNTAX,
    "a grouped layer transfer raises an ExceptionGroup; the `except* ChunkAborted` handler restores each "
    "aborted chunk's backup row into its slot",
    '''
class ChunkAborted(Exception):
    def __init__(self, layer_id, slot, backup):
        super().__init__(f"chunk for slot {slot} aborted")
        self.layer_id = layer_id
        self.slot = slot
        self.backup = backup


class GroupedLayerTransfer:
    """Runs a layer's chunk transfers as a group (TaskGroup style) and raises an ExceptionGroup of the
    chunks that were aborted; each abort carries the row to restore."""

    def __init__(self, pool, aborted):
        self.pool = pool
        self.aborted = aborted  # [(slot, backup_row)]

    def run_layer(self, layer_id):
        errors = [ChunkAborted(layer_id, slot, backup) for slot, backup in self.aborted]
        if errors:
            raise ExceptionGroup("layer transfer failed", errors)

    def restore(self, err):
        self.pool.k_buffer[err.layer_id][err.slot] = err.backup.to(self.pool.dtype)''',
    '''
num_aborted = 0
try:
    self.helper.run_layer(layer.layer_id)
except* ChunkAborted as group:
    for err in group.exceptions:
        self.helper.restore(err)
        num_aborted += 1''',
    setup=f"helper = GroupedLayerTransfer(pool, [(3, {ROW})])", ret="num_aborted")

# ---------------------------------------------------------------- library calls that call back
F_LIB = ("a library function not used in rounds 7-12 calls engine code that writes the pool: "
         "contextlib.closing's exit calls the layer stream's close() (draining in-flight chunks), "
         "json.loads(object_hook=) decodes an inline KV record into its slots, itertools.groupby(key=) with a "
         "key that syncs each request's deferred append, dataclasses.asdict deep-copies a trace field whose "
         "__deepcopy__ lands a lazy KV handle, a PEP 562 module __getattr__ of a lazily built kernel module "
         "warms the op up on the padding slot, a global nn.Module forward pre-hook (a KV replay debugger) "
         "fires on the rotary module, torch.func.functional_call runs a gpt-fast style cache module with the "
         "pool's layer bound as its k_cache buffer")

std("contextlib_closing_layer_stream_drains", F_LIB,
    "`with contextlib.closing(connector.open_layer_stream(...)) as stream:` reads the header; on exit "
    "closing() calls stream.close(), which drains the chunks still in flight into the pool",
    '''
class LayerStream:
    """A Mooncake-style per-layer KV stream from the prefill worker; close() drains the chunks still in
    flight into the pool before releasing the connection."""

    def __init__(self, pool, layer_id, chunks, num_tokens):
        self.pool = pool
        self.layer_id = layer_id
        self.chunks = chunks
        self.num_tokens = num_tokens

    def header(self):
        return {"num_tokens": self.num_tokens, "layer_id": self.layer_id}

    def close(self):
        for loc, rows in self.chunks:
            self.pool.k_buffer[self.layer_id][loc] = rows.to(self.pool.dtype)
        self.chunks = []


class StreamConnector:
    def __init__(self, streams):
        self.streams = streams

    def open_layer_stream(self, layer_id):
        return self.streams[layer_id]''',
    '''
with contextlib.closing(self.helper.open_layer_stream(layer.layer_id)) as stream:
    num_tokens = stream.header()["num_tokens"]''',
    imports="import contextlib",
    setup=f"helper = StreamConnector({{1: LayerStream(pool, 1, [(torch.tensor([3]), {ROW1})], 9)}})",
    ret="num_tokens")

std("json_loads_object_hook_inline_kv", F_LIB,
    "json.loads(raw, object_hook=decoder.hook) on the prefill worker's step metadata; the hook writes an "
    "inline KV record (short prompts skip RDMA) into its slots as it decodes it",
    '''
class StepMetaDecoder:
    """Decodes the prefill worker's JSON step metadata. Records of kind "inline_kv" carry a small chunk
    inline (short prompts skip RDMA); the hook writes it into its slots as the record is decoded."""

    def __init__(self, pool, raw):
        self.pool = pool
        self.raw = raw

    def hook(self, record):
        if record.get("kind") == "inline_kv":
            rows = torch.tensor(record["rows"]).reshape(-1, 2, 4)
            self.pool.k_buffer[record["layer"]][torch.tensor(record["loc"])] = rows.to(self.pool.dtype)
            return {"kind": "inline_kv", "num_tokens": len(record["loc"])}
        return record''',
    "meta = json.loads(self.helper.raw, object_hook=self.helper.hook)",
    imports="import json",
    setup='raw = json.dumps({"step": 7, "chunks": [{"kind": "inline_kv", "layer": 1, "loc": [3], '
          '"rows": [3.0] * 8}]})\nhelper = StepMetaDecoder(pool, raw)',
    ret="meta")

std("groupby_key_syncs_deferred_append", F_LIB,
    "S-LoRA style batching groups the running requests with itertools.groupby(key=RunningReq.committed_adapter); "
    "the key syncs each request's deferred K append",
    '''
class RunningReq:
    """A running request whose last token's K append is deferred (overlap scheduler). Its adapter is read
    from its committed state, so asking for it syncs the deferred append first."""

    def __init__(self, pool, adapter, layer_id, slot, row):
        self.pool = pool
        self.adapter = adapter
        self.deferred = (layer_id, slot, row)

    def committed_adapter(self):
        if self.deferred is not None:
            layer_id, slot, row = self.deferred
            self.pool.k_buffer[layer_id][slot] = row.to(self.pool.dtype)
            self.deferred = None
        return self.adapter''',
    '''
lora_groups = []
for adapter, reqs in itertools.groupby(self.helper, key=RunningReq.committed_adapter):
    lora_groups.append((adapter, sum(1 for _ in reqs)))''',
    imports="import itertools",
    setup=f'helper = [RunningReq(pool, "sql-lora", 1, 3, {ROW}), RunningReq(pool, "sql-lora", 1, 5, {ROW})]',
    ret="lora_groups")

std("dataclasses_asdict_deepcopies_kv_handle", F_LIB,
    "dataclasses.asdict(step_trace) deep-copies the trace's kv_handle field; the lazy handle's __deepcopy__ "
    "lands its row so the snapshot is consistent",
    '''
import dataclasses


class LazyKVHandle:
    """A row the HiCache write-through has not landed yet. A deep copy must be consistent with the
    pool, so __deepcopy__ lands the row first and copies the handle's description."""

    def __init__(self, pool, layer_id, slot, row):
        self.pool = pool
        self.layer_id = layer_id
        self.slot = slot
        self.row = row

    def __deepcopy__(self, memo):
        if self.row is not None:
            self.pool.k_buffer[self.layer_id][self.slot] = self.row.to(self.pool.dtype)
            self.row = None
        return ("landed", self.layer_id, self.slot)


@dataclasses.dataclass
class StepTrace:
    step: int
    layer_id: int
    kv_handle: object''',
    "trace = dataclasses.asdict(self.helper)",
    setup=f"helper = StepTrace(7, 1, LazyKVHandle(pool, 1, 3, {ROW}))", ret="trace")

std("module_getattr_lazy_kernel_warmup", F_LIB,
    "`self.helper.paged_decode` on a lazily built kernel module (PEP 562 module __getattr__, aiter style) builds "
    "the op and warms it up on the padding slot",
    '''
import types


def make_lazy_kernel_module(pool, pad_slot):
    """An aiter-style op module for the ROCm backend: ops are built on first lookup through the module's
    __getattr__ (PEP 562), and a built op is warmed up once on the padding slot."""
    mod = types.ModuleType("fb13_rocm_decode_ops")

    def paged_decode(q, k_rows):
        return (q.float() * k_rows.float()).sum(-1)

    def __getattr__(name):
        if name == "paged_decode":
            pool.k_buffer[1][pad_slot] = torch.zeros(2, 4).to(pool.dtype)
            mod.paged_decode = paged_decode
            return paged_decode
        raise AttributeError(name)

    mod.__getattr__ = __getattr__
    return mod''',
    "decode_op = self.helper.paged_decode",
    setup="helper = make_lazy_kernel_module(pool, 3)", ret="decode_op.__name__")

std("global_module_forward_pre_hook_replays_row", F_LIB,
    "calling the rotary module fires a global forward pre-hook (register_module_forward_pre_hook) of a KV "
    "replay debugger, which restores a recorded row into the pool",
    '''
class RotaryEmbedding(torch.nn.Module):
    def forward(self, q):
        return torch.cat([-q[..., 2:], q[..., :2]], dim=-1)


class KVReplayDebugger:
    """Debug tool: replays recorded KV rows into the pool before the rotary module runs. It is registered
    globally with register_module_forward_pre_hook, so the modules themselves carry no hooks."""

    def __init__(self, pool, recording):
        self.pool = pool
        self.recording = recording

    def pre_hook(self, module, args):
        if isinstance(module, RotaryEmbedding) and self.recording:
            layer_id, slot, row = self.recording.pop(0)
            self.pool.k_buffer[layer_id][slot] = row.to(self.pool.dtype)''',
    "q_rot = self.rotary_emb(q)",
    init="self.rotary_emb = RotaryEmbedding()",
    setup=f"helper = KVReplayDebugger(pool, [(1, 3, {ROW})])\n"
          "_handle = torch.nn.modules.module.register_module_forward_pre_hook(helper.pre_hook)",
    finally_="_handle.remove()", ret="q_rot")

std("functional_call_binds_pool_as_cache_buffer", F_LIB,
    "torch.func.functional_call runs a gpt-fast style cache module with the target layer's pool buffer bound "
    "as its k_cache; its forward stores the new token's K",
    '''
class StaticKVCache(torch.nn.Module):
    """gpt-fast style KV cache module: forward stores the new token's K at input_pos into the k_cache
    buffer and returns the buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("k_cache", torch.zeros(16, 2, 4).to(torch.float8_e4m3fn), persistent=False)

    def forward(self, input_pos, k_val):
        self.k_cache[input_pos] = k_val.to(self.k_cache.dtype)
        return self.k_cache''',
    '''
k_new = torch.full((1, 2, 4), 3.0)
torch.func.functional_call(self.helper, {"k_cache": self.token_to_kv_pool.get_key_buffer(layer.layer_id)},
                           (forward_batch.out_cache_loc, k_new))''',
    setup="helper = StaticKVCache()")

# ---------------------------------------------------------------- alias spellings made right there
F_ALIAS = ("a store through an alias of the layer made right there, spelled in a way not used in rounds 7-12: a "
           "torch.as_strided paged window view (a sliding-window backend zeroes the slot that left the window), "
           "a Tensor.unfold page view (an NPU backend's [pages, H, D, page_size] layout scrubs a freed slot), "
           "the .mT property (a [tokens, D, H] layout stores the new token's K)")

std("as_strided_window_view_scrub", F_ALIAS,
    "a sliding-window backend makes a [pages, page_size, H, D] view with torch.as_strided and zeroes the slot "
    "that left the window",
    "",
    '''
layer_k = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
pages = torch.as_strided(layer_k, (16 // self.page_size, self.page_size, 2, 4), (self.page_size * 8, 8, 4, 1))
evicted = forward_batch.evicted_slots
pages[evicted // self.page_size, evicted % self.page_size] = 0''',
    init="self.page_size = 4", setup="fb.evicted_slots = torch.tensor([3])\nhelper = None")

std("unfold_page_view_scrub_freed", F_ALIAS,
    "an NPU backend's [pages, H, D, page_size] view made with unfold(0, ps, ps); a freed slot is scrubbed "
    "through it",
    "",
    '''
layer_k = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
pages = layer_k.unfold(0, self.page_size, self.page_size)
freed = forward_batch.freed_slot
pages[freed // self.page_size, ..., freed % self.page_size] = 0''',
    init="self.page_size = 4", setup="fb.freed_slot = 3\nhelper = None")

std("mt_layout_view_store_new_token", F_ALIAS,
    "a backend whose kernel writes a [tokens, D, H] layout stores the new token's K through the layer's .mT",
    "",
    '''
layer_k_dh = self.token_to_kv_pool.get_key_buffer(layer.layer_id).mT
k_new_dh = q[:1].mT
layer_k_dh[forward_batch.out_cache_loc] = k_new_dh.to(layer_k_dh.dtype)''')

# ---------------------------------------------------------------- the cast's own dtype argument
F_ARG = ("the cast's dtype argument is a call with an effect, and moved it runs after the gather: the "
         "planner's first query for a layer calibrates it (rescaling its FP8 rows in place), so the gather "
         "now reads uncalibrated rows; a mixed-precision policy records each decision and the code between "
         "sizes the workspace from the record; the dtype-name lookup raises KeyError before the step's "
         "req_to_token bookkeeping (moved, the bookkeeping is written first and the scheduler sees it)")

std("dtype_argument_first_query_calibrates", F_ARG,
    "`.to(self.helper.compute_dtype(layer))`: the planner's first query for a layer rescales its FP8 rows in "
    "place (lazy calibration); moved after the gather, the gather reads the rows before calibration",
    '''
class PrecisionPlanner:
    """Picks the compute dtype of a layer's K. The first query for a layer calibrates it: its FP8 rows
    are rescaled in place to the calibrated scale (TRT-LLM style lazy calibration)."""

    def __init__(self, pool):
        self.pool = pool
        self.calibrated = set()

    def compute_dtype(self, layer):
        if layer.layer_id not in self.calibrated:
            layer_k = self.pool.k_buffer[layer.layer_id]
            layer_k.copy_((layer_k.float() * 0.5).to(layer_k.dtype))
            self.calibrated.add(layer.layer_id)
        return torch.bfloat16''',
    "sm_scale = layer.head_dim ** -0.5",
    cast=".to(self.helper.compute_dtype(layer))", setup="helper = PrecisionPlanner(pool)", ret="sm_scale")

std("dtype_argument_decision_log_sizes_workspace", F_ARG,
    "`.to(self.helper.kv_dtype(layer.layer_id))` records the decision; the code between sizes the workspace "
    "from the recorded decisions (moved: none recorded yet)",
    '''
class MixedPrecisionPolicy:
    """Decides per layer whether K is upcast to bf16 or fp32 and records each decision; the step's
    workspace size is computed from the recorded decisions."""

    def __init__(self, fp32_layers):
        self.fp32_layers = fp32_layers
        self.decisions = []

    def kv_dtype(self, layer_id):
        dtype = torch.float32 if layer_id in self.fp32_layers else torch.bfloat16
        self.decisions.append((layer_id, dtype))
        return dtype

    def workspace_bytes(self, num_tokens):
        return sum(dtype.itemsize for _, dtype in self.decisions) * num_tokens * 8''',
    "workspace_bytes = self.helper.workspace_bytes(forward_batch.batch_size)",
    cast=".to(self.helper.kv_dtype(layer.layer_id))", setup="helper = MixedPrecisionPolicy({0})",
    ret="workspace_bytes")

case("dtype_name_keyerror_before_bookkeeping", F_ARG,
     "`.to(_KV_COMPUTE_DTYPES[self.kv_compute_dtype_name])` with a misconfigured name raises KeyError before "
     "the req_to_token bookkeeping; moved, the bookkeeping is written before the error and the scheduler, "
     "which catches the step's error, sees it", '''
_KV_COMPUTE_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


class DecodeBackend:
    def __init__(self, token_to_kv_pool, req_to_token, kv_compute_dtype_name):
        self.token_to_kv_pool = token_to_kv_pool
        self.req_to_token = req_to_token
        self.kv_compute_dtype_name = kv_compute_dtype_name

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(_KV_COMPUTE_DTYPES[self.kv_compute_dtype_name])
        kv_indices = forward_batch.kv_indices
        self.req_to_token[forward_batch.req_pool_idx, forward_batch.seq_len] = forward_batch.out_cache_loc
        return k[kv_indices], 0


class Scheduler:
    """Runs a decode step; a failed step is recorded and its batch aborted, the server keeps running."""

    def __init__(self, backend):
        self.backend = backend
        self.errors = []

    def run_step(self, q, layer, forward_batch):
        try:
            return self.backend.forward_decode(q, layer, forward_batch)
        except KeyError as e:
            self.errors.append(f"KeyError: {e}")
            return None


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    fb.req_pool_idx, fb.seq_len = 0, 2
    req_to_token = torch.zeros(4, 8, dtype=torch.int64)
    scheduler = Scheduler(DecodeBackend(pool, req_to_token, "fp8_e5m2"))
    out = scheduler.run_step(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "errors": scheduler.errors, "req_to_token": req_to_token, "k": pool.k_buffer}
''')

# ---------------------------------------------------------------- dtype state changed by code between
F_DTYPE = ("the cast's dtype is read from state that code between changes, through a path not used in rounds "
           "7-12: a per-layer override table filled by dict.setdefault (an overflow guard), a frozen "
           "ServerArgs dataclass written with object.__setattr__ (a precision fallback), a "
           "functools.cached_property dropped from the layer's __dict__ after a precision demotion, a "
           "functools.cache'd getter whose cache_clear() follows a hot config reload, a vLLM-style thread-local "
           "forward context switched by `with set_forward_context(draft_ctx)` around the gather")

std("dtype_override_table_setdefault_overflow", F_DTYPE,
    "`.to(self.helper.dtype_overrides.get(layer.layer_id, torch.bfloat16))`; an overflow guard between puts "
    "float32 for the layer with dict.setdefault",
    '''
class OverflowGuard:
    """Watches the query's range; a layer whose queries overflow bf16 attention is pinned to fp32 in the
    per-layer override table."""

    def __init__(self, threshold):
        self.threshold = threshold
        self.dtype_overrides = {}

    def check(self, layer_id, q):
        if float(q.float().abs().max()) > self.threshold:
            self.dtype_overrides.setdefault(layer_id, torch.float32)''',
    "self.helper.check(layer.layer_id, q)",
    cast=".to(self.helper.dtype_overrides.get(layer.layer_id, torch.bfloat16))",
    setup="helper = OverflowGuard(0.5)")

std("frozen_server_args_object_setattr_dtype", F_DTYPE,
    "`.to(self.server_args.kv_compute_dtype)` on a frozen dataclass; a precision fallback between writes the "
    "field with object.__setattr__",
    '''
import dataclasses


@dataclasses.dataclass(frozen=True)
class ServerArgs:
    kv_compute_dtype: torch.dtype = torch.bfloat16
    page_size: int = 1


class PrecisionFallback:
    """For layers known to be unstable in bf16, switches the engine's compute dtype to fp32. ServerArgs
    is frozen, so the fallback writes it the way dataclasses' own __init__ does."""

    def __init__(self, unstable_layers):
        self.unstable_layers = unstable_layers

    def maybe_fallback(self, server_args, layer):
        if layer.layer_id in self.unstable_layers:
            object.__setattr__(server_args, "kv_compute_dtype", torch.float32)''',
    "self.helper.maybe_fallback(self.server_args, layer)",
    cast=".to(self.server_args.kv_compute_dtype)", init="self.server_args = ServerArgs()",
    setup="helper = PrecisionFallback({1})")

std("cached_property_dtype_dropped_after_demotion", F_DTYPE,
    "`.to(layer.kv_compute_dtype)`, a functools.cached_property; a demotion between changes the layer's "
    "precision and drops the cached value from its __dict__ (moved, the property is computed fresh: fp32)",
    '''
import functools


class PrecisionLayer(RadixLayer):
    def __init__(self, layer_id, precision="bf16"):
        super().__init__(layer_id)
        self.precision = precision

    @functools.cached_property
    def kv_compute_dtype(self):
        return torch.float32 if self.precision == "fp32" else torch.bfloat16


class PrecisionDemoter:
    """Demotes layers whose attention went unstable to fp32 and invalidates their cached dtype."""

    def __init__(self, unstable_layers):
        self.unstable_layers = unstable_layers

    def demote(self, layer):
        if layer.layer_id in self.unstable_layers:
            layer.precision = "fp32"
            layer.__dict__.pop("kv_compute_dtype", None)''',
    "self.helper.demote(layer)",
    cast=".to(layer.kv_compute_dtype)", layer="PrecisionLayer(1)", setup="helper = PrecisionDemoter({1})")

std("functools_cache_dtype_getter_cleared_on_reload", F_DTYPE,
    "`.to(get_kv_compute_dtype())`, a functools.cache'd getter; a hot config reload between updates the "
    "runtime config and calls cache_clear()",
    '''
import functools

_RUNTIME_CONFIG = {"kv_compute_dtype": "bfloat16"}


@functools.cache
def get_kv_compute_dtype():
    return getattr(torch, _RUNTIME_CONFIG["kv_compute_dtype"])


class ConfigReloader:
    """Applies a config update pushed by the control plane and invalidates the cached getters."""

    def __init__(self, pending):
        self.pending = pending

    def apply_pending(self):
        if self.pending:
            _RUNTIME_CONFIG.update(self.pending)
            self.pending = None
            get_kv_compute_dtype.cache_clear()''',
    "self.helper.apply_pending()",
    cast=".to(get_kv_compute_dtype())",
    setup='_RUNTIME_CONFIG["kv_compute_dtype"] = "bfloat16"\nget_kv_compute_dtype.cache_clear()\n'
          'helper = ConfigReloader({"kv_compute_dtype": "float32"})')

case("forward_context_draft_scope_around_gather", F_DTYPE,
     "`.to(get_forward_context().kv_compute_dtype)` in the target's forward context; the MTP draft step "
     "gathers inside `with set_forward_context(self.draft_ctx)` (thread-local, vLLM style), so moved, the "
     "cast reads the draft context's dtype", '''
import contextlib
import threading

_FORWARD_CONTEXT = threading.local()


class ForwardContext:
    def __init__(self, name, kv_compute_dtype):
        self.name = name
        self.kv_compute_dtype = kv_compute_dtype


@contextlib.contextmanager
def set_forward_context(ctx):
    prev = getattr(_FORWARD_CONTEXT, "ctx", None)
    _FORWARD_CONTEXT.ctx = ctx
    try:
        yield ctx
    finally:
        _FORWARD_CONTEXT.ctx = prev


def get_forward_context():
    return _FORWARD_CONTEXT.ctx


class DecodeBackend:
    """The MTP draft layer shares the target layer's KV; its attention runs in the draft's forward
    context (fp32 compute)."""

    def __init__(self, token_to_kv_pool, draft_ctx):
        self.token_to_kv_pool = token_to_kv_pool
        self.draft_ctx = draft_ctx

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(get_forward_context().kv_compute_dtype)
        kv_indices = forward_batch.kv_indices
        with set_forward_context(self.draft_ctx) as ctx:
            draft_k = k[kv_indices]
            ran_in = ctx.name
        return draft_k, ran_in


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    backend = DecodeBackend(pool, ForwardContext("mtp_draft", torch.float32))
    with set_forward_context(ForwardContext("target", torch.bfloat16)):
        out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
''')

# ---------------------------------------------------------------- the cast variable read by a promotion query
F_READ = ("the cast variable is read by torch.result_type to pick the accumulation dtype; moved, k is the FP8 "
          "pool and the promotion raises (float8 types do not promote)")

std("result_type_of_q_and_k_picks_accumulator", F_READ,
    "`acc_dtype = torch.result_type(q, k)` picks the accumulation dtype from the operands; moved, k is the FP8 "
    "pool and the promotion raises",
    "",
    "acc_dtype = torch.result_type(q, k)", cast=".to(torch.bfloat16)", ret="acc_dtype")
