# Hazard case bodies for make_cases.py (round 8): (name, family, doc, code). Each code block follows the
# shared header (toy pool, ForwardBatch, RadixLayer, _rand) and defines run_case(torch). Like round 7 this
# round is realistic engine code, but through other engine paths: chunked prefill loops, piecewise CUDA
# graphs, simulated tensor/pipeline-parallel collectives writing in place, arenas shared with MoE / Mamba /
# LoRA / sampler workspaces, allocators reusing freed slots within a step, prefix-cache eviction and
# compression, speculative / beam-search KV moves, NaN guards, StreamingLLM re-rotation, overlap threads,
# retry / exception paths, weight-update cache flushes.
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


BF16_POOL = "MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)"

# ================================================================ A. chunked prefill
FAM_CHUNK = ("a chunked-prefill loop between the cast and the gather stores each chunk's K (a store_kvcache-style "
             "free function handed the cache tensors, a chunk iterator whose __next__ commits the previous chunk)")

std("chunked_prefill_store_kvcache_fn", FAM_CHUNK,
    "a chunked-prefill loop calls a store_kvcache(k_cache, v_cache, loc, k, v) free function per chunk", '''
def store_kvcache(k_cache, v_cache, loc, cache_k, cache_v):
    """sglang-style store kernel wrapper: writes the chunk's rows into the caches handed to it."""
    k_cache[loc] = cache_k.to(k_cache.dtype)
    v_cache[loc] = cache_v.to(v_cache.dtype)
''', '''
chunk_size = 1
extend_k = torch.full((2, 2, 4), 0.5)
extend_loc = torch.tensor([3, 9])
k_cache, v_cache = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
for start in range(0, extend_loc.numel(), chunk_size):
    sl = slice(start, start + chunk_size)
    store_kvcache(k_cache, v_cache, extend_loc[sl], extend_k[sl], extend_k[sl])''')

std("chunked_prefill_iterator_commits_previous", FAM_CHUNK,
    "iterating a ChunkedPrefill plan: each __next__ commits the previous chunk's K into the pool", '''
class ChunkedPrefillPlan:
    """Yields chunk boundaries; advancing commits the K of the chunk just processed (a lazy commit)."""

    def __init__(self, pool, layer_id, loc, rows, chunk):
        self.pool, self.layer_id, self.loc, self.rows, self.chunk = pool, layer_id, loc, rows, chunk
        self.pos = 0
        self.pending = None

    def __iter__(self):
        return self

    def __next__(self):
        if self.pending is not None:
            loc, rows = self.pending
            self.pool.k_buffer[self.layer_id][loc] = rows.to(self.pool.dtype)
            self.pending = None
        if self.pos >= self.loc.numel():
            raise StopIteration
        sl = slice(self.pos, self.pos + self.chunk)
        self.pending = (self.loc[sl], self.rows[sl])
        self.pos += self.chunk
        return sl
''', '''
n_chunks = 0
for _sl in self.helper:
    n_chunks += 1''', ret="n_chunks", setup='''
helper = ChunkedPrefillPlan(pool, 1, torch.tensor([3, 8]), torch.full((2, 2, 4), 0.5), 1)''')

# ================================================================ B. piecewise CUDA graphs
FAM_PIECE = ("a piecewise-CUDA-graph runner runs its list of pieces between the cast and the gather; the attention "
             "splitting op (a closure over the pool) or a piece's static-output copy writes the pool")

std("piecewise_graph_splitting_op_closure", FAM_PIECE,
    "a piecewise runner's pieces include the eager attention splitting op, a closure over the pool that stores K", '''
def make_unified_attention_op(kv_pool, layer_id, loc):
    def unified_attention_with_output(hidden):
        kv_pool.k_buffer[layer_id][loc] = hidden[: loc.numel()].to(kv_pool.dtype)
        return hidden
    return unified_attention_with_output


class PiecewiseGraphRunner:
    """vLLM-style piecewise graph: captured pieces around eager splitting ops."""

    def __init__(self, pieces):
        self.pieces = pieces

    def __call__(self, hidden):
        for piece in self.pieces:
            hidden = piece(hidden)
        return hidden
''', "hidden = self.helper(torch.full((1, 2, 4), 0.25))", ret="hidden", setup='''
helper = PiecewiseGraphRunner([lambda h: h * 2, make_unified_attention_op(pool, 1, torch.tensor([3])), lambda h: h + 0])''')

