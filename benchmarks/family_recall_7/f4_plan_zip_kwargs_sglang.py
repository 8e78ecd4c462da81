"""f4: FlashInfer MLA plan dtypes passed as **dict(zip(names, dtypes)) and via a walrus (FP8 pool)."""
import torch
from flashinfer import BatchPrefillWithRaggedKVCacheWrapper
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class ZipPlanBackend:
    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.q_data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # float8_e4m3fn for this pool
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.prefill_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.native_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.scale = model_runner.model_config.scaling
        self.ragged = BatchPrefillWithRaggedKVCacheWrapper(workspace, "NHD")

    def init_forward_metadata(self, forward_batch):
        qo, kv_indptr, kv_indices, kv_lens = forward_batch.mla_indices
        names = ("q_data_type", "kv_data_type")
        dts = dict(zip(names, (self.q_data_type, self.data_type)))
        self.decode_wrapper.plan(  # positive: f4 CL002 kv dtype from dict(zip(...)) is the model dtype
            qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, self.scale, **dts
        )
        self.prefill_wrapper.plan(  # positive: f4 CL002 walrus binds the model dtype for both q and kv
            qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, True, self.scale, (dt := self.data_type), dt
        )
        native = dict(zip(names, (self.q_data_type, self.kv_cache_dtype)))
        self.native_wrapper.plan(  # negative: kv dtype is the pool's FP8 dtype
            qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, self.scale, **native
        )
        self.ragged.plan(qo, qo, 16, 16, 192, 128, q_data_type=self.q_data_type, kv_data_type=self.data_type)  # negative: ragged wrapper over the batch's k/v
        return torch.empty(0)
