import torch


class TRTLLMHAAttnFallbackBackend:
    """trtllm-gen MHA backend; on parts without the FP8 decode kernel it widens the cache."""

    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.data_type = model_runner.kv_cache_dtype
        self.fp8_decode = model_runner.server_args.enable_fp8_trtllm_decode
        self.workspace = torch.empty(128 * 1024 * 1024, dtype=torch.uint8)

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens):
        pool = self.model_runner.token_to_kv_pool
        self._warm = pool.get_kv_buffer(0)[0].to(self.model_runner.dtype)  # negative: capture, one-time

    def forward_decode(self, q, k, v, layer, forward_batch):
        k_cache, v_cache = forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        if self.data_type == torch.float8_e4m3fn and not self.fp8_decode:
            k_cache = k_cache.to(self.model_runner.dtype)  # positive: f6 CL001 key half of get_kv_buffer, whole
            v_cache = v_cache.to(self.model_runner.dtype)  # positive: f6 CL001 value half
        ws = self.workspace.view(torch.float32)  # negative: workspace reinterpret
        return self._decode(q, k_cache, v_cache, ws)

    def _decode(self, q, *xs):
        return q
