"""The decode plan is issued by a planner object that remembers the dtypes."""
import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class DecodePlanner:
    def __init__(self, wrapper: BatchMLAPagedAttentionWrapper, q_dtype, kv_dtype):
        self.wrapper = wrapper
        self.q_dtype = q_dtype
        self.kv_dtype = kv_dtype

    def plan(self, qo_indptr, kv_indptr, kv_indices, kv_lens, num_heads, ckv_dim, kpe_dim, page_size, sm_scale):
        self.wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, num_heads, ckv_dim, kpe_dim, page_size, False, sm_scale, self.q_dtype, self.kv_dtype)  # note: dtype decided by the constructor call


class PlannerMLABackend:
    def __init__(self, model_runner, workspace):
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="auto")
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        # kv declared in the model dtype while the pool is FP8
        self.planner = DecodePlanner(self.wrapper, self.model_dtype, self.model_dtype)
        self.native_planner = DecodePlanner(self.wrapper, self.model_dtype, self.kv_cache_dtype)

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.mla_meta
        self.planner.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, self.model_dtype, self.model_dtype)  # positive: f1 CL002 planner's wrapper planned with kv in model dtype
        self.native_planner.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, self.model_dtype, self.kv_cache_dtype)  # negative: kv declared in the pool dtype (native FP8 read)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buffer = pool.get_key_buffer(layer.layer_id)
        return self.wrapper.run(q[..., :512], q[..., 512:], k_buffer[..., :512], k_buffer[..., 512:])
