"""HAZARD case h_await_in_index_expr: pool.float()[await self.next_slots()]: while the step waits for the slots, the writer task stores slot 3."""
import torch

KIND = "hazard"
FAMILY = "an await inside the gather's index expression (another task writes the pool meanwhile)"


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

import asyncio


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.ready = asyncio.Event()

    async def next_slots(self):
        await self.ready.wait()
        return torch.tensor([3, 1])

    async def forward(self, layer_id):
        return self.token_to_kv_pool.get_key_buffer(layer_id).float()[await self.next_slots()]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)

    async def main():
        be = Backend(pool)
        step = asyncio.ensure_future(be.forward(1))
        await asyncio.sleep(0)
        pool.k_buffer[1][3] = 0.5
        be.ready.set()
        return await step

    out = asyncio.run(main())
    return {"out": out, "k": pool.k_buffer}
