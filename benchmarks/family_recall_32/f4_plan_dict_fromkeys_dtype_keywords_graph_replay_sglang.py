"""sglang FlashInfer MLA graph replay: plan dtypes from **dict.fromkeys(("q_data_type", "kv_data_type"), model_dtype)."""
import torch

_DTYPE_KEYS = ("q_data_type", "kv_data_type")


class FlashInferMLAGraphBackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # torch.float8_e4m3fn

    def init_forward_metadata_capture_cuda_graph(self, bs, wrapper, kv_indptr, kv_indices, kv_lens):
        wrapper.plan(kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1,  # negative: plan declares the pool's kv dtype
                     q_data_type=self.model_dtype, kv_data_type=self.kv_cache_dtype)

    def init_forward_metadata_replay_cuda_graph(self, bs, wrapper, kv_indptr, kv_indices, kv_lens):
        dtypes = dict.fromkeys(_DTYPE_KEYS, self.model_dtype)
        wrapper.plan(kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1, **dtypes)  # positive: f4 CL002 q and kv both the model dtype while the pool is FP8

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        kv = kv.to(q.dtype)  # positive: f4 CL001 whole MLA key buffer for the bf16 plan
        return self.wrapper.run(q[..., :512], q[..., 512:], kv[..., :512], kv[..., 512:])
