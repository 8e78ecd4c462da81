"""A reader built from pool.kv_buffer, consulted every decode step."""
import torch


class LayerReader:
    """Wraps the list of per-layer arenas of an MLA pool."""

    def __init__(self, kv_buffer, start_layer: int = 0):
        self.buf = kv_buffer
        self.start_layer = start_layer

    def layer(self, layer_id: int) -> torch.Tensor:
        return self.buf[layer_id - self.start_layer]

    def rows(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        return self.buf[layer_id - self.start_layer][loc]


class ReaderBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.reader = LayerReader(pool.kv_buffer, pool.start_layer)
        self.device = model_runner.device
        # warm-up copy done once at construction, not per step
        self._probe = self.reader.layer(pool.start_layer).float()  # negative: init-time, not per step

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.reader.layer(layer.layer_id)
        kv_f = kv.float()  # positive: f1 CL001 whole layer arena from reader built on pool.kv_buffer
        return torch.matmul(q.float(), kv_f[:, 0, :].T)  # negative: q is a batch tensor

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        sel = self.reader.rows(layer.layer_id, forward_batch.out_cache_loc)
        sel = sel.to(q.dtype)  # negative: rows() already gathered
        on_dev = self.reader.layer(layer.layer_id).to(self.device)  # negative: device move only, no dtype
        return sel, on_dev
