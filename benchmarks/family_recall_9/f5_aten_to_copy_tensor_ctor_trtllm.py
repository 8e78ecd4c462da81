"""Spellings through aten: torch.ops.aten._to_copy(.default), and torch.tensor(x, dtype=)."""
import torch


class AtenCopyAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = torch.ops.aten._to_copy.default(buf, dtype=torch.bfloat16)  # positive: f5 CL001 aten _to_copy overload with a dtype
        b = torch.ops.aten._to_copy(buf[:, 0], dtype=q.dtype)  # positive: f5 CL001 K half through the aten packet
        c = torch.tensor(buf[:, 1], dtype=torch.float16)  # positive: f5 CL001 V half copy-constructed with torch.tensor(dtype=)
        d = torch.ops.aten._to_copy.default(buf, device=torch.device("cpu"))  # negative: device-only copy
        e = torch.ops.aten.view.dtype(buf, torch.uint8)  # negative: reinterpret
        ids = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        f = torch.tensor(ids, dtype=torch.int32)  # negative: cache indices
        return a, b, c, d, e, f
