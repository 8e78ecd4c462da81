"""sglang FlashInfer MLA: plan dtypes from a stored lambda returning (dtype,) * 2, used in graph replay."""
import torch


class FlashInferMLAAttnBackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self._dtypes = lambda: (self.model_dtype,) * 2
        self._native = lambda: (self.model_dtype, self.kv_cache_dtype)

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, *rest):
        w = self.cuda_graph_decode_wrappers[bs]
        w.plan(self.qo_indptr[: bs + 1], self.kv_indptr[: bs + 1], self.kv_indices,  # negative: kv dtype is the pool's own
               seq_lens, 16, 512, 64, 1, False, self.sm_scale, *self._native())

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, *rest):
        w = self.cuda_graph_decode_wrappers[bs]
        w.plan(self.qo_indptr[: bs + 1], self.kv_indptr[: bs + 1], self.kv_indices,  # positive: f4 CL002 both dtypes from (model_dtype,) * 2 while the pool is FP8
               seq_lens, 16, 512, 64, 1, False, self.sm_scale, *self._dtypes())

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 whole pool for the BF16 plan
        q_nope = q.view(-1, layer.tp_q_head_num, layer.head_dim).to(self.model_dtype)  # negative: the query
        return self.decode_wrapper.run(q_nope[..., :512], q_nope[..., 512:], k_buf[..., :512], k_buf[..., 512:])
