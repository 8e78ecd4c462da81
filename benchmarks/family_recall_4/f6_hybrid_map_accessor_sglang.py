"""A hybrid pool maps layer ids to full or SWA buffers; one accessor converts inside."""
import torch


class HybridLayerPool:
    def __init__(self, full_ids, swa_ids, size, swa_size, head_num, head_dim, dtype, device, compute_dtype=torch.bfloat16):
        self.dtype = dtype
        self.compute_dtype = compute_dtype
        self.start_layer = min(full_ids + swa_ids)
        self.full_map = {lid: i for i, lid in enumerate(full_ids)}
        self.swa_map = {lid: i for i, lid in enumerate(swa_ids)}
        self.full_kv = [torch.zeros((2, size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in full_ids]
        self.swa_kv = [torch.zeros((2, swa_size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in swa_ids]
        self.swa_loc_map = torch.zeros(size + 1, dtype=torch.int64, device=device)

    def _lane(self, layer_id: int):
        if layer_id in self.full_map:
            return self.full_kv[self.full_map[layer_id]]
        return self.swa_kv[self.swa_map[layer_id]]

    def lane_keys(self, layer_id: int):
        return self._lane(layer_id)[0]

    def swa_values_upcast(self, layer_id: int):
        return self.swa_kv[self.swa_map[layer_id]][1].to(self.compute_dtype)  # positive: f6 CL004 accessor upcasts the layer's whole SWA value buffer

    def map_loc(self, loc: torch.Tensor):
        return self.swa_loc_map[loc]


class HybridBackend:
    def __init__(self, model_runner):
        self.pool: HybridLayerPool = model_runner.token_to_kv_pool
        self.kernel = model_runner.attn_kernels.extend

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = self.pool.lane_keys(layer.layer_id).to(q.dtype)  # positive: f6 CL001 lane_keys returns a whole mapped buffer's key plane
        vals = self.pool.swa_values_upcast(layer.layer_id)
        loc = self.pool.map_loc(forward_batch.out_cache_loc).to(torch.int32)  # negative: translated indices
        lane = self.pool._lane(layer.layer_id)
        lane_f = lane.float()  # positive: f6 CL001 _lane returns the layer's whole (2, size, h, d) buffer
        return self.kernel(q, keys, vals, loc, lane_f)
