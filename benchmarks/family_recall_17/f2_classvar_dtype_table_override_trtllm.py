"""TensorRT-LLM: a backend base reads the compute dtype from a ClassVar table keyed by the
cache dtype; the Ampere subclass maps FP8 to bf16, so the base conversion widens there."""
from typing import ClassVar

import torch


class TrtllmAttentionBase:
    READ_DTYPE: ClassVar[dict] = {torch.float8_e4m3fn: torch.float8_e4m3fn, torch.bfloat16: torch.bfloat16}

    def forward(self, q, k, v, metadata, layer_idx):
        buf = metadata.kv_cache_manager.get_buffers(layer_idx)
        read = buf.to(self.READ_DTYPE[buf.dtype])  # positive: f2 CL001 whole layer; the Ampere table widens FP8
        recent = buf[metadata.kv_cache_block_offsets[0, :, -1]]
        return self._run(q, read, recent.to(q.dtype))  # negative: last block per request


class AmpereAttention(TrtllmAttentionBase):
    READ_DTYPE: ClassVar[dict] = {torch.float8_e4m3fn: torch.bfloat16, torch.bfloat16: torch.bfloat16}

    def _run(self, q, read, recent):
        return q
