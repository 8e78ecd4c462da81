"""sglang FlashInfer MLA: plan() dtype keywords built with dict(zip(keys, dtypes)) in CUDA graph replay."""
import torch

_PLAN_DTYPE_KEYS = ("q_data_type", "kv_data_type")


class FlashInferMLAGraphBackend:
    def __init__(self, model_runner, num_heads, sm_scale):
        self.pool = model_runner.token_to_kv_pool
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.plan_dtypes = (model_runner.dtype, model_runner.dtype)
        self.num_heads = num_heads
        self.sm_scale = sm_scale
        self.decode_wrappers = {}
        self.qo_indptr = torch.arange(0, 513, dtype=torch.int32, device="cuda")

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        w = self.decode_wrappers[bs]
        w.plan(self.qo_indptr[: bs + 1], self.kv_indptr[: bs + 1], self.kv_indices, seq_lens.int(), self.num_heads, 512, 64, 1, False, self.sm_scale, self.plan_dtypes[0], self.kv_cache_dtype)  # negative: q model dtype, kv the pool's dtype

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        kv_lens = seq_lens[:bs].to(torch.int32)  # negative: lengths
        self.decode_wrappers[bs].plan(  # positive: f4 CL002 q and kv dtypes both model dtype through **dict(zip(...)) while the pool is FP8
            self.qo_indptr[: bs + 1], self.kv_indptr[: bs + 1], self.kv_indices, kv_lens,
            self.num_heads, 512, 64, 1, False, self.sm_scale,
            **dict(zip(_PLAN_DTYPE_KEYS, self.plan_dtypes)),
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 whole per-layer buffer for the BF16 plan
        w = self.decode_wrappers[forward_batch.batch_size]
        return w.run(q[..., :512], q[..., 512:], k_buf[..., :512], k_buf[..., 512:])
