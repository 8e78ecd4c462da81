import torch


class TritonAttnBackend:
    def __init__(self, model_runner):
        self.kv_dtype = model_runner.kv_cache_dtype
        self.dtype = model_runner.dtype

    def _decode_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self._decode_kv(layer, forward_batch)
        return self.decode_attention_fwd(q, k_buf, v_buf, forward_batch)


class HIPTritonAttnBackend(TritonAttnBackend):
    """gfx90a: the triton decode kernel has no fp8 load path."""

    def _decode_kv(self, layer, forward_batch):
        k_buf, v_buf = super()._decode_kv(layer, forward_batch)
        if self.kv_dtype == self.dtype:
            return k_buf, v_buf
        k_buf = k_buf.to(self.dtype)  # positive: f2 CL001 whole key buffer widened in the override
        v_buf = v_buf.to(self.dtype)  # positive: f2 CL001 whole value buffer widened in the override
        return k_buf, v_buf

    def init_forward_metadata(self, forward_batch):
        self.kv_indptr = forward_batch.seq_lens.to(torch.int32)  # negative: metadata
