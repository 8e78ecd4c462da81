import torch


class HybridSWAPool:
    def __init__(self, full_layers, swa_layers, size, swa_size, head_num, head_dim, dtype, device):
        self.dtype = dtype
        self.layer_map = {}
        self.full_k = [torch.empty((size, head_num, head_dim), dtype=dtype, device=device) for _ in full_layers]
        self.swa_k = [torch.empty((swa_size, head_num, head_dim), dtype=dtype, device=device) for _ in swa_layers]
        self.swa_v = [torch.empty((swa_size, head_num, head_dim), dtype=dtype, device=device) for _ in swa_layers]
        for i, lid in enumerate(full_layers):
            self.layer_map[lid] = (i, False)
        for i, lid in enumerate(swa_layers):
            self.layer_map[lid] = (i, True)

    def swa_key(self, layer_id: int) -> torch.Tensor:
        idx, _ = self.layer_map[layer_id]
        return self.swa_k[idx]

    def swa_value(self, layer_id: int) -> torch.Tensor:
        idx, _ = self.layer_map[layer_id]
        return self.swa_v[idx]

    def full_key(self, layer_id: int) -> torch.Tensor:
        idx, _ = self.layer_map[layer_id]
        return self.full_k[idx]

    def translate_loc(self, loc: torch.Tensor) -> torch.Tensor:
        return loc % self.swa_k[0].shape[0]


class SWABackend:
    def __init__(self, model_runner):
        self.pool: HybridSWAPool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.sliding_window_size > 0:
            kb = self.pool.swa_key(layer.layer_id).to(q.dtype)  # positive: f6 CL001 SWA key accessor
            vb = self.pool.swa_value(layer.layer_id).to(q.dtype)  # positive: f6 CL001 SWA value accessor
        else:
            kb = self.pool.full_key(layer.layer_id).to(q.dtype)  # positive: f6 CL001 full-attention key accessor
            vb = None
        loc = self.pool.translate_loc(forward_batch.out_cache_loc).to(torch.int32)  # negative: index tensor
        return kb, vb, loc
