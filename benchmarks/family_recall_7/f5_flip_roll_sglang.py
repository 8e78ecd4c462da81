"""f5: torch.flip and Tensor.roll of whole pool layers before a conversion."""
import torch


class FlipRollBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch):
        kb = self.pool.get_key_buffer(layer.layer_id)
        rev = torch.flip(kb, (0,)).float()  # positive: f5 CL001 flipped copy of the whole layer
        rolled = self.pool.get_value_buffer(layer.layer_id).roll(1, 0).to(self.dtype)  # positive: f5 CL001 rolled whole layer
        pos = torch.roll(forward_batch.positions, 1).to(torch.int64)  # negative: positions
        recent = torch.flip(kb[forward_batch.out_cache_loc], (0,)).float()  # negative: the step's rows, flipped
        return rev, rolled, pos, recent
