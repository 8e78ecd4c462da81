"""HAZARD case h_mmap_slice_assign_transfer_agent: the transfer agent's poll lands a finished chunk by assigning a slice of the anonymous mmap backing the pool."""
import torch

KIND = "hazard"
FAMILY = "the pool's tensors are torch.frombuffer views of a Python buffer (an anonymous mmap shared with a transfer agent, a bytearray arena) and engine code writes that buffer through the buffer protocol: an mmap slice assignment, socket.recv_into a memoryview, BytesIO.readinto a memoryview, struct.pack_into"


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
import mmap

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


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        n_landed = self.helper.poll()
        return k[forward_batch.kv_indices], n_landed


def run_case(torch):
    pool = ArenaKVPool(16, 2, 4, 2, backing="mmap")
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = TransferAgent(pool.arena, [(pool.k_offset(1, 3), bytes(fp8_bytes([0.5] * 8)))])
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
