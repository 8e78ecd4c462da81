# TensorRT-LLM vanilla metadata: prepare() records a dict layer_idx -> (k_plane, v_plane)
# from the manager; forward of each layer reads its entry.
import torch


class PlaneCacheMetadata:
    def prepare(self):
        mgr = self.kv_cache_manager
        self.planes = {i: tuple(mgr.get_buffers(i).unbind(1)) for i in range(mgr.num_local_layers)}


class PlaneReadAttention:
    def forward(self, q, k, v, metadata, **kwargs):
        k_plane, v_plane = metadata.planes[self.layer_idx]
        values = v_plane.float()  # positive: f3 CL001 whole value plane from the per-layer dict entry
        keys = k_plane[metadata.block_ids_per_seq.flatten()].float()  # negative: blocks first
        q32 = q.float()  # negative: query
        return self._sdpa(q32, keys, values, metadata).to(q.dtype)  # negative: output
