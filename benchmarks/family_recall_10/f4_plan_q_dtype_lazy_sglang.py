"""A decode wrapper planned lazily inside forward_decode with q.dtype as both dtypes."""
import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class LazyPlanMLABackend:
    def __init__(self, model_runner, workspace):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="auto")
        self.native_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self._planned = False
        self.indptr = torch.zeros(2, dtype=torch.int32)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        m = self.meta
        if not self._planned:
            self.decode_wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, layer.tp_q_head_num, 512, 64, 1, False, layer.scaling, q.dtype, q.dtype)  # positive: f4 CL002 kv dtype taken from q (bf16) while the pool is FP8
            self.native_wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, layer.tp_q_head_num, 512, 64, 1, False, layer.scaling, q.dtype, self.kv_cache_dtype)  # negative: kv dtype is the pool's
            self._planned = True
        ip = self.indptr.to(torch.int64)  # negative: an indptr
        return ip
