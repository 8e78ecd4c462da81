import torch


class FlashInferDraftBackend:
    """Multi-step draft: one decode wrapper per draft step over the target's shared fp8 pool."""

    def __init__(self, model_config, kv_cache_manager, max_draft_len):
        self.model_dtype = model_config.torch_dtype
        self.kv_cache_dtype = kv_cache_manager.dtype  # torch.float8_e4m3fn
        self.step_dtypes = [self.model_dtype] * max_draft_len
        self.draft_wrappers = [self._make_decode_wrapper() for _ in range(max_draft_len)]
        self.target_wrapper = self._make_decode_wrapper()

    def prepare(self, metadata):
        m = metadata.paged_kv_inputs
        self.target_wrapper.plan(  # negative: planned with the cache's own dtype
            m.indptr, m.indices, m.last_page_len, metadata.num_heads, metadata.num_kv_heads,
            metadata.head_dim, m.page_size, q_data_type=self.model_dtype, kv_data_type=self.kv_cache_dtype,
        )
        for step, wrapper in enumerate(self.draft_wrappers):
            wrapper.plan(  # positive: f4 CL002 kv dtype taken from the per-step dtype list (model dtype) while the pool is fp8
                m.indptr, m.indices, m.last_page_len, metadata.num_heads, metadata.num_kv_heads,
                metadata.head_dim, m.page_size,
                q_data_type=self.step_dtypes[step], kv_data_type=self.step_dtypes[step],
            )
        metadata.kv_lens_cuda.copy_(metadata.kv_lens.to(torch.int32))  # negative: lengths
