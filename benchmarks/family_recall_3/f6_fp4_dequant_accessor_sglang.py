import torch


class FP4PoolLike:
    def __init__(self, size, head_num, head_dim, layer_num, device, start_layer=0):
        self.start_layer = start_layer
        self.dtype = torch.bfloat16
        self.k_buffer = [torch.zeros((size, head_num, head_dim // 2), dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.k_scale_buffer = [torch.ones((size, head_num, head_dim // 16), dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size, head_num, head_dim // 2), dtype=torch.uint8, device=device) for _ in range(layer_num)]

    def _dequant(self, packed, scales):
        lo = (packed & 0x0F).to(self.dtype)  # note: generic (whole buffers and gathered rows), labelled at callers
        hi = (packed >> 4).to(self.dtype)  # note: same as above
        return torch.stack([lo, hi], dim=-1).flatten(-2) * scales.repeat_interleave(8, dim=-1).to(self.dtype)

    def _get_key_buffer(self, layer_id: int):
        local = layer_id - self.start_layer
        return self._dequant(self.k_buffer[local], self.k_scale_buffer[local])  # positive: f6 CL004 accessor dequantizes the whole per-layer buffer

    def get_key_rows(self, layer_id: int, loc: torch.Tensor):
        local = layer_id - self.start_layer
        return self._dequant(self.k_buffer[local][loc], self.k_scale_buffer[local][loc])  # negative: gathered rows through the same helper

    def get_key_buffer(self, layer_id: int):
        return self._get_key_buffer(layer_id)

    def get_value_buffer(self, layer_id: int):
        return self.v_buffer[layer_id - self.start_layer].float()  # positive: f6 CL004 accessor upcasts the whole per-layer buffer
