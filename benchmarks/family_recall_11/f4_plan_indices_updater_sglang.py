import torch


class MLAIndicesUpdaterDecode:
    def __init__(self, model_runner, backend):
        self.num_heads = model_runner.model_config.num_attention_heads
        self.data_type = model_runner.dtype
        self.kv_dtype = model_runner.kv_cache_dtype
        self.backend = backend

    def update(self, req_pool_indices, seq_lens, wrapper, init_metadata_replay=False):
        bs = len(req_pool_indices)
        kv_indptr = self.backend.kv_indptr[: bs + 1]
        kv_indptr[1 : bs + 1] = torch.cumsum(seq_lens, dim=0)
        kv_indices = self.backend.kv_indices[: int(kv_indptr[-1])]
        qo_indptr = self.backend.qo_indptr[: bs + 1]
        self._call_plan(wrapper, qo_indptr, kv_indptr, kv_indices, seq_lens.to(torch.int32))  # negative: lengths

    def _call_plan(self, wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens):
        sm_scale = 1.0 / (192 ** 0.5)
        wrapper.plan(  # positive: f4 CL002 decode plan with the model dtype for q and kv while the pool is FP8
            qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, False,
            sm_scale, self.data_type, self.data_type,
        )


class NativeFp8UpdaterDecode(MLAIndicesUpdaterDecode):
    def _call_plan(self, wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens):
        wrapper.plan(  # negative: kv planned with the pool's FP8 dtype
            qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, False,
            1.0 / (192 ** 0.5), self.data_type, self.kv_dtype,
        )


class UpdaterBackend:
    def init_forward_metadata(self, forward_batch):
        self.indices_updater_decode.update(
            forward_batch.req_pool_indices, forward_batch.seq_lens, self.decode_wrapper
        )
