import torch


class TritonAttnBackend:
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.fp8_triton_ok = model_runner.server_args.triton_fp8_kv

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        if not self.fp8_triton_ok and k_buf.dtype != q.dtype:
            k_buf = k_buf.to(q.dtype)  # positive: f6 CL001 triton decode fallback upcasts the whole key buffer
            v_buf = v_buf.to(q.dtype)  # positive: f6 CL001 triton decode fallback upcasts the whole value buffer
        md = self.forward_metadata
        attn_logits = md.attn_logits.to(torch.float32)  # negative: per-batch scratch
        self.decode_attention_fwd(q, k_buf, v_buf, md.kv_indptr, md.kv_indices, attn_logits, layer.scaling)
        return q

    def decode_attention_fwd(self, *a):
        pass
