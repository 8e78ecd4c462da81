"""sglang MLA target verify fallback: torch.view_copy of the whole latent layer to [tokens, 576] before the cast."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class MLATargetVerifyFallbackBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        d = self.kv_lora_rank + self.qk_rope_head_dim
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if forward_batch.forward_mode.is_target_verify():
            flat = torch.view_copy(buf, (-1, d))
            ckv = flat.to(q.dtype)  # positive: f5 CL001 whole latent layer, view_copy keeps every slot
            mask = forward_batch.spec_info.custom_mask.to(torch.bool)  # negative: tree mask
            return self._verify(q, ckv, mask, layer)
        rows = torch.view_copy(buf[forward_batch.out_cache_loc], (-1, d)).to(q.dtype)  # negative: rows gathered before the copy
        return self._extend(q, rows, layer)

    def _verify(self, q, ckv, mask, layer):
        s = torch.einsum("thd,sd->ths", q, ckv) * layer.scaling
        return s.masked_fill(~mask.view(s.shape[0], 1, -1), float("-inf")).softmax(-1) @ ckv[:, : self.kv_lora_rank]
