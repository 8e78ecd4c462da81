"""sglang: per-mode planners stored as lambdas in a dict keyed by forward mode; the decode
lambda plans the KV as the model dtype, the verify lambda as the pool dtype."""
import torch
from sglang.srt.model_executor.forward_batch_info import ForwardMode


class LambdaPlannedMLABackend:
    def __init__(self, model_runner, decode_wrapper, verify_wrapper):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.wrappers = {ForwardMode.DECODE: decode_wrapper, ForwardMode.TARGET_VERIFY: verify_wrapper}
        self._planners = {
            ForwardMode.DECODE: lambda w, m: w.plan(  # positive: f4 CL002 KV planned as the model dtype over an FP8 pool
                qo_indptr=m.qo_indptr, kv_indptr=m.kv_indptr, kv_indices=m.kv_indices,
                kv_len_arr=m.kv_lens, num_heads=16, head_dim_ckv=512, head_dim_kpe=64,
                page_size=1, causal=False, sm_scale=m.sm_scale,
                q_data_type=self.data_type, kv_data_type=self.data_type,
            ),
            ForwardMode.TARGET_VERIFY: lambda w, m: w.plan(  # negative: kv_data_type is the pool's dtype
                qo_indptr=m.qo_indptr, kv_indptr=m.kv_indptr, kv_indices=m.kv_indices,
                kv_len_arr=m.kv_lens, num_heads=16, head_dim_ckv=512, head_dim_kpe=64,
                page_size=1, causal=True, sm_scale=m.sm_scale,
                q_data_type=self.data_type, kv_data_type=self.kv_cache_dtype,
            ),
        }

    def init_forward_metadata(self, forward_batch):
        mode = forward_batch.forward_mode
        meta = self._metadata(forward_batch)
        self._planners[mode](self.wrappers[mode], meta)

    def _metadata(self, forward_batch):
        return forward_batch.spec_info
