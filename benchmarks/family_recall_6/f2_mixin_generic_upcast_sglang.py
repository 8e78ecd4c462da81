"""A mixin method upcasts any tensor; the host backend calls it with pool buffers and with q."""
import torch


class UpcastMixin:
    work_dtype = torch.float32

    def upcast(self, t):
        return t.to(self.work_dtype)  # note: generic mixin helper, labelled at the calls that pass pool buffers


class AttentionBackendBase:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.max_bs = model_runner.req_to_token_pool.size


class ReferenceTorchBackend(UpcastMixin, AttentionBackendBase):
    def forward_decode(self, q, k, v, layer, forward_batch):
        q32 = self.upcast(q)  # negative: the batch query through the same helper
        k32 = self.upcast(self.token_to_kv_pool.get_key_buffer(layer.layer_id))  # positive: f2 CL001 whole key buffer through the inherited helper
        vb = self.token_to_kv_pool.get_value_buffer(layer.layer_id)
        v32 = super().upcast(vb)  # positive: f2 CL001 whole value buffer through super()
        sel = self.upcast(vb[forward_batch.out_cache_loc])  # negative: rows gathered first
        k_new = self.upcast(k)  # negative: the step's new keys
        return q32, k32, v32, sel
