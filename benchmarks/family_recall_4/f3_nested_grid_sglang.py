"""Nested comprehensions over layers: a grid of [k, v], its flattening, a dict of dicts."""
import torch


class GridBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.start = pool.start_layer
        layer_ids = range(pool.start_layer, pool.end_layer)
        self.grid = [[pool.get_key_buffer(lid), pool.get_value_buffer(lid)] for lid in layer_ids]
        self.flat = [t for pair in self.grid for t in pair]
        self.grid_scales = [[torch.ones(1), torch.ones(1)] for _ in layer_ids]
        self.by_kind = {
            kind: {lid: (pool.get_key_buffer(lid) if kind == "k" else pool.get_value_buffer(lid)) for lid in layer_ids}
            for kind in ("k", "v")
        }
        self.kernel = model_runner.attn_kernels.decode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        i = layer.layer_id - self.start
        vv = self.grid[i][1].to(q.dtype)  # positive: f3 CL001 grid row of per-layer buffers, whole value pool
        kk = self.flat[2 * i].to(q.dtype)  # positive: f3 CL001 flattened grid, whole key pool
        sc = self.grid_scales[i][0].to(q.dtype)  # negative: scale grid
        return self.kernel(q, kk, vv, sc)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        inner = self.by_kind["v"]
        vb = inner[layer.layer_id].bfloat16()  # positive: f3 CL001 dict of dicts by kind and layer id
        rows = self.by_kind["k"][layer.layer_id][forward_batch.out_cache_loc].bfloat16()  # negative: gathered rows
        return vb, rows

    def debug_layer_bytes(self):
        return sum(t.numel() * t.element_size() for pair in self.grid for t in pair)


def build_scale_grid(layers, device):
    grid = [[torch.ones(1, device=device), torch.ones(1, device=device)] for _ in layers]
    return [[s.to(torch.float32) for s in pair] for pair in grid]  # negative: scale grid


def grid_shapes(grid):
    return [[tuple(t.shape) for t in pair] for pair in grid]
