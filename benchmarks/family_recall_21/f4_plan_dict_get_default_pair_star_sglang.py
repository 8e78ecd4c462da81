import torch


class FlashInferMLAMultiStepDraftBackend:
    """Draft steps plan the MLA decode wrapper with per-mode dtype pairs."""

    def __init__(self, model_runner, wrappers):
        self.wrappers = wrappers
        self.q_dtype = model_runner.dtype
        self.kv_dtype = model_runner.kv_cache_dtype
        self.plan_dtypes = {"native": (self.q_dtype, self.kv_dtype)}

    def init_forward_metadata(self, forward_batch, kv_indptr, kv_indices, kv_lens, page_size, sm_scale):
        mode = "native" if forward_batch.spec_info is None else "draft"
        dtypes = self.plan_dtypes.get(mode, (self.q_dtype, self.q_dtype))
        qo = torch.arange(forward_batch.batch_size + 1, dtype=torch.int32, device=kv_indptr.device)
        for w in self.wrappers:
            w.plan(qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, page_size, False, sm_scale, *dtypes)  # positive: f4 CL002 draft mode plans kv as the q dtype (dict.get default pair)

    def init_native_only(self, forward_batch, kv_indptr, kv_indices, kv_lens, page_size, sm_scale):
        qo = torch.arange(forward_batch.batch_size + 1, dtype=torch.int32, device=kv_indptr.device)
        self.wrappers[0].plan(qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, page_size, False, sm_scale, *self.plan_dtypes["native"])  # negative: pool dtype
