import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper, MLAPlanMetadata


class KeywordPlanMLABackend:
    def __init__(self, model_runner, workspace):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.prefill = BatchMLAPagedAttentionWrapper(workspace)
        self.num_heads = 16

    def init_forward_metadata(self, forward_batch):
        md = MLAPlanMetadata.csr(forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices, forward_batch.kv_lens)
        self.wrapper.plan(  # positive: f4 CL002 keyword plan with the model dtype for kv
            metadata=md,
            num_heads=self.num_heads,
            q_data_type=self.dtype,
            kv_data_type=self.dtype,
        )
        self.prefill.plan(  # negative: kv planned with the pool's FP8 dtype
            metadata=md,
            num_heads=self.num_heads,
            q_data_type=self.dtype,
            kv_data_type=self.kv_cache_dtype,
        )
