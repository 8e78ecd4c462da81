"""sglang-style torch fallback for an encoder-decoder (mllama-like) model: cross-attention layers in the pool."""
import torch


class TorchCrossAttnFallbackBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.token_to_kv_pool
        if layer.is_cross_attention:
            keys = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole cross-attention pool layer widened every step
            values = pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole cross-attention value layer
            enc = forward_batch.encoder_out_cache_loc
            enc_keys = pool.get_key_buffer(layer.layer_id)[enc].to(q.dtype)  # negative: encoder slots of this batch
            return self._sdpa(q, keys, values, enc_keys)
        loc = forward_batch.req_kv_loc
        keys = pool.get_key_buffer(layer.layer_id)[loc].to(q.dtype)  # negative: self-attention rows of this batch
        image_states = forward_batch.cross_attention_states.to(q.dtype)  # negative: encoder output, not the pool
        return self._sdpa(q, keys, keys, image_states)

    def _sdpa(self, q, keys, values, extra):
        return q
