"""vLLM EAGLE proposer: the target runner's kv_caches read through functools.partial(getattr, runner, name)."""
import functools

import torch


class EagleProposer:
    def __init__(self, vllm_config, runner, device):
        self.model_dtype = vllm_config.model_config.dtype
        self._target_caches = functools.partial(getattr, runner, "kv_caches")
        self._block_size = vllm_config.cache_config.block_size
        self.device = device

    def propose(self, target_hidden, common_attn_metadata, layer_ids):
        caches = self._target_caches()
        dense = []
        for lid in layer_ids:
            kv = caches[lid]
            if common_attn_metadata.max_query_len == 1:
                dense.append(kv.to(self.model_dtype))  # positive: f1 CL001 whole target layer [2, blocks, ...] every draft step
            else:
                blocks = common_attn_metadata.block_table_tensor[:, 0]
                dense.append(kv[:, blocks].to(self.model_dtype))  # negative: first-block gather before the cast
        hidden = target_hidden.to(self.model_dtype)  # negative: hidden states
        slots = common_attn_metadata.slot_mapping.to(self.device)  # negative: slot mapping device move
        return self._draft(hidden, dense, slots)

    def _draft(self, hidden, dense, slots):
        return hidden, dense, slots
