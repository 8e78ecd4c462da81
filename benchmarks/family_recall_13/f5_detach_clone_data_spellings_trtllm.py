import torch


class TrtllmFallbackAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = buf.detach().to(self.dtype)  # positive: f5 CL001 detach keeps the whole buffer
        b = buf.data.clone().to("cuda", torch.float16)  # positive: f5 CL001 .data.clone() then device+dtype
        c = buf.clone()  # negative: same-dtype copy
        d = buf.cpu()  # negative: device move
        e = torch.empty_like(buf, dtype=self.dtype)  # negative: *_like allocates, no conversion of the data
        return self._attend(q, a, b, c, d, e)

    def _attend(self, q, *rest):
        return q
