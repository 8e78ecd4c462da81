# Hazard case bodies for make_cases.py (round 7): (name, family, doc, code). Each code block follows the
# shared header (toy pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch). This round is
# realistic engine code: the code between the cast and the gather changes the pool (or the dtype, or the
# value that reaches the gather) through the indirections engines use - helper objects that share the
# pool, kernels handed pointers or page tables, hooks and callbacks, views made earlier, aliased layers,
# quantize helpers, deferred copies, allocators in the index, a second buffer from another branch.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "hazard", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def std(name, family, doc, prelude, between, setup="helper = None", cast=".to(torch.bfloat16)", ret="0",
        pool="MHATokenToKVPool(16, 2, 4, 2)", result='{"out": out, "k": pool.k_buffer}'):
    """The usual shape: an attention backend's forward_decode casts the layer's whole K buffer, runs
    `between` (which reaches the pool through `self.helper`, built in run_case by `setup`), gathers."""
    call = "    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)"
    case(name, family, doc, textwrap.dedent(prelude).strip("\n") + f'''


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
{_ind(between, 8)}
        return k[forward_batch.kv_indices], {ret}


def run_case(torch):
    pool = {pool}
{_ind(setup, 4)}
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
{call}
    return {result}
''')


# ================================================================ A. a helper object that shares the pool
FAM_OBJ = ("a helper object that holds the pool (KV-transfer connector, hierarchical/radix cache, offloader, "
           "speculative draft runner, CUDA-graph runner, disaggregation queue) stores this step's K between the "
           "cast and the gather through one of its methods")

std("connector_wait_for_layer_load", FAM_OBJ,
    "a layerwise KV connector's wait_for_layer_load(layer_id) commits the received K rows into the pool", '''
class LayerwiseKVConnector:
    """vLLM/LMCache-style layerwise connector: rows received for a layer are written on wait."""

    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.received = {}

    def start_load_kv(self, layer_id, loc, rows):
        self.received[layer_id] = (loc, rows)

    def wait_for_layer_load(self, layer_id):
        if layer_id not in self.received:
            return
        loc, rows = self.received.pop(layer_id)
        self.kv_pool.k_buffer[layer_id][loc] = rows.to(self.kv_pool.dtype)
''', "self.helper.wait_for_layer_load(layer.layer_id)", setup='''
helper = LayerwiseKVConnector(pool)
helper.start_load_kv(1, torch.tensor([3]), torch.full((1, 2, 4), 0.5))''')

std("hicache_load_back", FAM_OBJ,
    "a hierarchical cache controller's load_back copies host-pool pages into the device pool", '''
class HostKVPool:
    def __init__(self, size, head_num, head_dim, layer_num):
        self.k_host = [torch.full((size, head_num, head_dim), 0.5) for _ in range(layer_num)]


class HiCacheController:
    def __init__(self, mem_pool_device, mem_pool_host):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.ack_load_queue = []

    def load_back(self, layer_id, host_indices, device_indices):
        rows = self.mem_pool_host.k_host[layer_id][host_indices]
        self.mem_pool_device.k_buffer[layer_id][device_indices] = rows.to(self.mem_pool_device.dtype)
        self.ack_load_queue.append(len(device_indices))
''', "self.helper.load_back(layer.layer_id, torch.tensor([0]), forward_batch.out_cache_loc)",
    setup="helper = HiCacheController(pool, HostKVPool(8, 2, 4, 2))")

std("radix_match_prefix_reload", FAM_OBJ,
    "radix_cache.match_prefix(key) reloads an offloaded prefix page into the device pool and returns its slots", '''
class OffloadingRadixCache:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.evicted = {(11, 12): (torch.tensor([3]), torch.full((1, 2, 4), 0.5))}

    def match_prefix(self, key):
        hit = self.evicted.pop(tuple(key), None)
        if hit is None:
            return torch.empty(0, dtype=torch.int64)
        loc, rows = hit
        self.token_to_kv_pool.set_kv_buffer(1, loc, rows, rows)
        return loc
''', "prefix_indices = self.helper.match_prefix([11, 12])", ret="prefix_indices.numel()",
    setup="helper = OffloadingRadixCache(pool)")

std("eagle_draft_extend_shared_pool", FAM_OBJ,
    "an EAGLE draft worker that shares the target's token_to_kv_pool runs forward_draft_extend, which stores K", '''
class DraftModelRunner:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool


class EagleDraftWorker:
    def __init__(self, target_pool):
        self.draft_model_runner = DraftModelRunner(target_pool)
        self.speculative_num_steps = 2

    def forward_draft_extend(self, layer_id, out_cache_loc, hidden):
        k_new = hidden * 0 + 0.5
        self.draft_model_runner.token_to_kv_pool.set_kv_buffer(layer_id, out_cache_loc, k_new, k_new)
        return hidden.sum()
''', "self.helper.forward_draft_extend(layer.layer_id, forward_batch.out_cache_loc, q[:1])",
    setup="helper = EagleDraftWorker(pool)")

