# sglang deterministic-mode reference decode for MQA-style latent caches: scores against
# every slot with one bmm, the pool given a batch axis.
import torch


class ReferenceMQADecodeBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = pool.get_key_buffer(layer.layer_id)
        scores = torch.bmm(q.unsqueeze(0), k_buf.squeeze(1).t().unsqueeze(0).to(q.dtype))  # positive: f5 CL001 whole key buffer squeezed, transposed, batched
        mask = self._slot_mask(forward_batch)
        probs = scores.masked_fill(~mask, float("-inf")).softmax(-1, dtype=torch.float32)  # negative: scores
        v_rows = pool.get_value_buffer(layer.layer_id)[mask.nonzero()[:, -1]].to(q.dtype)  # negative: rows gathered first
        return probs.to(q.dtype) @ v_rows.squeeze(1)  # negative: probabilities
