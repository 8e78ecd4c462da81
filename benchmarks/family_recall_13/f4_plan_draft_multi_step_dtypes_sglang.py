import torch


class FlashInferMLAMultiStepDraftBackend:
    """One decode wrapper per draft step; dtypes chosen once and reused."""

    def __init__(self, model_runner, topk, speculative_num_steps):
        self.topk = topk
        self.speculative_num_steps = speculative_num_steps
        self.dtypes = {"q": model_runner.dtype, "kv": model_runner.dtype}
        self.native = {"q": model_runner.dtype, "kv": model_runner.kv_cache_dtype}
        self.wrappers = [self._make_wrapper() for _ in range(speculative_num_steps)]

    def _plan_step(self, i, bs, kv_indptr, kv_indices, kv_lens, dtypes):
        w = self.wrappers[i]
        w.plan(self.qo_indptr[: bs + 1], kv_indptr, kv_indices, kv_lens, self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, 1, False, self.scaling, dtypes["q"], dtypes["kv"])  # positive: f4 CL002 kv dtype from the dict entry set to the model dtype

    def _plan_native(self, bs, kv_indptr, kv_indices, kv_lens):
        w = self.native_wrapper
        w.plan(self.qo_indptr[: bs + 1], kv_indptr, kv_indices, kv_lens, self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, 1, False, self.scaling, self.native["q"], self.native["kv"])  # negative: kv dtype is the pool dtype

    def init_forward_metadata(self, forward_batch):
        bs = forward_batch.batch_size
        for i in range(self.speculative_num_steps - 1):
            indptr = self.kv_indptr[i][: bs * self.topk + 1]
            lens = (forward_batch.seq_lens + i + 1).to(torch.int32)  # negative: draft lengths
            self._plan_step(i, bs * self.topk, indptr, self.kv_indices[i], lens, self.dtypes)