std("cuda_graph_replay_static_alias", FAM_OBJ,
    "a CUDA-graph runner whose captured static KV caches alias the pool's buffers copies its static inputs "
    "into them on replay()", '''
class CudaGraphRunner:
    def __init__(self, token_to_kv_pool, max_bs):
        self.static_k_caches = token_to_kv_pool.k_buffer
        self.static_out_cache_loc = torch.zeros(max_bs, dtype=torch.int64)
        self.static_k_input = torch.zeros(max_bs, 2, 4)

    def prepare(self, out_cache_loc, k_input):
        bs = out_cache_loc.numel()
        self.static_out_cache_loc[:bs] = out_cache_loc
        self.static_k_input[:bs] = k_input
        self.bs = bs

    def replay(self, layer_id):
        cache = self.static_k_caches[layer_id]
        cache[self.static_out_cache_loc[:self.bs]] = self.static_k_input[:self.bs].to(cache.dtype)
''', "self.helper.replay(layer.layer_id)", setup='''
helper = CudaGraphRunner(pool, 4)
helper.prepare(torch.tensor([3]), torch.full((1, 2, 4), 0.5))''')

std("host_offloader_evict_reload", FAM_OBJ,
    "an offloader's evict_and_reload(n) frees slot 3 to the host and reloads another request's page into it", '''
class KVOffloader:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.host = {}
        self.waiting = [(7, torch.full((2, 4), 0.5))]

    def evict_and_reload(self, slot):
        layer_k = self.kv_pool.get_key_buffer(1)
        self.host[slot] = layer_k[slot].clone()
        req_id, rows = self.waiting.pop()
        layer_k[slot] = rows.to(layer_k.dtype)
        return req_id
''', "req_id = self.helper.evict_and_reload(3)", ret="req_id", setup="helper = KVOffloader(pool)")

std("disagg_decode_pop_transferred", FAM_OBJ,
    "a PD-disaggregation decode queue's pop_transferred() commits KV that arrived from the prefill side", '''
class KVReceiver:
    def __init__(self, loc, rows):
        self.loc = loc
        self.rows = rows

    def poll(self):
        return "success"


class DecodeTransferQueue:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.queue = []

    def add(self, receiver):
        self.queue.append(receiver)

    def pop_transferred(self):
        done = [r for r in self.queue if r.poll() == "success"]
        for r in done:
            self.token_to_kv_pool.set_kv_buffer(1, r.loc, r.rows, r.rows)
        self.queue = [r for r in self.queue if r not in done]
        return len(done)
''', "n_ready = self.helper.pop_transferred()", ret="n_ready", setup='''
helper = DecodeTransferQueue(pool)
helper.add(KVReceiver(torch.tensor([3]), torch.full((1, 2, 4), 0.5)))''')

std("save_kv_through_forward_batch", FAM_OBJ,
    "a save_kv_cache helper stores through forward_batch.token_to_kv_pool.set_kv_buffer (the same pool the "
    "backend read as self.token_to_kv_pool)", '''
class KVSaver:
    def save_kv_cache(self, layer, forward_batch, k, v):
        forward_batch.token_to_kv_pool.set_kv_buffer(layer.layer_id, forward_batch.out_cache_loc, k, v)
''', '''
k_new = torch.full((1, 2, 4), 0.5, dtype=torch.bfloat16)
self.helper.save_kv_cache(layer, forward_batch, k_new, k_new)''', setup="helper = KVSaver()")


# ================================================================ B. kernels handed pointers / page tables
FAM_PTR = ("a kernel-like function handed a raw address (data_ptr), a pointer table or a block table writes "
           "the pool: ctypes.memmove to a registered address (a transfer engine), a Triton-style "
           "kernel[grid](ptrs...) resolving pointers, reshape_and_cache through a block table, a uint8 tensor "
           "set_ on the buffer's storage, a DLPack round trip")

std("transfer_engine_memmove_data_ptr", FAM_PTR,
    "a transfer engine registered the pool's data_ptr()s at init; transfer_sync memmoves received bytes to "
    "ptr + slot * item_len", '''
import ctypes


class MooncakeLikeTransferEngine:
    def __init__(self, kv_pool):
        self.kv_data_ptrs = [buf.data_ptr() for buf in kv_pool.k_buffer]
        self.kv_item_lens = [buf[0].numel() * buf.element_size() for buf in kv_pool.k_buffer]
        self.staging = torch.full((2, 4), 0.5).to(kv_pool.dtype)

    def transfer_sync(self, layer_id, slot):
        dst = self.kv_data_ptrs[layer_id] + slot * self.kv_item_lens[layer_id]
        ctypes.memmove(dst, self.staging.data_ptr(), self.kv_item_lens[layer_id])
        return 0
''', "status = self.helper.transfer_sync(layer.layer_id, 3)", ret="status",
    setup="helper = MooncakeLikeTransferEngine(pool)")

std("triton_style_kernel_ptr_table", FAM_PTR,
    "a Triton-style store_kvcache[grid](k_cache_ptr, loc, src) launch; the 'kernel' resolves the pointer through "
    "the device-memory table", '''
_DEVICE_MEMORY = {}


def register(t):
    _DEVICE_MEMORY[t.data_ptr()] = t
    return t.data_ptr()


class _Kernel:
    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, grid):
        return lambda *args: self.fn(grid, *args)


def _store_kvcache(grid, k_cache_ptr, loc_ptr, src_ptr):
    cache, loc, src = _DEVICE_MEMORY[k_cache_ptr], _DEVICE_MEMORY[loc_ptr], _DEVICE_MEMORY[src_ptr]
    for pid in range(grid[0]):
        cache[loc[pid]] = src[pid].to(cache.dtype)


store_kvcache = _Kernel(_store_kvcache)


class KernelLauncher:
    def __init__(self, kv_pool):
        self.k_ptrs = [register(b) for b in kv_pool.k_buffer]
''', '''
loc_ptr = register(forward_batch.out_cache_loc)
src_ptr = register(torch.full((1, 2, 4), 0.5))
store_kvcache[(1,)](self.helper.k_ptrs[layer.layer_id], loc_ptr, src_ptr)''', setup='''
_DEVICE_MEMORY.clear()
helper = KernelLauncher(pool)''')