std("piecewise_graph_static_output_into_cache", FAM_PIECE,
    "a piece's replay copies its static output buffer into the destination registered at capture (a slot of the pool)", '''
class CapturedPiece:
    """A captured piece whose replay writes its static output to the tensor it was bound to at capture."""

    def __init__(self, static_out, bind_to):
        self.static_out = static_out
        self.bind_to = bind_to

    def replay(self, x):
        self.static_out.copy_(x * 2)
        self.bind_to.copy_(self.static_out.to(self.bind_to.dtype))
        return self.static_out
''', "y = self.helper.replay(torch.full((2, 4), 0.25))", ret="y", setup='''
helper = CapturedPiece(torch.empty(2, 4), pool.k_buffer[1][3])''')

# ================================================================ C. simulated TP / PP / CP collectives
FAM_COLL = ("a simulated collective writes into its output tensor in place, and that tensor is (a view of) the pool: "
            "all_gather_into_tensor of head shards, an in-place all_reduce (context-parallel merge), a broadcast "
            "from rank 0, a pipeline-parallel recv of the prefix KV, a reduce_scatter_tensor")

COLL_PRELUDE = '''
class FakeProcessGroup:
    """Single-process stand-in for torch.distributed: the other ranks' tensors are held here."""

    def __init__(self, world_size, peer_tensors):
        self.world_size = world_size
        self.peer_tensors = peer_tensors
        self.mailbox = {}


def all_gather_into_tensor(output_tensor, input_tensor, group):
    parts = [input_tensor] + [p.to(input_tensor.dtype) for p in group.peer_tensors]
    output_tensor.copy_(torch.cat(parts, dim=1).to(output_tensor.dtype))


def all_reduce(tensor, group):
    total = tensor.float()
    for p in group.peer_tensors:
        total = total + p.float()
    tensor.copy_(total.to(tensor.dtype))


def broadcast(tensor, src, group):
    if src != 0:
        tensor.copy_(group.peer_tensors[src - 1].to(tensor.dtype))


def recv(tensor, src, group):
    tensor.copy_(group.mailbox.pop(src).to(tensor.dtype))


def reduce_scatter_tensor(output, input, group):
    total = input.float()
    for p in group.peer_tensors:
        total = total + p.float()
    output.copy_(total.chunk(group.world_size, dim=0)[0].to(output.dtype))
'''

std("tp_all_gather_heads_into_pool", FAM_COLL,
    "all_gather_into_tensor(output=<the layer's K rows>, input=local head shard) fills the pool's rows in place",
    COLL_PRELUDE, '''
local = torch.full((16, 1, 4), 0.5)
all_gather_into_tensor(self.token_to_kv_pool.get_key_buffer(layer.layer_id), local, self.helper)''', setup='''
helper = FakeProcessGroup(2, [torch.full((16, 1, 4), -0.5)])''')

std("cp_all_reduce_merges_kv_inplace", FAM_COLL,
    "context parallel: all_reduce(pool K buffer) sums the ranks' partial KV into the pool in place",
    COLL_PRELUDE, '''
all_reduce(self.token_to_kv_pool.get_key_buffer(layer.layer_id), group=self.helper)''', pool=BF16_POOL,
    cast=".float()", setup='''
helper = FakeProcessGroup(2, [torch.full((16, 2, 4), 0.5)])''')

std("broadcast_kv_from_src_rank", FAM_COLL,
    "broadcast(pool K buffer, src=1): a non-zero source rank's KV is copied into this rank's buffer",
    COLL_PRELUDE, '''
src_rank = 1
broadcast(self.token_to_kv_pool.k_buffer[layer.layer_id], src=src_rank, group=self.helper)''', setup='''
helper = FakeProcessGroup(2, [torch.full((16, 2, 4), 0.5)])''')

std("pp_recv_prefix_kv_narrow", FAM_COLL,
    "pipeline parallel: recv(tensor=pool K narrow(0, 2, 2), src=prev_rank) fills prefix slots 2..3", COLL_PRELUDE, '''
prev_rank = 0
recv(self.token_to_kv_pool.get_key_buffer(layer.layer_id).narrow(0, 2, 2), src=prev_rank, group=self.helper)''',
    setup='''
helper = FakeProcessGroup(2, [])
helper.mailbox[0] = torch.full((2, 2, 4), 0.5)''')

