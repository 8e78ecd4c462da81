import torch


class E5M2MLAPool:
    def __init__(self, size, layers, width, compute_dtype):
        self.store_dtype = torch.uint8
        self.dtype = torch.float8_e5m2
        self.compute_dtype = compute_dtype
        self.kv_buffer = [torch.zeros(size, 1, width, dtype=self.store_dtype, device="cuda") for _ in range(layers)]
        self.scales = [torch.ones(size, 1, dtype=torch.float32, device="cuda") for _ in range(layers)]

    def get_key_buffer(self, layer_id):
        raw = self.kv_buffer[layer_id]
        return raw.view(self.dtype).to(self.compute_dtype)  # positive: f6 CL004 accessor reinterprets then converts the whole layer

    def get_raw_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id].view(self.dtype)  # negative: reinterpret only

    def get_scale_buffer(self, layer_id):
        return self.scales[layer_id].to(self.compute_dtype)  # negative: scales buffer

    def get_dense_pair(self, layer_id):
        lat = self.kv_buffer[layer_id].view(self.dtype)
        return lat[..., :512].bfloat16(), lat[..., 512:]  # positive: f6 CL004 pair accessor converting every token's latent part


class E5M2Backend:
    def __init__(self, pool: E5M2MLAPool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        dense = self.pool.get_key_buffer(layer.layer_id)  # note: converted by the accessor (CL004 there)
        raw = self.pool.get_raw_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        return dense, raw
