"""A pool class with accessor names the built-in tables do not list."""
import torch

from sglang.srt.mem_cache.memory_pool import KVCache


class PagedFP8Pool(KVCache):
    def __init__(self, size, page_size, head_num, head_dim, layer_num, device, start_layer=0):
        self.size = size
        self.page_size = page_size
        self.start_layer = start_layer
        self.dtype = torch.float8_e4m3fn
        self.k_store = [
            torch.zeros((size + page_size, head_num, head_dim), dtype=torch.uint8, device=device)
            for _ in range(layer_num)
        ]
        self.v_store = [
            torch.zeros((size + page_size, head_num, head_dim), dtype=torch.uint8, device=device)
            for _ in range(layer_num)
        ]
        self.k_scales = torch.ones(layer_num, dtype=torch.float32, device=device)

    def layer_keys(self, layer_id: int) -> torch.Tensor:
        return self.k_store[layer_id - self.start_layer].view(self.dtype)

    def layer_values(self, layer_id: int) -> torch.Tensor:
        return self.v_store[layer_id - self.start_layer].view(self.dtype)

    def layer_scale(self, layer_id: int) -> torch.Tensor:
        return self.k_scales[layer_id - self.start_layer]


class CustomPoolBackend:
    def __init__(self, model_runner):
        self.pool: PagedFP8Pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kc = self.pool.layer_keys(layer.layer_id).to(q.dtype)  # positive: f6 CL001 custom accessor of an in-tree pool class
        vc = self.pool.layer_values(layer.layer_id).to(q.dtype)  # positive: f6 CL001 custom accessor of an in-tree pool class
        s = self.pool.layer_scale(layer.layer_id).to(q.dtype)  # negative: scale, not a per-layer slot buffer
        return kc * s, vc

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        kr = self.pool.layer_keys(layer.layer_id).float()[loc]  # positive: f6 CL003 custom accessor cast then gathered
        vr = self.pool.layer_values(layer.layer_id)[loc].float()  # negative: gather then cast
        return kr, vr
