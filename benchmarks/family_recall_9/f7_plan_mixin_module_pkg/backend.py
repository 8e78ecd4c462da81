import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper

from .planning import PlanMixin


class MixinPlanMLABackend(PlanMixin):
    def __init__(self, model_runner, workspace):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # FP8 pool
        self.num_heads = model_runner.model_config.num_attention_heads
        self.sm_scale = model_runner.model_config.scaling
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.native_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.use_native = False

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_indices
        if self.use_native:
            self._plan_native(self.native_wrapper, m)
        else:
            self._plan_decode(self.decode_wrapper, m)
        self.kv_lens = m.kv_lens.to(torch.int32)  # negative: lengths
