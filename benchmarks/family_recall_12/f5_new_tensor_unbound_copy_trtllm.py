import torch


class CopyIntoAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype
        self.scratch = None

    def forward(self, q, k, v, attn_metadata, **kwargs):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        as_q = q.new_tensor(buf)  # positive: f5 CL001 new_tensor copies the whole buffer in q's dtype
        if self.scratch is None:
            self.scratch = torch.zeros_like(buf, dtype=self.dtype)  # negative: allocation only
        torch.Tensor.copy_(self.scratch, buf)  # positive: f5 CL001 unbound copy_ of the whole fp8 buffer into a bf16 tensor
        same = torch.zeros_like(buf).copy_(buf)  # negative: same-dtype copy
        pos = q.new_tensor(attn_metadata.position_ids_cpu)  # negative: small host list
        return as_q, same, pos
