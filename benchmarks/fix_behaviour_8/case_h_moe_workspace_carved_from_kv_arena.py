"""HAZARD case h_moe_workspace_carved_from_kv_arena: fused_moe(..., out=workspace) where the memory planner carved the MoE workspace from the KV arena."""
import torch

KIND = "hazard"
FAMILY = "the KV pool is carved from one byte arena that another subsystem also uses in the same step: the MoE expert workspace, a hybrid model's Mamba conv state, an S-LoRA unified page pool loading an adapter, the sampler's probability workspace; that subsystem's write lands on gathered slots"


class MHATokenToKVPool:
    """Toy sglang-style pool: one preallocated [size, heads, dim] buffer per layer."""

    def __init__(self, size, head_num, head_dim, layer_num, dtype=torch.float8_e4m3fn, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.dtype = dtype
        self.size = size
        self.k_buffer = [torch.randn(size, head_num, head_dim, generator=g).to(dtype) for _ in range(layer_num)]
        self.v_buffer = [torch.randn(size, head_num, head_dim, generator=g).to(dtype) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id]

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id]

    def get_kv_buffer(self, layer_id):
        return self.k_buffer[layer_id], self.v_buffer[layer_id]

    def set_kv_buffer(self, layer_id, loc, cache_k, cache_v):
        if cache_k.dtype != self.dtype:
            cache_k = cache_k.to(self.dtype)
            cache_v = cache_v.to(self.dtype)
        self.k_buffer[layer_id][loc] = cache_k
        self.v_buffer[layer_id][loc] = cache_v


def _rand(shape, seed, dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)



class ForwardBatch:
    """Toy sglang-style ForwardBatch: the step's metadata and the pool it writes through."""

    def __init__(self, token_to_kv_pool, kv_indices, out_cache_loc=None, forward_mode="decode"):
        self.token_to_kv_pool = token_to_kv_pool
        self.kv_indices = kv_indices
        self.out_cache_loc = out_cache_loc
        self.forward_mode = forward_mode
        self.batch_size = int(kv_indices.numel())


class RadixLayer:
    """Toy RadixAttention layer: what a backend reads of it."""

    def __init__(self, layer_id, head_dim=4, tp_k_head_num=2, k_scale=None):
        self.layer_id = layer_id
        self.head_dim = head_dim
        self.tp_k_head_num = tp_k_head_num
        self.k_scale = k_scale
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


def fused_moe(hidden, w1, topk_ids, out):
    torch.matmul(hidden, w1[topk_ids[0]], out=out)
    return out


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
        hidden = torch.full((1, 8), 0.5, dtype=torch.bfloat16)
        w1 = torch.ones(2, 8, 8, dtype=torch.bfloat16) / 8
        y = fused_moe(hidden, w1, torch.tensor([1]), out=self.helper)
        return k[forward_batch.kv_indices], y


def run_case(torch):
    pool = ArenaKVPool(16, 2, 4, 2)
    per = 16 * 2 * 4
    helper = pool.carve(2 * per + 3 * 8, 8).view(1, 8)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
