"""sglang Triton SM75 fallback: a method's (k, v) result star-unpacked into the helper that widens its arguments."""
import torch


class TritonSM75FallbackBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.scaling = model_runner.model_config.scaling

    def _layer_kv(self, layer):
        return self.pool.get_key_buffer(layer.layer_id), self.pool.get_value_buffer(layer.layer_id)

    def _rows(self, layer, loc):
        return self.pool.get_key_buffer(layer.layer_id)[loc], self.pool.get_value_buffer(layer.layer_id)[loc]

    def _attend(self, q, k_buf, v_buf, forward_batch):
        k_dense = k_buf.to(q.dtype)  # positive: f4 CL001 forward_decode passes the whole key buffer
        v_dense = v_buf.to(q.dtype)  # positive: f4 CL001 forward_decode passes the whole value buffer
        return torch.ops.sgl_kernel.decode_attention_fwd(q, k_dense, v_dense, forward_batch.req_to_token, self.scaling)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._attend(q, *self._layer_kv(layer), forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_new = k.to(q.dtype)  # negative: new tokens
        rows = self._rows(layer, forward_batch.out_cache_loc)
        return torch.ops.sgl_kernel.extend_attention_fwd(q, k_new, v, rows[0].to(q.dtype), rows[1].to(q.dtype))  # negative: rows gathered before the cast