std("reshape_and_cache_block_table", FAM_PTR,
    "vLLM-style reshape_and_cache(key, key_cache, slot_mapping) computed from a block table writes the layer's "
    "cache viewed as [blocks, block_size, heads, dim]", '''
def reshape_and_cache(key, key_cache, slot_mapping, block_size):
    blocks = key_cache.view(-1, block_size, key_cache.shape[-2], key_cache.shape[-1])
    for i, slot in enumerate(slot_mapping.tolist()):
        blocks[slot // block_size, slot % block_size] = key[i].to(key_cache.dtype)


class BlockTable:
    def __init__(self, kv_pool, block_size):
        self.kv_pool = kv_pool
        self.block_size = block_size
        self.block_table = torch.tensor([[0, 2]])

    def slot_mapping(self, req, positions):
        blk = self.block_table[req, positions // self.block_size]
        return blk * self.block_size + positions % self.block_size

    def store(self, layer_id, req, positions, key):
        reshape_and_cache(key, self.kv_pool.k_buffer[layer_id], self.slot_mapping(req, positions), self.block_size)
''', "self.helper.store(layer.layer_id, 0, torch.tensor([3]), torch.full((1, 2, 4), 0.5))",
    setup="helper = BlockTable(pool, 4)")

std("uint8_tensor_set_on_storage", FAM_PTR,
    "a memory-saver helper built a uint8 tensor on the buffer's untyped_storage() at init; restore() writes "
    "the saved bytes of slot 3 through it", '''
class MemorySaverRegion:
    def __init__(self, kv_pool, layer_id):
        storage = kv_pool.k_buffer[layer_id].untyped_storage()
        self.raw = torch.empty(0, dtype=torch.uint8).set_(storage)
        self.saved = {3: torch.full((8,), 0x30, dtype=torch.uint8)}

    def restore(self, item_bytes):
        for slot, data in self.saved.items():
            self.raw[slot * item_bytes:(slot + 1) * item_bytes] = data
''', "self.helper.restore(8)", setup="helper = MemorySaverRegion(pool, 1)")

std("dlpack_exported_buffer", FAM_PTR,
    "a connector exported the pool through DLPack at init (what NIXL/Mooncake register); a receive writes "
    "the imported tensor", '''
from torch.utils import dlpack


class DLPackKVRegion:
    def __init__(self, kv_pool, layer_id):
        self.region = dlpack.from_dlpack(dlpack.to_dlpack(kv_pool.k_buffer[layer_id]))

    def on_recv(self, slot, rows):
        self.region[slot] = rows.to(self.region.dtype)
''', "self.helper.on_recv(3, torch.full((2, 4), 0.5))", setup="helper = DLPackKVRegion(pool, 1)")


# ================================================================ C. hooks and callbacks registered earlier
FAM_HOOK = ("a hook or callback registered earlier runs the store: an nn.Module forward hook / forward "
            "pre-hook on a projection called between, a layer-end callback list of a connector, an event bus")

std("module_forward_hook_commits_kv", FAM_HOOK,
    "o = self.helper(q) calls an nn.Linear whose forward hook (registered by the KV saver) commits the staged K", '''
class StagedKV:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool

    def commit_hook(self, module, args, output):
        self.kv_pool.k_buffer[1][3] = 0.5
''', "o = self.helper(q.float().reshape(2, 8))", ret="o.shape[-1]", setup='''
helper = torch.nn.Linear(8, 8)
helper.register_forward_hook(StagedKV(pool).commit_hook)''')

std("module_forward_pre_hook_commits_kv", FAM_HOOK,
    "rope = self.helper(positions) calls a rotary module whose forward pre-hook writes the pool", '''
class RotaryEmbedding(torch.nn.Module):
    def forward(self, positions):
        return positions * 2


def make_pre_hook(kv_pool):
    def pre_hook(module, args):
        kv_pool.set_kv_buffer(1, torch.tensor([3]), torch.full((1, 2, 4), 0.5), torch.full((1, 2, 4), 0.5))
    return pre_hook
''', "pos = self.helper(torch.tensor([3, 1]))", ret="pos.sum().item()", setup='''
helper = RotaryEmbedding()
helper.register_forward_pre_hook(make_pre_hook(pool))''')

std("layer_end_callbacks", FAM_HOOK,
    "self.helper.on_layer_end(layer_id) runs callbacks a connector registered at init; one flushes a staged row", '''
class LayerHooks:
    def __init__(self):
        self.callbacks = []

    def register(self, fn):
        self.callbacks.append(fn)

    def on_layer_end(self, layer_id):
        for fn in self.callbacks:
            fn(layer_id)


class StagingFlusher:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.staged = {1: (torch.tensor([3]), torch.full((1, 2, 4), 0.5))}

    def __call__(self, layer_id):
        if layer_id in self.staged:
            loc, rows = self.staged.pop(layer_id)
            self.kv_pool.set_kv_buffer(layer_id, loc, rows, rows)
''', "self.helper.on_layer_end(layer.layer_id)", setup='''
helper = LayerHooks()
helper.register(StagingFlusher(pool))''')