std("reduce_scatter_into_pool_rows", FAM_COLL,
    "reduce_scatter_tensor(output=pool K rows 0..7, input=partial) writes this rank's reduced shard in place",
    COLL_PRELUDE, '''
partial = torch.full((16, 2, 4), 0.25)
reduce_scatter_tensor(self.token_to_kv_pool.get_key_buffer(layer.layer_id)[:8], partial, group=self.helper)''',
    pool=BF16_POOL, cast=".float()", setup='''
helper = FakeProcessGroup(2, [torch.full((16, 2, 4), 0.25)])''')

# ================================================================ D. one arena shared with other subsystems
FAM_ARENA = ("the KV pool is carved from one byte arena that another subsystem also uses in the same step: the MoE "
             "expert workspace, a hybrid model's Mamba conv state, an S-LoRA unified page pool loading an adapter, "
             "the sampler's probability workspace; that subsystem's write lands on gathered slots")

ARENA_POOL = '''
class ArenaKVPool(MHATokenToKVPool):
    """One preallocated bf16 arena; each layer's K/V buffer is a view of it (unified memory planning)."""

    def __init__(self, size, head_num, head_dim, layer_num, dtype=torch.bfloat16):
        super().__init__(size, head_num, head_dim, layer_num, dtype=dtype)
        per = size * head_num * head_dim
        self.arena = torch.empty(2 * layer_num * per, dtype=dtype)
        for i in range(layer_num):
            kv = self.arena[2 * i * per:(2 * i + 2) * per].view(2, size, head_num, head_dim)
            kv[0].copy_(self.k_buffer[i])
            kv[1].copy_(self.v_buffer[i])
            self.k_buffer[i] = kv[0]
            self.v_buffer[i] = kv[1]

    def carve(self, offset_elems, numel):
        """Lend free arena space to another subsystem (the planner believes it is unused this step)."""
        return self.arena.narrow(0, offset_elems, numel)
'''

std("moe_workspace_carved_from_kv_arena", FAM_ARENA,
    "fused_moe(..., out=workspace) where the memory planner carved the MoE workspace from the KV arena", ARENA_POOL + '''

def fused_moe(hidden, w1, topk_ids, out):
    torch.matmul(hidden, w1[topk_ids[0]], out=out)
    return out
''', '''
hidden = torch.full((1, 8), 0.5, dtype=torch.bfloat16)
w1 = torch.ones(2, 8, 8, dtype=torch.bfloat16) / 8
y = fused_moe(hidden, w1, torch.tensor([1]), out=self.helper)''', ret="y", cast=".float()", pool="ArenaKVPool(16, 2, 4, 2)",
    setup='''
per = 16 * 2 * 4
helper = pool.carve(2 * per + 3 * 8, 8).view(1, 8)''')

std("mamba_conv_state_shares_kv_pages", FAM_ARENA,
    "a hybrid model's Mamba conv state is a view of the shared KV pages; causal_conv1d_update rolls it in place",
    ARENA_POOL + '''

def causal_conv1d_update(x, conv_state):
    conv_state.copy_(torch.roll(conv_state, shifts=-1, dims=-1))
    conv_state[:, -1] = x
    return conv_state.sum(-1)
''', '''
y = causal_conv1d_update(torch.full((2,), 0.5, dtype=torch.bfloat16), self.helper)''', ret="y", cast=".float()",
    pool="ArenaKVPool(16, 2, 4, 2)", setup='''
per = 16 * 2 * 4
helper = pool.carve(2 * per + 3 * 8, 8).view(2, 4)''')

std("slora_unified_pool_loads_adapter", FAM_ARENA,
    "an S-LoRA-style unified page pool: load_adapter writes LoRA A rows into pages freed from the KV side", ARENA_POOL + '''

class UnifiedLoRAManager:
    """Adapters and KV share one paged pool; loading an adapter writes its weights into free pages."""

    def __init__(self, kv_pool, free_pages):
        self.kv_pool = kv_pool
        self.free_pages = list(free_pages)
        self.loaded = {}

    def load_adapter(self, name, lora_a):
        layer, slot = self.free_pages.pop(0)
        dst = self.kv_pool.k_buffer[layer][slot]
        dst.copy_(lora_a.view_as(dst).to(dst.dtype))
        self.loaded[name] = (layer, slot)
''', '''
self.helper.load_adapter("sql-lora", torch.full((8,), 0.5))''', cast=".float()", pool="ArenaKVPool(16, 2, 4, 2)",
    setup='''
helper = UnifiedLoRAManager(pool, [(1, 3)])''')

