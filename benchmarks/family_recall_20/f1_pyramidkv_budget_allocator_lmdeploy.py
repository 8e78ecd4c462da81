import torch


class PyramidKVBudget:
    """PyramidKV: per-layer token budgets from the attention mass each layer's cache receives."""

    def __init__(self, cache_engine, base_budget):
        self.cache_engine = cache_engine
        self.base_budget = torch.tensor(base_budget, dtype=torch.float32)

    def layer_mass(self, layer_idx, query):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        k = k_cache.flatten(0, 1).float()  # positive: f1 CL001 whole key cache of the layer, reached through the allocator's cache engine
        v_norm = v_cache.float().norm(dim=-1)  # positive: f1 CL001 whole value cache widened for its norms
        q = query.float()  # negative: the query
        return (q @ k.transpose(-1, -2)).softmax(-1).sum(), v_norm

    def allocate(self, attn_metadata, query):
        budgets = self.base_budget.to(query.device)  # negative: .to(device) of a budget table
        recent = self.cache_engine.gpu_cache[0][0][attn_metadata.block_offsets[:, -1]].float()  # negative: blocks selected first
        return budgets, recent


class PyramidKVModelAgent:
    def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        out = self.patched_model(inputs)
        for layer_idx in range(self.num_layers):
            self.budget.layer_mass(layer_idx, out.last_query[layer_idx])
        self.budget.allocate(inputs.attn_metadata, out.last_query[0])
        return out