std("event_bus_partial", FAM_HOOK,
    "self.helper.emit('pre_attn', layer_id): a functools.partial subscribed earlier writes the pool", '''
import functools


class EventBus:
    def __init__(self):
        self.subscribers = {}

    def subscribe(self, event, fn):
        self.subscribers.setdefault(event, []).append(fn)

    def emit(self, event, *args):
        for fn in self.subscribers.get(event, []):
            fn(*args)


def write_back(kv_pool, loc, layer_id):
    kv_pool.k_buffer[layer_id][loc] = 0.5
''', "self.helper.emit('pre_attn', layer.layer_id)", setup='''
helper = EventBus()
helper.subscribe("pre_attn", functools.partial(write_back, pool, 3))''')


# ================================================================ D. a store into a view made earlier
FAM_VIEW = ("a store into a view of the buffer created earlier (not spelled on the pool): a paged "
            "[pages, page_size, ...] view, a uint8 reinterpretation, the per-layer views of one contiguous "
            "allocation written through the whole, a lazily made staging narrow(), a flatten() view, an MLA "
            "value buffer that is a slice of the latent buffer")

std("paged_view_store", FAM_VIEW,
    "a paged allocator keeps pool.k_buffer[l].view(pages, page_size, H, D); write_page stores through it", '''
class PagedAllocator:
    def __init__(self, kv_pool, page_size):
        self.page_size = page_size
        self.k_pages = [b.view(-1, page_size, b.shape[1], b.shape[2]) for b in kv_pool.k_buffer]

    def write_page(self, layer_id, page, offset, rows):
        self.k_pages[layer_id][page, offset] = rows.to(self.k_pages[layer_id].dtype)
''', "self.helper.write_page(layer.layer_id, 0, 3, torch.full((2, 4), 0.5))",
    setup="helper = PagedAllocator(pool, 4)")

std("uint8_view_store", FAM_VIEW,
    "an FP8 pool's bytes viewed as uint8 at init (for the transfer path); a byte store of 0x30 (0.5) into slot 3", '''
class ByteView:
    def __init__(self, kv_pool):
        self.k_bytes = [b.view(torch.uint8) for b in kv_pool.k_buffer]

    def write_bytes(self, layer_id, slot, value):
        self.k_bytes[layer_id][slot] = value
''', "self.helper.write_bytes(layer.layer_id, 3, 0x30)", setup="helper = ByteView(pool)")


std("contiguous_allocation_unbind", FAM_VIEW,
    "the pool allocates one [layers, size, H, D] tensor and hands out unbind(0) views; a layerwise loader "
    "writes through the whole allocation", '''
class ContiguousKVPool(MHATokenToKVPool):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.k_data = torch.stack(self.k_buffer)
        self.k_buffer = list(self.k_data.unbind(0))


class WholeCacheLoader:
    def __init__(self, kv_pool):
        self.k_data = kv_pool.k_data

    def load(self, layer_id, slot, rows):
        self.k_data[layer_id, slot] = rows.to(self.k_data.dtype)
''', "self.helper.load(layer.layer_id, 3, torch.full((2, 4), 0.5))", setup="helper = WholeCacheLoader(pool)",
    pool="ContiguousKVPool(16, 2, 4, 2)")

std("lazy_staging_narrow", FAM_VIEW,
    "a lazily allocated staging buffer is pool.k_buffer[l].narrow(0, 0, 8) (no copy); the first staged "
    "write lands in the pool", '''
class ChunkedPrefillStager:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self._stage = None

    def stage(self, layer_id):
        if self._stage is None:
            self._stage = self.kv_pool.k_buffer[layer_id].narrow(0, 0, 8)
        return self._stage

    def stage_rows(self, layer_id, offset, rows):
        stage = self.stage(layer_id)
        stage[offset] = rows.to(stage.dtype)
''', "self.helper.stage_rows(layer.layer_id, 3, torch.full((2, 4), 0.5))",
    setup="helper = ChunkedPrefillStager(pool)")

std("flatten_view_store", FAM_VIEW,
    "a token-major flatten(0, 1) view of the layer buffer kept for a head-parallel copy; rows 6..7 are slot 3", '''
class HeadParallelCopier:
    def __init__(self, kv_pool, layer_id):
        self.rows = kv_pool.k_buffer[layer_id].flatten(0, 1)

    def copy_heads(self, start, src):
        self.rows[start:start + src.shape[0]] = src.to(self.rows.dtype)
''', "self.helper.copy_heads(6, torch.full((2, 4), 0.5))", setup="helper = HeadParallelCopier(pool, 1)")