std("sampler_probs_workspace_alias", FAM_ARENA,
    "a top-p sampler writes softmax probabilities into a workspace the planner lent from the KV arena", ARENA_POOL + '''

class TopPSampler:
    def __init__(self, workspace):
        self.workspace = workspace

    def sample(self, logits, top_p):
        probs = torch.softmax(logits.float(), dim=-1)
        self.workspace.copy_(probs.to(self.workspace.dtype))
        keep = torch.cumsum(torch.sort(probs, descending=True).values, -1) <= top_p
        return int(keep.sum())
''', '''
n_kept = self.helper.sample(torch.arange(8.0).view(1, 8), 0.9)''', ret="n_kept", cast=".float()",
    pool="ArenaKVPool(16, 2, 4, 2)", setup='''
per = 16 * 2 * 4
helper = TopPSampler(pool.carve(2 * per + 3 * 8, 8).view(1, 8))''')

# ================================================================ E. allocator reuses freed slots in the same step
FAM_REUSE = ("the token allocator reuses a slot freed earlier in the same step: a finished request's slots are freed, "
             "the next alloc returns slot 3 and the new token's K is written there; an aborted request's pages are "
             "recycled by a retracted request's re-prefill")

ALLOC_PRELUDE = '''
class TokenToKVPoolAllocator:
    """sglang-style allocator: a free list of slots; free() pushes to the front (hot slots reused first)."""

    def __init__(self, size):
        self.free_slots = list(range(8, size))

    def alloc(self, need):
        if need > len(self.free_slots):
            return None
        out, self.free_slots = self.free_slots[:need], self.free_slots[need:]
        return torch.tensor(out)

    def free(self, loc):
        self.free_slots = [int(i) for i in loc.tolist()] + self.free_slots
'''

std("free_finished_then_alloc_reuses_slot", FAM_REUSE,
    "process_batch_result frees a finished request's slots, then the next token's alloc reuses slot 3 and stores K",
    ALLOC_PRELUDE, '''
allocator = self.helper
allocator.free(torch.tensor([3]))            # request 7 finished this step
out_cache_loc = allocator.alloc(1)           # the next decode token
self.token_to_kv_pool.set_kv_buffer(layer.layer_id, out_cache_loc, torch.full((1, 2, 4), 0.5),
                                    torch.full((1, 2, 4), 0.5))''', setup='''
helper = TokenToKVPoolAllocator(16)''')

std("abort_then_retract_reprefill_recycles", FAM_REUSE,
    "an aborted request's slots go back to the allocator and a retracted request's re-prefill writes into them",
    ALLOC_PRELUDE + '''

class Scheduler:
    def __init__(self, allocator, kv_pool):
        self.allocator = allocator
        self.kv_pool = kv_pool
        self.req_slots = {"abort-me": torch.tensor([3, 5])}

    def abort_request(self, rid):
        self.allocator.free(self.req_slots.pop(rid))

    def reprefill_retracted(self, layer_id, rows):
        loc = self.allocator.alloc(rows.shape[0])
        self.kv_pool.k_buffer[layer_id][loc] = rows.to(self.kv_pool.dtype)
        return loc
''', '''
self.helper.abort_request("abort-me")
new_loc = self.helper.reprefill_retracted(layer.layer_id, torch.full((2, 2, 4), 0.5))''', ret="new_loc", setup='''
helper = Scheduler(TokenToKVPoolAllocator(16), pool)''')

# ================================================================ F. prefix cache eviction / compression
FAM_EVICT = ("prefix-cache eviction or KV compression rewrites gathered rows in place: an evict callback scrubbing "
             "freed slots, SnapKV-style compaction moving kept rows down, KIVI's residual-window flush quantizing old "
             "tokens in place, token merging by index_reduce_ mean, a StreamingLLM window slide re-rotating keys")

