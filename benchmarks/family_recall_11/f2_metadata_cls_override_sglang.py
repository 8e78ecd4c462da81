from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class DecodeMeta:
    kv_indptr: torch.Tensor
    kv_indices: torch.Tensor
    latent_layers: Optional[list] = None

    @classmethod
    def build(cls, forward_batch):
        return cls(forward_batch.kv_indptr, forward_batch.kv_indices)


@dataclass
class FallbackDecodeMeta(DecodeMeta):
    @classmethod
    def build(cls, forward_batch):
        meta = super().build(forward_batch)
        meta.latent_layers = forward_batch.token_to_kv_pool.kv_buffer
        return meta


class MetaDrivenBackend:
    metadata_cls = DecodeMeta

    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = self.metadata_cls.build(forward_batch)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        meta = self.forward_metadata
        indptr = meta.kv_indptr.to(torch.int32)  # negative: indptr
        if meta.latent_layers is not None:
            kv = meta.latent_layers[layer.layer_id].to(q.dtype)  # positive: f2 CL001 whole per-layer buffer placed in metadata by the subclass metadata class
        else:
            kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return kv, indptr


class Fp8FallbackBackend(MetaDrivenBackend):
    metadata_cls = FallbackDecodeMeta
