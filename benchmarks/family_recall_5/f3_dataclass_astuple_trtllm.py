"""A record of layer planes flattened with dataclasses.astuple / fields."""

import dataclasses

import torch


@dataclasses.dataclass
class LayerPlanes:
    primary: torch.Tensor
    secondary: torch.Tensor


@dataclasses.dataclass
class StepInputs:
    seq_lens: torch.Tensor
    ctx_lens: torch.Tensor


class PlanesAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        buf = kv_cache_manager.get_buffers(layer_idx)
        self.planes = LayerPlanes(buf[:, 0], buf[:, 1])
        self.dtype = torch.bfloat16

    def forward(self, q, k, v, attn_metadata):
        kp, vp = dataclasses.astuple(self.planes)
        kd = kp.to(self.dtype)  # positive: f3 CL001 key plane of every block unpacked from dataclasses.astuple
        outs = []
        for f in dataclasses.fields(self.planes):
            outs.append(getattr(self.planes, f.name).float())  # positive: f3 CL001 each plane of the layer record by dataclasses.fields
        step = StepInputs(attn_metadata.seq_lens_cuda, attn_metadata.context_lens)
        sl, cl = (t.to(torch.int64) for t in dataclasses.astuple(step))  # negative: per-batch lengths record
        return torch.ops.trtllm.attn(q, kd, vp, sl, cl, outs)
