import torch


class PrefixHitScorer:
    """On a radix prefix hit, re-score the matched prefix against the current query."""

    def __init__(self, tree_cache):
        self.tree_cache = tree_cache

    def on_prefix_hit(self, layer_id, q, prefix_indices):
        k_pool, v_pool = self.tree_cache.token_to_kv_pool_allocator.get_kvcache().get_kv_buffer(layer_id)
        k_all = k_pool.to(torch.bfloat16)  # positive: f1 CL001 whole key pool reached via tree_cache allocator
        k_hit = k_pool[prefix_indices].to(torch.bfloat16)  # negative: matched prefix rows
        v_hit = torch.index_select(v_pool, 0, prefix_indices).to(q.dtype)  # negative: index_select rows
        return k_all, k_hit, v_hit


class TritonAttnBackend:
    def __init__(self, model_runner, tree_cache):
        self.scorer = PrefixHitScorer(tree_cache)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self.scorer.on_prefix_hit(layer.layer_id, q, forward_batch.prefix_indices)
