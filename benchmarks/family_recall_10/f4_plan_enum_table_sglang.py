"""Plan dtype pairs kept in a dict keyed by an Enum of modes, filled in __init__, splatted into plan."""
import enum

from flashinfer.mla import BatchMLAPagedAttentionWrapper


class Mode(enum.Enum):
    DECODE = enum.auto()
    VERIFY = enum.auto()


class EnumTablePlanBackend:
    def __init__(self, model_runner, workspace):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self._plan_dtypes = {
            Mode.DECODE: (self.dtype, self.dtype),
            Mode.VERIFY: (self.dtype, self.kv_cache_dtype),
        }
        self.wrappers = {m: BatchMLAPagedAttentionWrapper(workspace) for m in Mode}

    def init_forward_metadata(self, forward_batch):
        mode = Mode.VERIFY if forward_batch.forward_mode.is_target_verify() else Mode.DECODE
        a = forward_batch.plan_args
        if mode is Mode.DECODE:
            self.wrappers[mode].plan(*a, *self._plan_dtypes[Mode.DECODE])  # positive: f4 CL002 enum-keyed pair is (model, model)
        else:
            self.wrappers[mode].plan(*a, *self._plan_dtypes[Mode.VERIFY])  # negative: the VERIFY pair plans the pool dtype