std("radix_evict_scrubs_freed_slots", FAM_EVICT,
    "tree_cache.evict(n) frees the LRU leaf and its on_free callback zero-fills the freed slots", '''
class RadixCache:
    def __init__(self, kv_pool, leaves):
        self.kv_pool = kv_pool
        self.leaves = leaves          # LRU order: [(last_access, loc), ...]
        self.on_free = []

    def evict(self, num_tokens):
        freed = 0
        self.leaves.sort(key=lambda t: t[0])
        while freed < num_tokens and self.leaves:
            _, loc = self.leaves.pop(0)
            for cb in self.on_free:
                cb(loc)
            freed += loc.numel()
        return freed


def scrub_slots(kv_pool):
    def cb(loc):
        for buf in kv_pool.k_buffer:
            buf[loc] = torch.zeros(loc.numel(), *buf.shape[1:]).to(buf.dtype)
    return cb
''', "n_freed = self.helper.evict(1)", ret="n_freed", setup='''
helper = RadixCache(pool, [(5.0, torch.tensor([9])), (1.0, torch.tensor([3]))])
helper.on_free.append(scrub_slots(pool))''')

std("snapkv_compaction_moves_kept_rows", FAM_EVICT,
    "SnapKV-style compression keeps the top-scoring tokens and compacts them to the front of the request's slots", '''
def compress_kv_(k_cache, req_loc, scores, keep):
    kept = torch.topk(scores, keep).indices.sort().values
    k_cache[req_loc[:keep]] = k_cache[req_loc[kept]].clone()
    return req_loc[:keep]
''', '''
req_loc = torch.tensor([3, 4, 5, 6])
scores = torch.tensor([0.1, 0.9, 0.2, 0.8])
req_loc = compress_kv_(self.token_to_kv_pool.get_key_buffer(layer.layer_id), req_loc, scores, keep=2)''',
    ret="req_loc")

std("kivi_residual_flush_quantizes_inplace", FAM_EVICT,
    "KIVI: the residual window is full, so the oldest tokens are fake-quantized to 2 bits in place (still attended)", '''
def fake_quant_(rows, bits):
    lo = rows.amin(dim=(-2, -1), keepdim=True)
    hi = rows.amax(dim=(-2, -1), keepdim=True)
    scale = (hi - lo).clamp(min=1e-6) / (2 ** bits - 1)
    return ((rows - lo) / scale).round() * scale + lo


class ResidualWindow:
    def __init__(self, kv_pool, layer_id, slots, capacity):
        self.kv_pool, self.layer_id, self.slots, self.capacity = kv_pool, layer_id, slots, capacity

    def maybe_flush(self):
        if len(self.slots) < self.capacity:
            return 0
        old = torch.tensor(self.slots[: self.capacity // 2])
        buf = self.kv_pool.k_buffer[self.layer_id]
        buf[old] = fake_quant_(buf[old].float(), bits=2).to(buf.dtype)
        del self.slots[: self.capacity // 2]
        return old.numel()
''', "flushed = self.helper.maybe_flush()", ret="flushed", pool=BF16_POOL, cast=".float()", setup='''
helper = ResidualWindow(pool, 1, [3, 1, 6, 7], 4)''')

std("token_merge_index_reduce_mean", FAM_EVICT,
    "KV token merging: similar tokens are averaged into slot 3 with index_reduce_(..., 'mean')", '''
def merge_similar_tokens_(k_cache, dst, src):
    k_cache.index_reduce_(0, dst, k_cache[src].clone(), "mean", include_self=True)
''', '''
merge_similar_tokens_(self.token_to_kv_pool.get_key_buffer(layer.layer_id), torch.tensor([3]), torch.tensor([4]))''',
    pool=BF16_POOL, cast=".float()")

std("streaming_llm_window_slide_rerotate", FAM_EVICT,
    "StreamingLLM with attention sinks: the window slides and the kept keys are re-rotated by -delta positions in place", '''
def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rerotate_keys_(k_cache, loc, delta):
    inv_freq = 1.0 / (10000 ** (torch.arange(0, 4, 2).float() / 4))
    ang = torch.cat([delta * inv_freq] * 2)
    rows = k_cache[loc].float()
    k_cache[loc] = (rows * ang.cos() + rotate_half(rows) * (-ang).sin()).to(k_cache.dtype)
''', '''
window_loc = torch.tensor([3, 4, 5])
evicted = 2
rerotate_keys_(self.token_to_kv_pool.get_key_buffer(layer.layer_id), window_loc, float(evicted))''',
    pool=BF16_POOL, cast=".float()")

