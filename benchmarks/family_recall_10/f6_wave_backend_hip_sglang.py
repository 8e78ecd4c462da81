"""An sglang AMD wave-style backend upcasting fnuz FP8 K/V layers before its decode kernel."""
import torch


class WaveAttnBackend:
    def __init__(self, model_runner):
        self.kv_dtype = model_runner.kv_cache_dtype
        self.fnuz = self.kv_dtype == torch.float8_e4m3fnuz
        self.attn_logits = torch.empty(64, 16, 8, 512, dtype=torch.float32)  # negative: allocation, no conversion

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        if self.fnuz:
            k_buf = k_buf.to(torch.float16)  # positive: f6 CL001 fnuz K layer upcast for the wave kernel
            v_buf = v_buf.to(torch.float16)  # positive: f6 CL001 fnuz V layer upcast for the wave kernel
        splits = self.forward_metadata.num_kv_splits.to(torch.int32)  # negative: split counts
        return k_buf, v_buf, splits
