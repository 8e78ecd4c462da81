"""TensorRT-LLM: where the target dtype comes from: the default dtype and a promoted dtype
differ from an FP8 cache; the manager's own dtype and buf.dtype do not."""
import torch


class DtypeSourcesAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        keys = buf[:, 0].to(torch.get_default_dtype())  # positive: f5 CL001 key plane to the default float dtype
        common = torch.promote_types(q.dtype, torch.float16)
        values = buf[:, 1].to(common)  # positive: f5 CL001 value plane to a promoted compute dtype
        same = buf.to(mgr.dtype)  # negative: the manager's own dtype
        same_too = buf.to(dtype=buf.dtype, non_blocking=True)  # negative: its own dtype
        return q, keys, values, same, same_too
