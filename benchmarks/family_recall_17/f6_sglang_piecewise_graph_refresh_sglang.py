"""sglang piecewise CUDA graph runner: the captured attention pieces read bf16 static
copies of the FP8 pool; replay refreshes them with copy_ (a conversion), capture fills them once."""
import torch


class PiecewiseCudaGraphRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.layers = range(self.pool.start_layer, self.pool.end_layer)
        self.static_k = {
            i: torch.empty(self.pool.get_key_buffer(i).shape, dtype=model_runner.dtype, device=model_runner.device)
            for i in self.layers
        }

    def capture(self):
        for i in self.layers:
            self.static_k[i].copy_(self.pool.get_key_buffer(i))  # negative: one-time fill at capture
        return self._capture_pieces()

    def replay(self, forward_batch, **kwargs):
        for i in self.layers:
            self.static_k[i].copy_(self.pool.get_key_buffer(i))  # positive: f6 CL001 whole layer into a bf16 static buffer, every replay
        loc = forward_batch.out_cache_loc
        first = self.pool.start_layer
        rows = self.pool.get_key_buffer(first)[loc].to(self.static_k[first].dtype)  # negative: this step's rows
        self.static_k[first].index_copy_(0, loc, rows)
        return self._replay_pieces(forward_batch)

    def _capture_pieces(self):
        return None

    def _replay_pieces(self, forward_batch):
        return None
