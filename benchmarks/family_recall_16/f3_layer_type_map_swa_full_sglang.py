import torch


class HybridSWADecodeBackend:
    def __init__(self, model_runner):
        cfg = model_runner.model_config
        self.layer_types = {i: cfg.layer_types[i] for i in range(cfg.num_hidden_layers)}
        self.pool = model_runner.token_to_kv_pool
        self.window = cfg.sliding_window

    def forward_decode(self, q, k, v, layer, forward_batch):
        kind = self.layer_types[layer.layer_id]
        key = self.pool.get_key_buffer(layer.layer_id)
        if kind == "sliding_attention":
            loc = forward_batch.swa_token_indices[:, -self.window:]
            return key[loc].to(q.dtype)  # negative: window rows
        if kind == "full_attention":
            return key.to(q.dtype)  # positive: f3 CL001 full layers read the whole layer
        return key.to(torch.float32)  # positive: f3 CL001 any other layer kind in the map also reads the whole layer
