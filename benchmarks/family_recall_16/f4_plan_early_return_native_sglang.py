import torch


class FlashInferDecodeBackend:
    def __init__(self, model_runner, decode_wrapper):
        self.decode_wrapper = decode_wrapper
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.dtype = model_runner.dtype
        self.cfg = model_runner.model_config
        self.has_fp8_decode = torch.cuda.get_device_capability() >= (9, 0)

    def _plan(self, indptr, indices, last_page_len):
        common = dict(num_qo_heads=self.cfg.num_attention_heads, num_kv_heads=self.cfg.num_key_value_heads, head_dim=self.cfg.head_dim, page_size=1)
        if self.has_fp8_decode:
            return self.decode_wrapper.plan(indptr, indices, last_page_len, q_data_type=self.dtype, kv_data_type=self.kv_cache_dtype, **common)  # negative: native FP8 kv
        self.decode_wrapper.plan(indptr, indices, last_page_len, q_data_type=self.dtype, kv_data_type=self.dtype, **common)  # positive: f4 CL002 fallback after the early return plans kv as model dtype

    def init_forward_metadata(self, forward_batch):
        self._plan(forward_batch.kv_indptr, forward_batch.kv_indices, forward_batch.kv_last_page_len)