case("mla_value_slice_of_latent", FAM_VIEW,
     "an MLA pool's get_value_buffer is kv_buffer[l][..., :kv_lora_rank] (a view); set_v_buffer stores V and so "
     "changes the cast K (latent) buffer", '''
class MLATokenToKVPool:
    def __init__(self, size, kv_lora_rank, qk_rope_head_dim, layer_num, dtype=torch.float8_e4m3fn):
        g = torch.Generator().manual_seed(0)
        self.dtype = dtype
        self.kv_lora_rank = kv_lora_rank
        self.kv_buffer = [torch.randn(size, 1, kv_lora_rank + qk_rope_head_dim, generator=g).to(dtype)
                          for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id]

    def get_value_buffer(self, layer_id):
        return self.kv_buffer[layer_id][..., :self.kv_lora_rank]

    def set_v_buffer(self, layer_id, loc, cache_v):
        self.get_value_buffer(layer_id)[loc] = cache_v.to(self.dtype)


class MLABackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        v_new = torch.full((1, 1, 4), 0.5, dtype=torch.bfloat16)
        self.token_to_kv_pool.set_v_buffer(layer.layer_id, forward_batch.out_cache_loc, v_new)
        return k[forward_batch.kv_indices]


def run_case(torch):
    pool = MLATokenToKVPool(16, 4, 2, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    out = MLABackend(pool).forward_decode(_rand((2, 1, 6), 5), RadixLayer(1), fb)
    return {"out": out, "kv": pool.kv_buffer}
''')


# ================================================================ E. layers that alias each other
FAM_ALIAS = ("a second layer aliases the first (cross-layer KV sharing, a draft model sharing a target layer's "
             "buffer): storing the other layer's K is storing the cast one")

std("cross_layer_kv_sharing", FAM_ALIAS,
    "a KV-sharing pool maps layer 1 onto layer 0's buffer (kv_sharing_target_layer); the backend stores layer 0's K", '''
class SharedKVPool(MHATokenToKVPool):
    def __init__(self, *args, kv_sharing=None, **kwargs):
        super().__init__(*args, **kwargs)
        for layer_id, target in (kv_sharing or {}).items():
            self.k_buffer[layer_id] = self.k_buffer[target]
            self.v_buffer[layer_id] = self.v_buffer[target]
''', '''
rows = torch.full((1, 2, 4), 0.5)
forward_batch.token_to_kv_pool.set_kv_buffer(0, forward_batch.out_cache_loc, rows, rows)''',
    pool="SharedKVPool(16, 2, 4, 2, kv_sharing={1: 0})")

std("mtp_draft_shares_target_layer", FAM_ALIAS,
    "an MTP draft pool whose only layer is the target's layer 1 buffer; the draft step stores into draft layer 0", '''
class DraftKVPool(MHATokenToKVPool):
    def __init__(self, target_pool, target_layers):
        self.dtype = target_pool.dtype
        self.size = target_pool.size
        self.k_buffer = [target_pool.k_buffer[i] for i in target_layers]
        self.v_buffer = [target_pool.v_buffer[i] for i in target_layers]


class MTPDraftStep:
    def __init__(self, draft_pool):
        self.draft_pool = draft_pool

    def run(self, out_cache_loc):
        rows = torch.full((1, 2, 4), 0.5)
        self.draft_pool.set_kv_buffer(0, out_cache_loc, rows, rows)
''', "self.helper.run(forward_batch.out_cache_loc)", setup="helper = MTPDraftStep(DraftKVPool(pool, [1]))")


# ================================================================ F. in-place quantize / requantize helpers
FAM_QUANT = ("an in-place quantize/requantize helper of a quantized cache writes the buffer: a per-layer scale "
             "update that requantizes the layer in place, scaled_fp8_quant(..., output=<a narrow of the pool>), "
             "a quantized pool's set_kv_buffer that also writes the scales")

std("requantize_layer_inplace", FAM_QUANT,
    "a KV quantizer's update_scale(layer_id, new) requantizes the whole layer in place with the new scale", '''
class KVCacheQuantizer:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.k_scale = [1.0, 1.0]

    def update_scale(self, layer_id, new_scale):
        data = self.kv_pool.k_buffer[layer_id]
        ratio = self.k_scale[layer_id] / new_scale
        data.copy_((data.to(torch.float32) * ratio).to(data.dtype))
        self.k_scale[layer_id] = new_scale
''', "self.helper.update_scale(layer.layer_id, 2.0)", setup="helper = KVCacheQuantizer(pool)")

std("scaled_fp8_quant_output_narrow", FAM_QUANT,
    "scaled_fp8_quant(k_new, scale, output=pool.k_buffer[l].narrow(0, loc, 1)) quantizes straight into the pool", '''
def scaled_fp8_quant(x, scale, output=None):
    q = (x / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    if output is None:
        return q
    output.copy_(q.reshape(output.shape))
    return output


class FP8Writer:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool

    def quant_store(self, layer_id, loc, k_new, scale):
        scaled_fp8_quant(k_new, scale, output=self.kv_pool.k_buffer[layer_id].narrow(0, loc, 1))
''', "self.helper.quant_store(layer.layer_id, 3, torch.full((2, 4), 1.0), 2.0)", setup="helper = FP8Writer(pool)")

