# sglang FlashInfer MLA backend with an FP8 pool, CUDA graph capture and replay: the replay plan takes its
# dtype keywords from a dict comprehension with f-string keys, both mapped to the model dtype.
import torch


class FlashInferMLAGraphPlanner:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.pool = model_runner.token_to_kv_pool

    def _dtype_kwargs(self, kv_dtype):
        return {f"{role}_data_type": dt for role, dt in (("q", self.model_dtype), ("kv", kv_dtype))}

    def init_forward_metadata_capture_cuda_graph(self, bs, wrapper, indptr, indices, kv_lens):
        wrapper.plan(indptr, indptr, indices, kv_lens, 16, 512, 64, 1, False, 0.1, **self._dtype_kwargs(self.kv_cache_dtype))  # negative: plans the pool's own kv dtype

    def init_forward_metadata_replay_cuda_graph(self, bs, wrapper, indptr, indices, kv_lens):
        wrapper.plan(  # positive: f4 CL002 q and kv dtypes both the model dtype from the f-string dict comprehension, pool FP8
            indptr, indptr, indices, kv_lens, 16, 512, 64, 1, False, 0.1,
            **{f"{role}_data_type": self.model_dtype for role in ("q", "kv")},
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ckv = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 whole per-layer latent buffer fed to the bf16 plan
        q_nope, q_pe = q.split([512, 64], dim=-1)
        return self.decode_wrapper.run(q_nope, q_pe, ckv[..., :512], ckv[..., 512:])
