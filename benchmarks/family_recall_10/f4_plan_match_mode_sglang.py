"""Keyword-form plans chosen by a match statement on the forward mode."""
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class MatchPlanBackend:
    def __init__(self, model_runner, workspace):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.mla_metadata
        match forward_batch.forward_mode.name:
            case "DECODE" | "IDLE":
                self.wrapper.plan(metadata=md, num_heads=16, q_data_type=self.model_dtype, kv_data_type=self.model_dtype)  # positive: f4 CL002 decode arm plans kv as the model dtype
            case "TARGET_VERIFY":
                self.wrapper.plan(metadata=md, num_heads=16, q_data_type=self.model_dtype, kv_data_type=self.kv_cache_dtype)  # negative: native FP8 kv
            case _:
                pass
