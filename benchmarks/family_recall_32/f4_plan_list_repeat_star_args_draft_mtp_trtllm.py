"""TRT-LLM MTP draft FlashInfer MLA: plan positional args end with *[model_dtype] * 2."""
import torch


class MTPDraftFlashInferMLA:
    def __init__(self, model_config, wrapper, kv_cache_dtype=torch.float8_e4m3fn):
        self.model_dtype = model_config.torch_dtype
        self.kv_cache_dtype = kv_cache_dtype
        self.wrapper = wrapper

    def _base_args(self, metadata):
        return [metadata.qo_indptr, metadata.kv_indptr, metadata.kv_indices, metadata.kv_lens,
                16, 512, 64, metadata.tokens_per_block, False, 0.1]

    def prepare(self, metadata):
        if metadata.spec_metadata.is_draft_step:
            args = [*self._base_args(metadata), *[self.model_dtype] * 2]
            self.wrapper.plan(*args)  # positive: f4 CL002 q and kv dtypes both the model dtype while the pool is FP8
        else:
            args = [*self._base_args(metadata), self.model_dtype, self.kv_cache_dtype]
            self.wrapper.plan(*args)  # negative: kv dtype is the cache's FP8
        metadata.draft_lens.copy_(metadata.host_draft_lens.to("cuda"))  # negative: lengths device move
