"""sglang XPU: the base backend asks a predicate method; the MLA subclass answers True for wide FP8 heads."""
import torch


class XPUAttnBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype

    def _needs_dense_kv(self, layer):
        return False

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self._needs_dense_kv(layer):
            k_buf = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f2 CL001 whole per-layer buffer when the subclass predicate holds
            v_buf = self.pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f2 CL001 whole per-layer value buffer, same branch
        else:
            k_buf, v_buf = self.pool.get_kv_buffer(layer.layer_id)
            q = q.to(k_buf.dtype)  # negative: the query
        return torch.ops.sgl_kernel.xpu_paged_decode(q, k_buf, v_buf, forward_batch.req_to_token, forward_batch.seq_lens)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rows = self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows gathered first
        return torch.ops.sgl_kernel.xpu_extend(q, k, rows, forward_batch.extend_seq_lens)


class XPUMLABackend(XPUAttnBackend):
    def _needs_dense_kv(self, layer):
        return layer.head_dim > 256 and self.pool.dtype != self.model_dtype
