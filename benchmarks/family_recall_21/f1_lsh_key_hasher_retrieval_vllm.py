import torch


class SimHashKeyIndex:
    """MagicPIG-style LSH over the cached keys; rebuilt from the runner's caches every step."""

    def __init__(self, runner, num_bits: int = 64):
        self.runner = runner
        head_size = runner.model_config.get_head_size()
        self.planes = torch.randn(head_size, num_bits).to(runner.device)  # negative: .to(device) of the planes

    def _caches(self):
        return self.runner.kv_caches

    def hash_layer(self, layer_idx: int) -> torch.Tensor:
        key_cache = self._caches()[layer_idx][0]
        flat = key_cache.flatten(0, 1).to(torch.float32)  # positive: f1 CL001 whole key plane of the layer
        return (flat @ self.planes) > 0

    def hash_query(self, query: torch.Tensor) -> torch.Tensor:
        return (query.to(torch.float32) @ self.planes) > 0  # negative: query tensor


class LSHRetrievalRunner:
    def __init__(self, runner):
        self.index = SimHashKeyIndex(runner)

    def execute_model(self, scheduler_output, query_by_layer):
        codes = {}
        for idx, q in query_by_layer.items():
            codes[idx] = (self.index.hash_layer(idx), self.index.hash_query(q))
        return codes
