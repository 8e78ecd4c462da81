import torch


class FlashInferMLAAttnBackend:
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.q_dtype = model_runner.dtype
        self.num_local_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        major, _ = torch.cuda.get_device_capability()
        self.sm90 = major == 9
        self.xqa = major == 12 and self.num_local_heads == 128

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = pool.get_key_buffer(layer.layer_id)
        if self.xqa:
            q_fp8 = q.to(self.kv_cache_dtype)  # negative: query quantized for the xqa route
            return self.decode_wrapper.run(q_fp8, k_buf)
        if self.sm90:
            return self.decode_wrapper.run(q, k_buf.view(self.kv_cache_dtype))  # negative: native FP8-KV read on SM90
        k_buf = k_buf.to(q.dtype)  # positive: f6 CL001 SM120 at tp 8: no FP8-KV route, whole latent pool widened
        dcp = forward_batch.attn_dcp_metadata.dcp_kv_buffer.to(q.dtype)  # negative: per-batch DCP buffer
        return self.decode_wrapper.run(q, k_buf), dcp
