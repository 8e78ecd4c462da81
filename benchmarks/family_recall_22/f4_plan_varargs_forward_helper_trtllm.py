import torch


class FlashInferAttentionMetadata:
    def __init__(self, model_dtype, kv_dtype):
        self.model_dtype = model_dtype
        self.kv_dtype = kv_dtype

    def _plan_with_params(self, wrapper, *args, **extra):
        wrapper.plan(*args, **extra)  # positive: f4 CL002 dtypes forwarded through *args: prepare() passes the model dtype twice

    def prepare(self, wrapper, indptr, indices, last_page_len):
        self._plan_with_params(
            wrapper, indptr, indices, last_page_len, 32, 8, 128, 64,
            q_data_type=self.model_dtype, kv_data_type=self.model_dtype,
        )

    def prepare_native(self, wrapper, indptr, indices, last_page_len):
        wrapper.plan(  # negative: direct plan with the cache dtype
            indptr, indices, last_page_len, 32, 8, 128, 64,
            q_data_type=self.model_dtype, kv_data_type=self.kv_dtype,
        )
        return indptr.to(torch.int32)  # negative: index tensor
