import torch


class FlashInferTrtllmMetadata:
    def prepare(self):
        self.paged_kv_indptr = self.kv_lens_cuda.cumsum(0).to(torch.int32)  # negative: indptr


class FlashInferAttentionTrtllm:
    def __init__(self, layer_idx, num_heads, head_dim, quant_config=None):
        self.layer_idx = layer_idx
        self.has_fp8_kv_cache = quant_config is not None and quant_config.layer_quant_mode.has_fp8_kv_cache()

    def forward(self, q, k, v, metadata, **kwargs):
        kv_cache = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if self.has_fp8_kv_cache and not metadata.native_fp8:
            kv_cache = kv_cache.to(q.dtype)  # positive: f6 CL001 flashinfer backend of TRT-LLM upcasts the layer buffer
        k_new = k.view(-1, 8, 128).to(kv_cache.dtype)  # negative: the step's new keys
        return self._run(q, kv_cache, k_new, metadata)

    def _run(self, q, kv_cache, k_new, metadata):
        return q