case("quantized_pool_store_with_scales", FAM_QUANT,
     "a quantized pool's set_kv_buffer writes the FP8 rows and their scales; the backend casts K, stores, then "
     "gathers K and the scales", '''
class QuantizedKVPool(MHATokenToKVPool):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.k_scale_buffer = [torch.ones(self.size, 1, 1) for _ in self.k_buffer]

    def get_key_scale_buffer(self, layer_id):
        return self.k_scale_buffer[layer_id]

    def set_kv_buffer(self, layer_id, loc, cache_k, cache_v):
        amax = cache_k.abs().amax(dim=(-1, -2), keepdim=True).clamp(min=1e-6)
        scale = amax / 448.0
        self.k_scale_buffer[layer_id][loc] = scale
        self.k_buffer[layer_id][loc] = (cache_k / scale).to(self.dtype)
        self.v_buffer[layer_id][loc] = (cache_v / scale).to(self.dtype)


class QuantDecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward_decode(self, q, k_new, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
        self.token_to_kv_pool.set_kv_buffer(layer.layer_id, forward_batch.out_cache_loc, k_new, k_new)
        scales = self.token_to_kv_pool.get_key_scale_buffer(layer.layer_id)[forward_batch.kv_indices]
        return k[forward_batch.kv_indices] * scales


def run_case(torch):
    pool = QuantizedKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    out = QuantDecodeBackend(pool).forward_decode(_rand((2, 2, 4), 5), torch.full((1, 2, 4), 0.5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "scales": pool.k_scale_buffer}
''')


# ================================================================ G. deferred copies flushed by a read-looking call
FAM_ASYNC = ("a simulated async copy (a queue of pending writes, a stream, an event, a lazy future, a layerwise "
             "load generator) is completed by a call that reads like a query: get_num_finished(), "
             "stream.synchronize(), event.query(), future.result(), next(loader)")

std("pending_writes_flushed_by_num_finished", FAM_ASYNC,
    "an async KV loader queued the write at schedule time; get_num_finished() completes pending copies", '''
class AsyncKVLoader:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.pending = []
        self.finished = 0

    def submit(self, layer_id, loc, rows):
        self.pending.append((layer_id, loc, rows))

    def get_num_finished(self):
        while self.pending:
            layer_id, loc, rows = self.pending.pop(0)
            self.kv_pool.k_buffer[layer_id][loc] = rows.to(self.kv_pool.dtype)
            self.finished += 1
        return self.finished
''', "n_done = self.helper.get_num_finished()", ret="n_done", setup='''
helper = AsyncKVLoader(pool)
helper.submit(1, torch.tensor([3]), torch.full((1, 2, 4), 0.5))''')

std("load_stream_synchronize", FAM_ASYNC,
    "self.helper.load_stream.synchronize(): a simulated copy stream runs the copies enqueued on it", '''
class SimStream:
    def __init__(self):
        self.work = []

    def enqueue(self, fn):
        self.work.append(fn)

    def synchronize(self):
        work, self.work = self.work, []
        for fn in work:
            fn()


class LayerLoader:
    def __init__(self, kv_pool):
        self.load_stream = SimStream()
        dst = kv_pool.k_buffer[1]
        src = torch.full((2, 4), 0.5).to(kv_pool.dtype)
        self.load_stream.enqueue(lambda: dst[3].copy_(src))
''', "self.helper.load_stream.synchronize()", setup="helper = LayerLoader(pool)")

std("event_query_completes_copy", FAM_ASYNC,
    "if self.helper.done_event.query(): ... - a simulated CUDA event whose query() completes the recorded copy", '''
class SimEvent:
    def __init__(self, on_complete):
        self.on_complete = on_complete
        self.completed = False

    def query(self):
        if not self.completed:
            self.on_complete()
            self.completed = True
        return True


class OffloadStep:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.done_event = SimEvent(self._land)

    def _land(self):
        self.kv_pool.k_buffer[1][3] = 0.5
''', '''
ready = self.helper.done_event.query()
if not ready:
    raise RuntimeError("load not finished")''', setup="helper = OffloadStep(pool)")

std("lazy_future_result", FAM_ASYNC,
    "rows_loaded = self.helper.fetch(layer_id).result(): a lazy transfer future runs the copy on result()", '''
class LazyTransfer:
    def __init__(self, fn):
        self.fn = fn
        self.value = None

    def result(self):
        if self.fn is not None:
            self.value, self.fn = self.fn(), None
        return self.value


class StorageBackend:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool

    def fetch(self, layer_id):
        def copy():
            self.kv_pool.k_buffer[layer_id][3] = 0.5
            return 1
        return LazyTransfer(copy)
''', "rows_loaded = self.helper.fetch(layer.layer_id).result()", ret="rows_loaded",
    setup="helper = StorageBackend(pool)")

std("layerwise_load_generator", FAM_ASYNC,
    "next(self.helper.layer_loader): a layerwise KV-load generator resumes and loads the next layer's rows", '''
def layerwise_loader(kv_pool, rows_per_layer):
    for layer_id, (loc, rows) in enumerate(rows_per_layer):
        kv_pool.k_buffer[layer_id][loc] = rows.to(kv_pool.dtype)
        yield layer_id


class LoaderHolder:
    def __init__(self, kv_pool):
        rows = [(torch.tensor([5]), torch.full((1, 2, 4), 0.25)), (torch.tensor([3]), torch.full((1, 2, 4), 0.5))]
        self.layer_loader = layerwise_loader(kv_pool, rows)
        next(self.layer_loader)
''', "loaded = next(self.helper.layer_loader)", ret="loaded", setup="helper = LoaderHolder(pool)")


# ================================================================ H. the index is computed after the cast, and writes
FAM_INDEX = ("the gather's index is computed after the cast by engine code that writes the pool: an allocator "
             "call inside the subscript (alloc evicts and reloads), a lookup that loads a page, a lazily "
             "materialised metadata property")

