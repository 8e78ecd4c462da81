import torch


class DoubleSparseTokenToKVPool:
    def __init__(self, size, dtype, store_dtype, head_num, head_dim, heavy_channel_num, layer_num, device):
        self.dtype = dtype
        self.store_dtype = store_dtype
        self.k_buffer = [torch.zeros(size + 1, head_num, head_dim, dtype=store_dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(size + 1, head_num, head_dim, dtype=store_dtype, device=device) for _ in range(layer_num)]
        self.label_buffer = [torch.zeros(size + 1, head_num, heavy_channel_num, dtype=dtype, device=device) for _ in range(layer_num)]
        self.heavy_scale = torch.ones(layer_num, dtype=torch.float32)

    def get_key_buffer(self, layer_id):
        if self.store_dtype != self.dtype:
            return self.k_buffer[layer_id].view(torch.float8_e4m3fn).to(self.dtype)  # positive: f6 CL004 accessor returns a converted whole layer
        return self.k_buffer[layer_id]

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id].view(torch.float8_e4m3fn)  # negative: reinterpret only

    def get_label_buffer(self, layer_id):
        return self.label_buffer[layer_id]

    def get_heavy_scale(self, layer_id):
        return self.heavy_scale[layer_id].to(self.dtype)  # negative: one scale


class DoubleSparseBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)  # note: CL004 accessor, not labelled again
        sel = pool.get_label_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(torch.float32)  # negative: gathered label rows
        return kb, sel