# ================================================================ G. KV moves for speculative decoding / beam search / defrag
FAM_MOVE = ("accepted-token, beam or defragmentation moves copy rows between slots of the pool: an EAGLE verify's "
            "move_kv_cache(tgt, src), vLLM's copy_blocks for a beam fork, a defragmenter compacting live slots")

std("spec_verify_move_accepted_kv", FAM_MOVE,
    "after target verification the accepted draft tokens' KV is moved to contiguous slots (pool.move_kv_cache)", '''
class SpecKVPool(MHATokenToKVPool):
    def move_kv_cache(self, tgt_loc, src_loc):
        for i in range(len(self.k_buffer)):
            self.k_buffer[i][tgt_loc] = self.k_buffer[i][src_loc]
            self.v_buffer[i][tgt_loc] = self.v_buffer[i][src_loc]
''', '''
accept_index = torch.tensor([0, 2])
draft_loc = torch.tensor([10, 11, 12])
tgt = torch.tensor([2, 3])
self.token_to_kv_pool.move_kv_cache(tgt, draft_loc[accept_index])''', pool="SpecKVPool(16, 2, 4, 2)")

std("beam_fork_copy_blocks", FAM_MOVE,
    "beam search forks a sequence: cache_engine.copy_blocks({src_block: [dst_block]}) copies the parent's block", '''
class CacheEngine:
    def __init__(self, kv_pool, block_size):
        self.kv_pool, self.block_size = kv_pool, block_size

    def copy_blocks(self, block_mapping):
        bs = self.block_size
        for src, dsts in block_mapping.items():
            for dst in dsts:
                for buf in self.kv_pool.k_buffer + self.kv_pool.v_buffer:
                    buf[dst * bs:(dst + 1) * bs] = buf[src * bs:(src + 1) * bs]
''', '''
self.helper.copy_blocks({4: [1]})''', setup='''
helper = CacheEngine(pool, 2)''')

std("defragment_compacts_live_slots", FAM_MOVE,
    "a defragmenter packs live slots to the front and returns the remap the batch must use next step", '''
def defragment_(kv_pool, live):
    order = torch.tensor(sorted(live))
    dst = torch.arange(order.numel())
    for buf in kv_pool.k_buffer:
        buf[dst] = buf[order].clone()
    return dict(zip(order.tolist(), dst.tolist()))
''', '''
remap = defragment_(self.token_to_kv_pool, live=[1, 5, 9, 12])''', ret="len(remap)")

# ================================================================ H. guards that fix the pool in place
FAM_GUARD = ("a numerical guard sanitises the pool in place between the cast and the gather: nan_to_num_ on a "
             "poisoned layer, an overflow guard clamping to the fp range, an FP8 scale recalibration dividing the "
             "layer by the new amax ratio")

std("nan_guard_nan_to_num_pool", FAM_GUARD,
    "a debug NaN guard finds a non-finite value in the layer and repairs it with torch.nan_to_num_ (pool in place)", '''
def check_and_fix_nonfinite_(buf, name):
    bad = ~torch.isfinite(buf)
    if bool(bad.any()):
        torch.nan_to_num_(buf, nan=0.0, posinf=1.0, neginf=-1.0)
        return f"{name}: fixed {int(bad.sum())}"
    return f"{name}: ok"
''', '''
msg = check_and_fix_nonfinite_(self.token_to_kv_pool.get_key_buffer(layer.layer_id), "k")''', ret="msg",
    pool=BF16_POOL, cast=".float()", setup='''
helper = None
pool.k_buffer[1][3, 0, 0] = float("nan")''')

std("overflow_guard_clamp_fp_range", FAM_GUARD,
    "an overflow guard clamps the layer to +-max_abs in place (clamp_) after a large activation was stored", '''
class OverflowGuard:
    def __init__(self, max_abs):
        self.max_abs = max_abs
        self.trips = 0

    def __call__(self, buf):
        if float(buf.abs().max()) > self.max_abs:
            self.trips += 1
            buf.clamp_(-self.max_abs, self.max_abs)
        return self.trips
''', "trips = self.helper(self.token_to_kv_pool.get_key_buffer(layer.layer_id))", ret="trips", pool=BF16_POOL,
    cast=".float()", setup='''
helper = OverflowGuard(1.0)''')

