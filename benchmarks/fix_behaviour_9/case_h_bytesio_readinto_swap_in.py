"""HAZARD case h_bytesio_readinto_swap_in: swapping a page back in from the swap file with f.readinto(memoryview(pool.arena)[off:off + n])."""
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
import io
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


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        n_bytes = 0
        for slot in (3, 1):
            n_bytes += self.helper.swap_in(layer.layer_id, slot)
        return k[forward_batch.kv_indices], n_bytes


def run_case(torch):
    pool = ArenaKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = SwapSpace(io.BytesIO(bytes(8) + bytes(fp8_bytes([0.5] * 8))), pool, {(1, 3): 8})
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
