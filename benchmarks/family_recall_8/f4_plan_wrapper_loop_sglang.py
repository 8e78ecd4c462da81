import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class LoopPlanMLABackend:
    def __init__(self, model_runner, workspace, num_wrappers=2):
        self.q_data_type = model_runner.dtype
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.decode_wrappers = [BatchMLAPagedAttentionWrapper(workspace) for _ in range(num_wrappers)]
        self.kv_lora_rank, self.qk_rope_head_dim = 512, 64

    def init_forward_metadata(self, forward_batch):
        for i, w in enumerate(self.decode_wrappers):
            w.plan(  # positive: f4 CL002 every wrapper in a loop planned with the model dtype for kv
                forward_batch.qo_indptr[i], forward_batch.kv_indptr[i], forward_batch.kv_indices[i],
                forward_batch.kv_lens[i], 16, self.kv_lora_rank, self.qk_rope_head_dim, 1, False,
                forward_batch.sm_scale, self.q_data_type, self.data_type,
            )

    def init_forward_metadata_replay_cuda_graph(self, bs, forward_batch):
        dtypes = (self.q_data_type, self.data_type)
        w = self.decode_wrappers[0]
        try:
            w.plan(forward_batch.qo_indptr[0], forward_batch.kv_indptr[0], forward_batch.kv_indices[0], forward_batch.kv_lens[0], 16, 512, 64, 1, False, forward_batch.sm_scale, *dtypes)  # positive: f4 CL002 tuple of model dtypes splatted in a try block
        except RuntimeError:
            w.plan(forward_batch.qo_indptr[0], forward_batch.kv_indptr[0], forward_batch.kv_indices[0], forward_batch.kv_lens[0], 16, 512, 64, 1, False, forward_batch.sm_scale, self.q_data_type, self.kv_cache_dtype)  # negative: fallback plans the FP8 pool dtype