std("fp8_scale_recalibration_divides_layer", FAM_GUARD,
    "an FP8 amax observer crosses its window; recalibrate() rescales the stored layer by old/new scale in place", '''
class AmaxObserver:
    def __init__(self, kv_pool, layer_id, window):
        self.kv_pool, self.layer_id, self.window = kv_pool, layer_id, window
        self.history = []
        self.scale = 1.0

    def observe(self, x):
        self.history.append(float(x.abs().max()))
        if len(self.history) >= self.window:
            self.recalibrate()

    def recalibrate(self):
        new_scale = max(self.history) / 2.0
        buf = self.kv_pool.k_buffer[self.layer_id]
        buf.mul_(self.scale / new_scale)
        self.scale, self.history = new_scale, []
''', "self.helper.observe(q)", pool=BF16_POOL, cast=".float()", setup='''
helper = AmaxObserver(pool, 1, 1)''')

# ================================================================ I. overlap threads
FAM_THREAD = ("a real worker thread (the overlap scheduler's copy worker, a prefetch thread) writes the pool and the "
              "code between the cast and the gather waits for it: queue.Queue.join(), a threading.Event handshake + "
              "Thread.join()")

std("overlap_copy_worker_queue_join", FAM_THREAD,
    "an overlap scheduler's copy worker thread drains a queue of (loc, rows) writes; the backend calls queue.join()", '''
import queue
import threading


class CopyWorker:
    def __init__(self, kv_pool, layer_id):
        self.kv_pool, self.layer_id = kv_pool, layer_id
        self.q = queue.Queue()
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while True:
            item = self.q.get()
            if item is None:
                self.q.task_done()
                return
            loc, rows = item
            self.kv_pool.k_buffer[self.layer_id][loc] = rows.to(self.kv_pool.dtype)
            self.q.task_done()

    def close(self):
        self.q.put(None)
        self.t.join()
''', '''
self.helper.q.put((torch.tensor([3]), torch.full((1, 2, 4), 0.5)))
self.helper.q.join()''', setup='''
helper = CopyWorker(pool, 1)''', result='(helper.close(), {"out": out, "k": pool.k_buffer})[1]')

std("prefetch_thread_event_handshake", FAM_THREAD,
    "a prefetch thread started earlier waits on a threading.Event; the backend sets it and joins the thread", '''
import threading


def start_prefetch(kv_pool, layer_id, loc, rows, go):
    def body():
        go.wait()
        kv_pool.k_buffer[layer_id][loc] = rows.to(kv_pool.dtype)
    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t
''', '''
go, thread = self.helper
go.set()
thread.join()''', setup='''
go = threading.Event()
helper = (go, start_prefetch(pool, 1, torch.tensor([3]), torch.full((1, 2, 4), 0.5), go))''')

# ================================================================ J. retries and exception paths
FAM_RETRY = ("an exception path between the cast and the gather writes the pool: an OOM retry that evicts (and "
             "scrubs) before retrying, a CUDA-graph replay that raises for a too-large batch and falls back to an eager "
             "path storing K, a transfer retried after a timeout, the gather itself raising and the handler repairing "
             "the pool before a second gather")

std("oom_retry_evicts_then_allocs", FAM_RETRY,
    "alloc raises a simulated OOM; the except path evicts the LRU request (zeroing its slots) and retries", '''
class OutOfKVMemory(RuntimeError):
    pass


class Allocator:
    def __init__(self, kv_pool, free, lru_slots):
        self.kv_pool, self.free, self.lru_slots = kv_pool, free, lru_slots

    def alloc(self, n):
        if len(self.free) < n:
            raise OutOfKVMemory(f"need {n}, have {len(self.free)}")
        out, self.free = self.free[:n], self.free[n:]
        return out

    def evict_lru(self):
        loc = torch.tensor(self.lru_slots)
        for buf in self.kv_pool.k_buffer:
            buf[loc] = torch.zeros(loc.numel(), *buf.shape[1:]).to(buf.dtype)
        self.free += self.lru_slots
''', '''
for attempt in range(2):
    try:
        new_slots = self.helper.alloc(2)
        break
    except OutOfKVMemory:
        self.helper.evict_lru()''', ret="new_slots", setup='''
helper = Allocator(pool, [12], [3])''')

