# sglang EAGLE target verify on the Triton MLA path with an FP8 pool: the latent buffer [tokens, 1, 576]
# is split with torch.dsplit into nope/rope parts and rejoined with torch.concat before widening.
import torch


class TritonMLATargetVerify:
    def __init__(self, model_runner, kv_lora_rank=512):
        self.pool = model_runner.token_to_kv_pool
        self.kv_lora_rank = kv_lora_rank

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        nope, rope = torch.dsplit(buf, (self.kv_lora_rank,))
        latent = torch.concat((nope, rope), dim=2)
        if forward_batch.forward_mode.is_target_verify():
            kv = latent.to(q.dtype)  # positive: f5 CL001 every slot of the layer, rejoined from its last-dim split
        else:
            kv = latent[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows of the batch
        rope_bytes = rope.view(torch.uint8)  # negative: zero-copy reinterpretation
        mask = forward_batch.spec_info.custom_mask
        return self._verify_kernel(q, kv, rope_bytes, mask)

    def _verify_kernel(self, q, kv, rope_bytes, mask):
        scores = torch.matmul(q, kv.squeeze(1).transpose(0, 1))
        return scores.masked_fill(~mask.bool(), float("-inf")), rope_bytes
