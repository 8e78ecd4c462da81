from dataclasses import dataclass

import torch


@dataclass
class MLADecodeMeta:
    pool: object
    kv_indices: torch.Tensor
    kv_lens: torch.Tensor


class ChainedMLABackend:
    def init_forward_metadata(self, forward_batch):
        self.forward_metadata = MLADecodeMeta(
            pool=forward_batch.token_to_kv_pool,
            kv_indices=forward_batch.kv_indices.to(torch.int32),  # negative: index table
            kv_lens=forward_batch.seq_lens.to(torch.int32),  # negative: lengths
        )

    def _fetch(self, layer):
        return self.forward_metadata.pool.get_key_buffer(layer.layer_id)

    def _decode_inputs(self, q, layer):
        q_nope, q_rope = q.split([512, 64], dim=-1)
        return q_nope, q_rope, self._fetch(layer)

    def _kernel(self, q_nope, q_rope, latent, layer):
        latent_c = latent.to(q_nope.dtype)  # positive: f1 CL001 whole latent buffer fetched two methods earlier
        scale = layer.k_scale.to(torch.float32) if layer.k_scale is not None else None  # negative: scale
        return latent_c, scale

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if forward_batch.forward_mode.is_idle():
            return q.new_empty(0)
        q_nope, q_rope, latent = self._decode_inputs(q, layer)
        return self._kernel(q_nope, q_rope, latent, layer)
