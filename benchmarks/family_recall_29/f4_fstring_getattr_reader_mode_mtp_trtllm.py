"""TensorRT-LLM MTP verify: the reader is picked with getattr(self, f"_read_{mode}")."""
import torch


class MTPVerifyAttention:
    def __init__(self, layer_idx: int, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def _read_dense(self, mgr, metadata):
        return mgr.get_buffers(self.layer_idx).to(self.dtype)  # positive: f4 CL001 whole layer buffer, chosen by name in forward

    def _read_paged(self, mgr, metadata):
        ids = metadata.kv_cache_block_offsets[0].flatten()
        return mgr.get_buffers(self.layer_idx)[ids].to(self.dtype)  # negative: blocks gathered first

    def forward(self, q, k, v, metadata, spec_metadata):
        mode = "dense" if spec_metadata.is_verify and not metadata.fp8_kv_supported else "paged"
        reader = getattr(self, f"_read_{mode}")
        kv = reader(metadata.kv_cache_manager, metadata)
        draft_lens = spec_metadata.draft_lens.to(torch.int32)  # negative: lengths
        return self._verify(q, kv, draft_lens, metadata)
