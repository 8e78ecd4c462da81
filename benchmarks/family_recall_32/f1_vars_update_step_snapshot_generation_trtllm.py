"""TRT-LLM vanilla attention: a per-step _GenSnapshot filled with vars(snap).update(...)."""
import torch


class _GenSnapshot:
    pass


class VanillaFp8FallbackAttention:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata):
        snap = _GenSnapshot()
        vars(snap).update(buf=metadata.kv_cache_manager.get_buffers(self.layer_idx),
                          block_ids=metadata.kv_cache_block_offsets[:, 0])
        if metadata.num_generations > 0:
            kv = snap.buf.to(self.dtype)  # positive: f1 CL001 whole layer buffer carried by the snapshot
        else:
            kv = snap.buf[snap.block_ids].to(self.dtype)  # negative: block gather before the cast
        scale = metadata.kv_scale_orig_quant.to(self.dtype)  # negative: scale
        return self._sdpa(q.to(self.dtype), kv, scale)  # negative: query

    def _sdpa(self, q, kv, scale):
        return q, kv, scale
