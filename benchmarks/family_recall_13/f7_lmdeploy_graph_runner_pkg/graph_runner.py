import torch

from .convert import cast_offsets, densify_caches


class CUDAGraphRunner:
    def __init__(self, model, model_config, cache_config, backend_config):
        self.model = model
        self.dtype = model_config.dtype
        self.enable_graph = not backend_config.eager_mode
        self._runner_map = {}

    def capture(self, **kwargs):
        caches = kwargs["past_key_values"]
        self.warm = [k.to(self.dtype) for k, _ in caches]  # negative: one-time warm-up at capture

    def __call__(self, **kwargs):
        kwargs["past_key_values"] = densify_caches(kwargs["past_key_values"], self.dtype)
        md = kwargs["attn_metadata"]
        md.block_offsets = cast_offsets(md.block_offsets)
        if not self.enable_graph:
            return self.model(**kwargs)
        return self._runner_map[kwargs["input_ids"].size(-1)](**kwargs)
