import torch


class FlashInferMLABackend:
    def __init__(self, model_runner, decode_wrapper):
        self.decode_wrapper = decode_wrapper
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self._plan_dtypes = dict(q_data_type=model_runner.dtype, kv_data_type=model_runner.dtype)
        self._native_dtypes = dict(q_data_type=model_runner.dtype, kv_data_type=model_runner.kv_cache_dtype)

    def init_forward_metadata(self, forward_batch):
        self.decode_wrapper.plan(  # positive: f4 CL002 stored kwargs declare the model dtype for the FP8 pool
            forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices,
            forward_batch.kv_lens, 16, 512, 64, 1, False, 0.1, **self._plan_dtypes,
        )

    def init_forward_metadata_draft(self, forward_batch):
        self.decode_wrapper.plan(  # negative: native pair (pool dtype)
            forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices,
            forward_batch.kv_lens, 16, 512, 64, 1, False, 0.1, **self._native_dtypes,
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 conversion the plan forces
        return self.decode_wrapper.run(q[..., :512], q[..., 512:], k_buf[..., :512], k_buf[..., 512:])
