"""Backend module: the pool and the layer are handed to the fallback helpers (imported under aliases)."""
import torch

from .mla_fallback import dense_latent as _dense_latent
from .mla_fallback import dense_rope as _dense_rope
from .mla_fallback import prefix_rows as _prefix_rows


class TRTLLMMLABackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.fp8_q_ok = model_runner.model_config.head_dim == 576

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if forward_batch.extend_prefix_lens_cpu and max(forward_batch.extend_prefix_lens_cpu) > 0:
            prefix = _prefix_rows(self.token_to_kv_pool, layer.layer_id, forward_batch.prefix_loc, q.dtype)
            return self._ragged(q, prefix)
        return self._ragged(q, None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if self.fp8_q_ok:
            return self._trtllm_gen(q.to(torch.float8_e4m3fn), layer)  # negative: the query, not the pool
        latent = _dense_latent(self.token_to_kv_pool, layer.layer_id, q.dtype)
        rope = _dense_rope(self.token_to_kv_pool.get_key_buffer(layer.layer_id), self.kv_lora_rank, q.dtype)
        return self._bf16_decode(q, latent, rope)

    def _ragged(self, q, prefix):
        return q

    def _trtllm_gen(self, q, layer):
        return q

    def _bf16_decode(self, q, latent, rope):
        return q
