"""sglang ROCm aiter backend: on gfx90a there is no FP8 paged-attention kernel, so the decode
path widens the pool layers; gfx942 reads FP8 natively."""
import torch


class AiterAttnBackend:
    def __init__(self, model_runner):
        self.gfx = model_runner.device_props.gcnArchName.split(":")[0]
        self.native_fp8 = self.gfx in ("gfx942", "gfx950")
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.logits_buf = torch.empty(64, 32, 8, dtype=torch.float32, device=model_runner.device)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v, layer.k_scale, layer.v_scale)
        k_cache, v_cache = pool.get_kv_buffer(layer.layer_id)
        if self.kv_cache_dtype != q.dtype and not self.native_fp8:
            k_cache = k_cache.to(q.dtype)  # positive: f6 CL001 whole key layer on gfx90a
            v_cache = v_cache.to(q.dtype)  # positive: f6 CL001 whole value layer on gfx90a
        logits = self.logits_buf.to(q.dtype)  # negative: workspace, not the pool
        return self._paged_attention_rocm(q, k_cache, v_cache, logits, forward_batch)

    def _paged_attention_rocm(self, q, k_cache, v_cache, logits, forward_batch):
        return q
