import torch


class FlashInferMLAIndicesUpdaterDecode:
    def __init__(self, model_runner):
        for name in ("q_data_type", "kv_data_type"):
            setattr(self, name, model_runner.dtype)
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def call_begin_forward(self, wrapper, kv_indptr, kv_indices, kv_lens, sm_scale):
        qo_indptr = torch.arange(0, kv_lens.numel() + 1, dtype=torch.int32)  # negative: index tensor
        wrapper.plan(  # positive: f4 CL002 q/kv dtypes both set to the model dtype by the setattr loop
            qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, sm_scale,
            self.q_data_type, self.kv_data_type,
        )

    def call_native(self, wrapper, kv_indptr, kv_indices, kv_lens, sm_scale):
        qo_indptr = torch.arange(0, kv_lens.numel() + 1, dtype=torch.int32)
        wrapper.plan(  # negative: kv dtype is the pool dtype
            qo_indptr, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, sm_scale,
            self.q_data_type, self.kv_cache_dtype,
        )
