"""TensorRT-LLM FlashInfer MLA backend: plan(**self.plan_dtypes) where a property builds the keywords."""
import torch


class FlashInferMLAAttentionMetadata:
    def __init__(self, model_dtype, kv_cache_manager):
        self.dtype = model_dtype
        self.kv_cache_manager = kv_cache_manager

    @property
    def plan_dtypes(self) -> dict:
        return dict(q_data_type=self.dtype, kv_data_type=self.dtype)

    @property
    def native_dtypes(self) -> dict:
        return dict(q_data_type=self.dtype, kv_data_type=self.kv_cache_manager.dtype)

    def prepare(self):
        self.decode_wrapper.plan(self.qo_indptr, self.kv_indptr, self.kv_indices, self.kv_lens,  # positive: f4 CL002 the property gives the model dtype for q and kv while the manager is FP8
                                 self.num_heads, 512, 64, self.tokens_per_block, False, self.sm_scale,
                                 **self.plan_dtypes)
        self.context_wrapper.plan(self.qo_indptr, self.kv_indptr, self.kv_indices, self.kv_lens,  # negative: planned with the manager's own dtype
                                  self.num_heads, 512, 64, self.tokens_per_block, True, self.sm_scale,
                                  **self.native_dtypes)
        self.kv_lens_cuda = self.kv_lens.to("cuda")  # negative: lengths moved to the device
