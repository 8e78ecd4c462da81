"""TRT-LLM decode CUDA graph: both planes packed with einops.pack before the widen."""
import einops
import torch


class PackedPlaneGraphBody:
    def __init__(self, mgr, layer_idx, dtype=torch.float16):
        self.mgr = mgr
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, metadata):
        # captured by torch.cuda.graph; replayed every generation step
        buf = self.mgr.get_buffers(self.layer_idx)  # [num_blocks, 2, tokens, heads, dim]
        key_plane, value_plane = buf[:, 0], buf[:, 1]
        packed, shapes = einops.pack([key_plane, value_plane], "b t h *")
        dense = packed.to(self.dtype)  # positive: f5 CL001 both whole planes packed along the last dim
        ids = metadata.block_ids_per_seq[:, -1]
        recent, _ = einops.pack([buf[ids, 0], buf[ids, 1]], "b t h *")
        recent = recent.to(self.dtype)  # negative: last blocks gathered before packing
        return q.to(self.dtype), dense, recent, shapes  # negative: query
