"""sglang XPU backends: the base binds _kv_for_decode = _paged_kv in its class body; the MLA subclass rebinds it to the base's _dense_kv."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class XPUAttnBackendBase(AttentionBackend):
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.forward_metadata = None

    def _paged_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        idx = self.forward_metadata.kv_indices
        return pool.get_key_buffer(layer.layer_id)[idx].to(self.dtype), pool.get_value_buffer(layer.layer_id)[idx].to(self.dtype)  # negative: rows of this batch

    def _dense_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id).to(self.dtype), pool.get_value_buffer(layer.layer_id).to(self.dtype)  # positive: f2 CL001 both whole layers (one line), reached through the subclass's class-level alias

    _kv_for_decode = _paged_kv

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self._kv_for_decode(layer, forward_batch)
        q_x = q.to(self.dtype)  # negative: the query
        return torch.ops.sgl_kernel_xpu.decode_attention(q_x, k_buf, v_buf, layer.scaling)


class XPUMLAAttnBackend(XPUAttnBackendBase):
    _kv_for_decode = XPUAttnBackendBase._dense_kv
