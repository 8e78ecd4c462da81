import torch


class DoubleSparsePoolLike:
    def __init__(self, size, head_num, head_dim, heavy_channel_num, layer_num, dtype, device, start_layer=0):
        self.start_layer = start_layer
        self.dtype = dtype
        self.k_buffer = [torch.empty((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.label_buffer = [
            torch.empty((size + 1, head_num, heavy_channel_num), dtype=dtype, device=device) for _ in range(layer_num)
        ]
        self.extra_k_buffer = [torch.empty((size + 1, 1, 128), dtype=dtype, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id: int):
        return self.k_buffer[layer_id - self.start_layer]

    def get_label_buffer(self, layer_id: int):
        return self.label_buffer[layer_id - self.start_layer]

    def get_extra_key_buffer(self, layer_id: int):
        return self.extra_k_buffer[layer_id - self.start_layer]


class LabelBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        labels = self.pool.get_label_buffer(layer.layer_id).float()  # positive: f6 CL001 label buffer accessor
        extra = self.pool.get_extra_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 extra-key buffer accessor
        heavy = self.pool.get_label_buffer(layer.layer_id)[forward_batch.out_cache_loc].float()  # negative: gathered rows
        return labels, extra, heavy