case("alloc_inside_subscript", FAM_INDEX,
     "get_key_buffer(l).to(bf16)[self.allocator.alloc_with_reload(2)]: the allocator (called after the cast) "
     "reloads a page into slot 3 and returns its slots", '''
class ReloadingAllocator:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool

    def alloc_with_reload(self, n):
        self.kv_pool.k_buffer[1][3] = 0.5
        return torch.tensor([3, 1])[:n]


class ExtendBackend:
    def __init__(self, token_to_kv_pool, allocator):
        self.token_to_kv_pool = token_to_kv_pool
        self.allocator = allocator

    def forward_extend(self, layer):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[self.allocator.alloc_with_reload(2)]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = ExtendBackend(pool, ReloadingAllocator(pool)).forward_extend(RadixLayer(1))
    return {"out": out, "k": pool.k_buffer}
''')

std("index_select_of_loading_lookup", FAM_INDEX,
    "rows = k.index_select(0, self.helper.lookup(req)): the req-to-token lookup loads the host page first", '''
class ReqToTokenWithHost:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.req_to_token = {0: torch.tensor([3, 1])}
        self.on_host = {0: True}

    def lookup(self, req):
        if self.on_host.pop(req, False):
            self.kv_pool.k_buffer[1][3] = 0.5
        return self.req_to_token[req]
''', "rows = k.index_select(0, self.helper.lookup(0))", ret="rows", setup="helper = ReqToTokenWithHost(pool)")

case("lazy_metadata_property_index", FAM_INDEX,
     "k[forward_batch.kv_indices] where kv_indices is a lazily materialised property whose first read "
     "commits the deferred store", '''
class LazyForwardBatch:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self._kv_indices = None
        self.deferred = [(torch.tensor([3]), torch.full((1, 2, 4), 0.5))]

    @property
    def kv_indices(self):
        if self._kv_indices is None:
            for loc, rows in self.deferred:
                self.token_to_kv_pool.set_kv_buffer(1, loc, rows, rows)
            self.deferred = []
            self._kv_indices = torch.tensor([3, 1])
        return self._kv_indices


class DecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward_decode(self, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
        return k[forward_batch.kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = DecodeBackend(pool).forward_decode(RadixLayer(1), LazyForwardBatch(pool))
    return {"out": out, "k": pool.k_buffer}
''')


# ================================================================ I. the dtype expression is re-evaluated later
FAM_DTYPE = ("the cast's dtype is an attribute that engine code between changes: init_forward_metadata sets "
             "the backend's q_data_type, a layer's kv dtype is switched by a precision switch of the runner")

case("init_forward_metadata_sets_dtype", FAM_DTYPE,
     "k = pool.get_key_buffer(l).to(self.q_data_type); self.init_forward_metadata(batch) sets q_data_type "
     "from the batch (fp16 for a spec-verify batch)", '''
class FlashInferLikeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.q_data_type = torch.bfloat16

    def init_forward_metadata(self, forward_batch):
        self.q_data_type = torch.float16 if forward_batch.forward_mode == "target_verify" else torch.bfloat16
        self.num_tokens = forward_batch.batch_size

    def forward(self, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(self.q_data_type)
        self.init_forward_metadata(forward_batch)
        return k[forward_batch.kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]), forward_mode="target_verify")
    out = FlashInferLikeBackend(pool).forward(RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
''')

std("layer_dtype_switched_by_runner", FAM_DTYPE,
    "k = ...to(layer.kv_compute_dtype); self.helper.maybe_switch_precision(layer) (a model runner's "
    "fallback) sets it to float32", '''
class PrecisionSwitch:
    def __init__(self):
        self.fallback_layers = {1}

    def maybe_switch_precision(self, layer):
        if layer.layer_id in self.fallback_layers:
            layer.kv_compute_dtype = torch.float32


class TypedLayer(RadixLayer):
    kv_compute_dtype = torch.bfloat16
''', "self.helper.maybe_switch_precision(layer)", setup="helper = PrecisionSwitch()",
    cast=".to(layer.kv_compute_dtype)")
# std passes RadixLayer(1); this case needs TypedLayer: patched below
CASES[-1] = CASES[-1][:4] + (CASES[-1][4].replace("RadixLayer(1), fb)", "TypedLayer(1), fb)"),)


# ================================================================ J. a second buffer reaches the gather
FAM_JOIN = ("the cast variable joins a second buffer from another branch (an if/else on the forward mode, a "
            "try/except fallback, a match on the attention kind, a per-layer loop that keeps the first "
            "layer's cast): moving the cast to the gather converts the other branch's buffer too, or a "
            "later layer reads the stored rows")

case("if_else_prefix_staging_buffer", FAM_JOIN,
     "decode: k = pool K .float(); extend: k = the bf16 prefix staging buffer; wrapper.run(q, k[idx]) - moved, "
     "the extend path's bf16 rows become float32", '''
class PrefixStager:
    def __init__(self):
        self.prefix_k = _rand((16, 2, 4), 11)


class PlanRunWrapper:
    def plan(self, kv_indices):
        self.kv_indices = kv_indices

    def run(self, q, k_rows):
        return k_rows


class Backend:
    def __init__(self, token_to_kv_pool, stager):
        self.token_to_kv_pool = token_to_kv_pool
        self.stager = stager
        self.wrapper = PlanRunWrapper()

    def forward(self, q, layer, forward_batch):
        if forward_batch.forward_mode == "decode":
            k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
        else:
            k = self.stager.prefix_k
        self.wrapper.plan(forward_batch.kv_indices)
        return self.wrapper.run(q, k[forward_batch.kv_indices])


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]), forward_mode="extend")
    out = Backend(pool, PrefixStager()).forward(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
''')

