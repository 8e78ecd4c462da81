import torch


class NestedArenaBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.arena = {
            "full": {"k": pool.full_kv_pool.k_buffer, "v": pool.full_kv_pool.v_buffer},
            "swa": {"k": pool.swa_kv_pool.k_buffer, "v": pool.swa_kv_pool.v_buffer},
        }
        self.layer_map = pool.layers_mapping

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        idx, is_swa = self.layer_map[layer.layer_id]
        kind = "swa" if is_swa else "full"
        k_buf = self.arena[kind]["k"][idx].to(q.dtype)  # positive: f3 CL001 nested dict of per-layer buffers
        side = self.arena[kind]
        v_buf = side["v"][idx].to(q.dtype)  # positive: f3 CL001 inner dict taken out first
        return k_buf, v_buf
