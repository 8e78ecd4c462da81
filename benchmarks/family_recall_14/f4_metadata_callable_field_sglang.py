"""init_forward_metadata stores a kv_transform callable in the metadata; forward_decode applies it."""
from dataclasses import dataclass, field
from typing import Callable

import torch


@dataclass
class ForwardMetadata:
    kv_indptr: torch.Tensor
    kv_indices: torch.Tensor
    kv_transform: Callable[[torch.Tensor], torch.Tensor] = field(default=lambda t: t)


class TritonMLAFallbackBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def _upcast(self, buf):
        return buf.to(self.dtype)  # positive: f4 CL001 applied by forward_decode to the whole latent layer

    def init_forward_metadata(self, forward_batch):
        kv_indptr, kv_indices = self._build_kv_indices(forward_batch)
        transform = self._upcast if self.kv_cache_dtype != self.dtype else (lambda t: t)
        self.forward_metadata = ForwardMetadata(kv_indptr, kv_indices.to(torch.int32), transform)  # negative: index tensor

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        kv = self.forward_metadata.kv_transform(kv)
        q = q.reshape(-1, layer.tp_q_head_num, layer.qk_head_dim).to(self.dtype)  # negative: the step's queries
        return self._decode_mla(q, kv, self.forward_metadata)
