import torch

from . import handlers


class EagleProposer:
    def __init__(self, vllm_config, runner):
        self.runner = runner
        self.model_dtype = vllm_config.model_config.dtype
        self.table = handlers.BASE | handlers.SPEC

    def propose(self, target_hidden, common_attn_metadata, layer_names):
        mode = "dense" if common_attn_metadata.max_query_len == 1 else "blocks"
        fn = self.table[mode]
        caches = [fn(self.runner.kv_caches[n], common_attn_metadata.block_table_tensor, self.model_dtype)
                  for n in layer_names]
        return target_hidden.to(self.model_dtype), caches  # negative: hidden states
