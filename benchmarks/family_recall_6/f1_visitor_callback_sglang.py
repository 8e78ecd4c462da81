"""The pool hands buffers to a visitor callback; the backend's callback converts them."""
import torch


class MLATokenPool:
    def __init__(self, size, kv_lora_rank, qk_rope_head_dim, layer_num, device):
        self.kv_buffer = [
            torch.zeros((size + 1, 1, kv_lora_rank + qk_rope_head_dim), dtype=torch.uint8, device=device)
            for _ in range(layer_num)
        ]
        self.dtype = torch.float8_e4m3fn

    def visit_layer(self, layer_id, fn):
        return fn(self.kv_buffer[layer_id].view(self.dtype))

    def visit_rows(self, layer_id, loc, fn):
        return fn(self.kv_buffer[layer_id][loc].view(self.dtype))


class VisitorMLABackend:
    def __init__(self, pool, kv_lora_rank):
        self.pool = pool
        self.kv_lora_rank = kv_lora_rank
        self.compute_dtype = torch.bfloat16

    def _densify(self, lat):
        return lat.to(self.compute_dtype)  # positive: f1 CL001 every caller visits a whole layer

    def _latent_only(self, lat):
        return lat[..., : self.kv_lora_rank].float()  # positive: f1 CL001 every token's latent part of the whole layer

    def _rows_to_compute(self, rows):
        return rows.to(self.compute_dtype)  # negative: visited rows are gathered at loc

    def forward_decode(self, q, k, v, layer, forward_batch):
        whole = self.pool.visit_layer(layer.layer_id, self._densify)
        lat = self.pool.visit_layer(layer.layer_id, self._latent_only)
        fresh = self.pool.visit_rows(layer.layer_id, forward_batch.out_cache_loc, self._rows_to_compute)
        q_dense = q.to(self.compute_dtype)  # negative: batch query
        raw = self.pool.visit_layer(layer.layer_id, lambda t: t.view(torch.uint8))  # negative: reinterpret in a visitor
        return whole, lat, fresh, q_dense