case("try_except_draft_pool_fallback", FAM_JOIN,
     "try: k = draft pool K .to(bf16) except IndexError: k = the target's fp32 K mirror; moved, the fallback's "
     "fp32 rows are rounded to bf16", '''
class DraftBackend:
    def __init__(self, draft_pool, target_mirror):
        self.draft_pool = draft_pool
        self.target_mirror = target_mirror

    def forward_draft(self, layer, forward_batch):
        try:
            k = self.draft_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        except IndexError:
            k = self.target_mirror[layer.layer_id]
        return k[forward_batch.kv_indices]


def run_case(torch):
    draft_pool = MHATokenToKVPool(16, 2, 4, 1)
    mirror = [_rand((16, 2, 4), 20 + i, torch.float32) for i in range(2)]
    fb = ForwardBatch(draft_pool, torch.tensor([3, 1]))
    out = DraftBackend(draft_pool, mirror).forward_draft(RadixLayer(1), fb)
    return {"out": out, "k": draft_pool.k_buffer}
''')

case("match_attention_kind", FAM_JOIN,
     "match layer kind: 'full' -> pool K .half(); 'sliding' -> the CUDA-graph static bf16 window buffer; moved, "
     "the sliding path's rows become fp16", '''
class HybridBackend:
    def __init__(self, token_to_kv_pool, static_window_k):
        self.token_to_kv_pool = token_to_kv_pool
        self.static_window_k = static_window_k

    def forward(self, layer, kind, forward_batch):
        match kind:
            case "full":
                k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).half()
            case _:
                k = self.static_window_k
        return k[forward_batch.kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]))
    out = HybridBackend(pool, _rand((16, 2, 4), 9) * 1000).forward(RadixLayer(1), "sliding", fb)
    return {"out": out, "k": pool.k_buffer}
''')

case("per_layer_loop_keeps_first_cast", FAM_JOIN,
     "a decode loop over steps casts K once (step 0) and stores each step's K after wrapper.run; step 1 reads "
     "the step-0 snapshot - moved, it reads the stored rows", '''
class MultiStepDecoder:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def run_steps(self, layer, forward_batch, num_steps):
        outs = []
        for step in range(num_steps):
            if step == 0:
                k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
            outs.append(k[forward_batch.kv_indices])
            rows = torch.full((1, 2, 4), 0.5 * (step + 1))
            self.token_to_kv_pool.set_kv_buffer(layer.layer_id, forward_batch.out_cache_loc, rows, rows)
        return outs


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    out = MultiStepDecoder(pool).run_steps(RadixLayer(1), fb, 2)
    return {"out": out, "k": pool.k_buffer}
''')


# ================================================================ K. context managers and in-place swaps
FAM_CTX = ("a context manager of the engine commits on exit (a transfer guard, a contextlib generator "
           "around a layer), or a resume of released memory copies the backup back into the buffer in place")

std("transfer_guard_exit_commits", FAM_CTX,
    "with self.helper.layer_guard(layer_id): ... - the guard's __exit__ commits the staged K row", '''
class LayerGuard:
    def __init__(self, kv_pool, layer_id):
        self.kv_pool = kv_pool
        self.layer_id = layer_id

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kv_pool.k_buffer[self.layer_id][3] = 0.5
        return False


class TransferManager:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool

    def layer_guard(self, layer_id):
        return LayerGuard(self.kv_pool, layer_id)
''', '''
with self.helper.layer_guard(layer.layer_id):
    n_tokens = forward_batch.batch_size''', ret="n_tokens", setup="helper = TransferManager(pool)")

std("contextmanager_generator_after_yield", FAM_CTX,
    "with self.helper.capture_layer(layer_id): ... - a contextlib.contextmanager writes after its yield", '''
import contextlib


class CaptureHelper:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool

    @contextlib.contextmanager
    def capture_layer(self, layer_id):
        yield
        self.kv_pool.set_kv_buffer(layer_id, torch.tensor([3]), torch.full((1, 2, 4), 0.5),
                                   torch.full((1, 2, 4), 0.5))
''', '''
with self.helper.capture_layer(layer.layer_id):
    bs = forward_batch.batch_size''', ret="bs", setup="helper = CaptureHelper(pool)")

std("memory_saver_resume_copy_back", FAM_CTX,
    "self.helper.resume_memory_occupation(): a released KV region is restored by copy_ from its host backup", '''
class MemoryOccupation:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.backup = None

    def release(self):
        self.backup = [b.clone() for b in self.kv_pool.k_buffer]
        self.backup[1][3] = torch.full((2, 4), 0.5).to(self.kv_pool.dtype)

    def resume_memory_occupation(self):
        for live, saved in zip(self.kv_pool.k_buffer, self.backup):
            live.copy_(saved)
''', "self.helper.resume_memory_occupation()", setup='''
helper = MemoryOccupation(pool)
helper.release()''')
