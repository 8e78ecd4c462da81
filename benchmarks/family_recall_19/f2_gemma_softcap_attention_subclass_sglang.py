import torch


class LlamaStyleDecode:
    """Base decode path: the layer's pool planes go to the kernel as stored."""

    def _kv_for_decode(self, pool, layer_id, q):
        return pool.get_key_buffer(layer_id), pool.get_value_buffer(layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self._kv_for_decode(forward_batch.token_to_kv_pool, layer.layer_id, q)
        return torch.zeros_like(q), k_buf, v_buf


class GemmaSoftcapDecode(LlamaStyleDecode):
    """Gemma-2 logit soft-capping runs the torch path in fp32."""

    softcap = 50.0

    def _kv_for_decode(self, pool, layer_id, q):
        k_buf = pool.get_key_buffer(layer_id).to(torch.float32)  # positive: f2 CL001 subclass hook widens the whole key pool
        v_buf = pool.get_value_buffer(layer_id).to(torch.float32)  # positive: f2 CL001 whole value pool
        return k_buf, v_buf

    def _softcap(self, logits):
        return self.softcap * torch.tanh(logits.float() / self.softcap)  # negative: logits, not the pool