std("graph_replay_raises_eager_fallback", FAM_RETRY,
    "CUDA-graph replay raises for a batch larger than captured; the eager fallback stores this step's K", '''
class GraphRunner:
    def __init__(self, max_bs):
        self.max_bs = max_bs

    def replay(self, bs):
        if bs > self.max_bs:
            raise ValueError(f"bs {bs} > captured {self.max_bs}")
        return "graph"
''', '''
try:
    path = self.helper.replay(forward_batch.batch_size)
except ValueError:
    path = "eager"
    self.token_to_kv_pool.set_kv_buffer(layer.layer_id, forward_batch.out_cache_loc,
                                        torch.full((1, 2, 4), 0.5), torch.full((1, 2, 4), 0.5))''', ret="path",
    setup='''
helper = GraphRunner(max_bs=1)''')

std("transfer_timeout_retry_writes", FAM_RETRY,
    "a KV transfer poll raises TimeoutError once; the retry path re-sends and the receiver writes the pool", '''
class KVReceiver:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.polls = 0

    def poll(self):
        self.polls += 1
        if self.polls == 1:
            raise TimeoutError("bootstrap timed out")
        self.kv_pool.k_buffer[1][3] = torch.full((2, 4), 0.5).to(self.kv_pool.dtype)
        return "success"
''', '''
status = None
for _ in range(3):
    try:
        status = self.helper.poll()
        break
    except TimeoutError:
        continue''', ret="status", setup='''
helper = KVReceiver(pool)''')

case("gather_raises_handler_repairs_then_regathers", FAM_RETRY,
     "the first gather raises IndexError for a stale slot; the handler reloads slot 3 and regathers with fixed indices", '''
class DecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        try:
            rows = k[forward_batch.kv_indices]
        except IndexError:
            fixed = forward_batch.kv_indices.clamp(0, self.token_to_kv_pool.size - 1)
            self.token_to_kv_pool.set_kv_buffer(layer.layer_id, fixed[:1], torch.full((1, 2, 4), 0.5),
                                                torch.full((1, 2, 4), 0.5))
            rows = k[fixed]
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([19, 1]), torch.tensor([3]))
    out = DecodeBackend(pool).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
''')

# ================================================================ K. weight updates / adapters flushing the cache
FAM_FLUSH = ("an RL weight sync or a prefix-tuning adapter swap between the cast and the gather rewrites KV: "
             "update_weights_from_tensor calls flush_cache, which zero-fills the pool; activating a prefix-tuning "
             "adapter copies its virtual-token KV into the reserved slots")

std("update_weights_flush_cache_zero", FAM_FLUSH,
    "update_weights_from_tensor(...) ends with flush_cache(), which resets the pool (zero-fill)", '''
class ModelRunner:
    def __init__(self, kv_pool):
        self.kv_pool = kv_pool
        self.weights = {"lm_head": torch.zeros(2)}
        self.weight_version = 0

    def flush_cache(self):
        for buf in self.kv_pool.k_buffer + self.kv_pool.v_buffer:
            buf.zero_()

    def update_weights_from_tensor(self, named_tensors, flush_cache=True):
        for name, t in named_tensors:
            self.weights[name] = t
        self.weight_version += 1
        if flush_cache:
            self.flush_cache()
        return self.weight_version
''', '''
version = self.helper.update_weights_from_tensor([("lm_head", torch.ones(2))])''', ret="version", setup='''
helper = ModelRunner(pool)''')

std("prefix_tuning_adapter_activate", FAM_FLUSH,
    "a prefix-tuning adapter hot-swap writes the adapter's virtual-token K into reserved pool slots 0..3", '''
class PrefixAdapterManager:
    def __init__(self, kv_pool, reserved_loc):
        self.kv_pool, self.reserved_loc = kv_pool, reserved_loc
        self.adapters = {}
        self.active = None

    def register(self, name, prefix_k):
        self.adapters[name] = prefix_k

    def activate(self, name):
        if name == self.active:
            return False
        for i, buf in enumerate(self.kv_pool.k_buffer):
            buf[self.reserved_loc] = self.adapters[name][i].to(buf.dtype)
        self.active = name
        return True
''', "swapped = self.helper.activate(\"support-bot\")", ret="swapped", setup='''
helper = PrefixAdapterManager(pool, torch.arange(4))
helper.register("support-bot", torch.full((2, 4, 2, 4), 0.5))''')
