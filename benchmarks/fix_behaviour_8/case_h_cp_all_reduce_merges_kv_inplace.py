"""HAZARD case h_cp_all_reduce_merges_kv_inplace: context parallel: all_reduce(pool K buffer) sums the ranks' partial KV into the pool in place."""
import torch

KIND = "hazard"
FAMILY = "a simulated collective writes into its output tensor in place, and that tensor is (a view of) the pool: all_gather_into_tensor of head shards, an in-place all_reduce (context-parallel merge), a broadcast from rank 0, a pipeline-parallel recv of the prefix KV, a reduce_scatter_tensor"


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


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).float()
        all_reduce(self.token_to_kv_pool.get_key_buffer(layer.layer_id), group=self.helper)
        return k[forward_batch.kv_indices], 0


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.bfloat16)
    helper = FakeProcessGroup(2, [torch.full((16, 2, 4), 0.5)])
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
