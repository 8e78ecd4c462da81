import torch


class MLAGenerationPath:
    """Generation-phase MLA of a TRT-LLM backend. SM120 has no FP8-KV MLA kernel at small head counts."""

    def __init__(self, layer_idx, num_heads, kv_lora_rank, sm_version):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.sm_version = sm_version

    def forward_generation(self, q, latent_cache, metadata, output):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        if buf.dtype == torch.float8_e4m3fn and self.sm_version == 120:
            kv = buf.to(q.dtype)  # positive: f6 CL001 whole latent layer widened: no FP8-KV route on SM120
            scale = None
        elif buf.dtype == torch.float8_e4m3fn:
            q = q.to(torch.float8_e4m3fn)  # negative: query quantized for the SM100 trtllm-gen route
            kv, scale = buf, mgr.kv_scale_orig_quant.float()  # negative: scale
        else:
            kv, scale = buf, None
        new_latent = latent_cache.to(kv.dtype)  # negative: new tokens' latent
        return self._mla(q, kv, new_latent, scale, output)

    def _mla(self, *args):
        return args
