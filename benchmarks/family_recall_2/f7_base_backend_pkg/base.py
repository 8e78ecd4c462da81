import torch


def read_whole_values(pool, layer_id: int) -> torch.Tensor:
    return pool.get_value_buffer(layer_id)


class PoolReadingBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.device = model_runner.device

    def _keys(self, layer) -> torch.Tensor:
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def _selected_keys(self, layer, loc: torch.Tensor) -> torch.Tensor:
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]
