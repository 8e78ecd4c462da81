"""Conversions in helpers wrapped by torch.compile / torch.inference_mode decorators."""
import torch


@torch.compile(dynamic=True)
def _upcast_plane(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.bfloat16)  # positive: f4 CL001 both callers pass a whole key buffer


@torch.inference_mode()
def _to_dtype(t, dtype):
    return t.to(dtype)  # note: generic helper (pool buffers and queries), labelled at the pool-passing call


class CompiledRefBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        kb = _upcast_plane(self.token_to_kv_pool.get_key_buffer(layer.layer_id))
        vb = _to_dtype(self.token_to_kv_pool.get_value_buffer(layer.layer_id), q.dtype)  # positive: f4 CL001 whole value buffer through the decorated generic helper
        q2 = _to_dtype(q, self.model_dtype)  # negative: batch query through the same helper
        return kb, vb, q2

    def forward_extend(self, q, k, v, layer, forward_batch):
        kb = _upcast_plane(self.token_to_kv_pool.get_key_buffer(layer.layer_id))
        rows = self.token_to_kv_pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        vr = _to_dtype(rows, q.dtype)  # negative: gathered rows through the generic helper
        return kb, vr
