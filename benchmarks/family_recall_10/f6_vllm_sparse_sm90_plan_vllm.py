"""A vLLM FlashInfer sparse-SM90 style MLA impl: one plan keeps the kv dtype native, a fallback plans bf16."""
import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class SparseSM90MLAImplLike:
    def __init__(self, vllm_config, workspace, kv_cache_dtype):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_dtype = torch.float8_e4m3fn if kv_cache_dtype.startswith("fp8") else self.model_dtype
        self.native = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.fallback = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.use_fallback = False

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        md = attn_metadata.flashinfer_metadata
        if self.use_fallback:
            self.fallback.plan(metadata=md, num_heads=q.shape[1], q_data_type=self.model_dtype, kv_data_type=self.model_dtype)  # positive: f6 CL002 fallback plans the model dtype for an FP8 cache
            lat = kv_c_and_k_pe_cache.to(self.model_dtype)  # positive: f6 CL001 and feeds it a whole upcast cache
            return self.fallback.run(query=q, kv_cache=lat)
        self.native.plan(metadata=md, num_heads=q.shape[1], q_data_type=torch.bfloat16, kv_data_type=self.kv_dtype)  # negative: native FP8 kv plan
        return self.native.run(query=q, kv_cache=kv_c_and_k_pe_cache, ckv_scale=layer._k_scale_float, kpe_scale=1.0)
