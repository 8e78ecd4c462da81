from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class DecodeMetadata:
    kv_indptr: torch.Tensor
    kv_indices: torch.Tensor
    kv_pool: object
    seq_lens_cpu: Optional[torch.Tensor] = None


class TritonMLAAttnBackend:
    def __init__(self, model_runner):
        self.device = model_runner.device
        self.kv_indptr = torch.zeros(model_runner.server_args.max_running_requests + 1, dtype=torch.int32)

    def init_forward_metadata(self, forward_batch):
        bs = forward_batch.batch_size
        self.kv_indptr[1 : bs + 1] = torch.cumsum(forward_batch.seq_lens, dim=0)
        indices = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices]
        self.forward_metadata = DecodeMetadata(
            self.kv_indptr[: bs + 1],
            indices.flatten().to(torch.int32),  # negative: index table built from the step's requests
            forward_batch.token_to_kv_pool,
            forward_batch.seq_lens_cpu,
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        md = self.forward_metadata
        if save_kv_cache:
            md.kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        latent = md.kv_pool.get_key_buffer(layer.layer_id)
        latent = latent.to(q.dtype)  # positive: f1 CL001 pool carried on the step metadata, whole layer upcast
        lens = md.seq_lens_cpu.to(torch.int64)  # negative: per-request lengths
        o = torch.empty_like(q)
        self._decode_kernel(q, latent, md.kv_indptr, md.kv_indices, lens, o, layer.scaling)
        return o
