import torch


class MLATokenToKVPoolInt4:
    def __init__(self, size, kv_lora_rank, qk_rope_head_dim, layer_num, dtype, device):
        self.dtype = dtype
        self.layer_num = layer_num
        dim = (kv_lora_rank + qk_rope_head_dim) // 2
        self.kv_buffer = [torch.zeros(size + 1, 1, dim, dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.scales = [torch.ones(size + 1, 1, 1, dtype=torch.float32, device=device) for _ in range(layer_num)]

    def get_raw_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id]

    def get_key_buffer(self, layer_id):
        packed = self.kv_buffer[layer_id]
        lo = packed & 0xF
        hi = packed >> 4
        vals = torch.stack((lo, hi), dim=-1).flatten(-2)
        return vals.to(self.dtype) * self.scales[layer_id].to(self.dtype)  # positive: f6 CL004 accessor unpacks and converts the whole int4 layer buffer

    def set_kv_buffer(self, layer, loc, cache_k, cache_v):
        q4 = cache_k.clamp(0, 15).to(torch.uint8)  # negative: writer quantizing the step's keys
        self.kv_buffer[layer.layer_id][loc] = q4[..., ::2] | (q4[..., 1::2] << 4)


class Int4Backend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = pool.get_key_buffer(layer.layer_id)  # note: per-step caller of the CL004 accessor
        raw = pool.get_raw_key_buffer(layer.layer_id).view(torch.int8)  # negative: reinterpret
        return kv, raw
