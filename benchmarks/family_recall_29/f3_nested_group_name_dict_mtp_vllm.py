"""vLLM MTP proposer: {group_id: {layer_name: kv_cache}} built from the forward context each propose."""
import torch


class MTPProposer:
    def __init__(self, vllm_config, runner):
        self.runner = runner
        self.dtype = vllm_config.model_config.dtype
        self.groups = {}

    def _collect(self, forward_context):
        nested = {}
        for name, attn in forward_context.no_compile_layers.items():
            gid = self.runner.layer_to_group[name]
            nested.setdefault(gid, {})[name] = attn.kv_cache[0]
        return nested

    def propose(self, target_token_ids, target_hidden_states, forward_context, common_attn_metadata):
        nested = self._collect(forward_context)
        dense = {}
        for gid, by_name in nested.items():
            for name, cache in by_name.items():
                dense[name] = cache.to(self.dtype)  # positive: f3 CL001 whole latent cache of every target layer
        last_ids = target_token_ids[common_attn_metadata.query_start_loc[1:] - 1].to(torch.int64)  # negative: token ids
        slots = common_attn_metadata.slot_mapping
        tail = {n: c.flatten(0, 1)[slots].to(self.dtype) for g in nested.values() for n, c in g.items()}  # negative: slots first
        return self._heads(last_ids, target_hidden_states, dense, tail)
