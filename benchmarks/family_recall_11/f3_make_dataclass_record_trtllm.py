import dataclasses

import torch

LayerKV = dataclasses.make_dataclass(
    "LayerKV", [("layer_idx", int), ("buf", object), ("lens", object)]
)


class RecordAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def _record(self, metadata):
        mgr = metadata.kv_cache_manager
        return LayerKV(self.layer_idx, mgr.get_buffers(self.layer_idx), metadata.kv_lens_cuda)

    def forward(self, q, k, v, metadata, **kwargs):
        rec = self._record(metadata)
        dense = rec.buf.to(q.dtype)  # positive: f3 CL001 whole layer buffer carried by a make_dataclass record
        lens = rec.lens.to(torch.int32)  # negative: lengths
        fields = dataclasses.astuple(rec)
        again = fields[1].float()  # positive: f3 CL001 the same buffer taken from astuple
        window = rec.buf[: q.shape[0]].to(q.dtype)  # negative: window of the step's tokens
        return dense, lens, again, window
