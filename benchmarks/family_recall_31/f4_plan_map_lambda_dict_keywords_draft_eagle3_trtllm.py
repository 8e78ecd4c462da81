# TensorRT-LLM FlashInfer backend, EAGLE3 draft layers over an FP8 cache: the draft wrapper's plan keywords
# are built by dict(map(lambda ...)) over the dtype keyword names, each mapped to the model dtype.
import torch

_PLAN_DTYPE_KEYS = ("q_data_type", "kv_data_type")


class Eagle3DraftFlashInferMetadata:
    def __init__(self, model_config, kv_cache_manager):
        self.model_dtype = model_config.torch_dtype
        self.kv_dtype = kv_cache_manager.dtype
        self.page_lens = None

    def prepare(self, draft_wrapper, target_wrapper, plan_args):
        kw = dict(map(lambda key: (key, self.model_dtype), _PLAN_DTYPE_KEYS))
        draft_wrapper.plan(*plan_args, **kw)  # positive: f4 CL002 q and kv dtypes both the model dtype, FP8 cache
        target_wrapper.plan(*plan_args, q_data_type=self.model_dtype, kv_data_type=self.kv_dtype)  # negative: the cache's own kv dtype
        self.page_lens = plan_args[3].to(torch.int32)  # negative: lengths

    def draft_step(self, draft_wrapper, q, kv_cache, step):
        q = q.to(self.model_dtype)  # negative: the query
        return draft_wrapper.run(q, kv_cache)
