import torch


class PrefixReuseScorer:
    """Scores cached prefix blocks by key magnitude before deciding what to evict."""

    def __init__(self, runner):
        self.runner = runner

    def score(self, layer_name: str, block_ids=None):
        kv_cache = self.runner.kv_caches[self.runner.layer_index[layer_name]]
        if block_ids is None:
            keys = kv_cache[0].float()  # positive: f1 CL001 key plane of every block widened
        else:
            keys = kv_cache[0, block_ids].float()  # negative: blocks selected before the cast
        return keys.abs().mean(dim=(-1, -2, -3))


class GPUModelRunner:
    def __init__(self, kv_caches, layer_index):
        self.kv_caches = kv_caches
        self.layer_index = layer_index
        self.scorer = PrefixReuseScorer(self)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        for name in scheduler_output.scored_layers:
            self.scorer.score(name)
        return scheduler_output.block_table.to(torch.int32)  # negative: block table
