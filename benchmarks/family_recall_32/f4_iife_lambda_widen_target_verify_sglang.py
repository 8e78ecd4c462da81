"""sglang EAGLE target verify: the widen is an immediately invoked lambda."""
import torch


class FlashAttentionVerifyBackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if forward_batch.forward_mode.is_target_verify():
            key = (lambda buf: buf.to(q.dtype))(pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 whole key buffer through an immediately invoked lambda
            value = (lambda buf: buf.to(q.dtype))(pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 whole value buffer through an immediately invoked lambda
        else:
            loc = forward_batch.out_cache_loc
            key = (lambda buf: buf[loc].to(q.dtype))(pool.get_key_buffer(layer.layer_id))  # negative: row gather inside the lambda
            value = (lambda buf: buf.to(q.device))(pool.get_value_buffer(layer.layer_id))  # negative: device move
        return q, key, value

    def init_forward_metadata(self, forward_batch):
        self.seq_lens = forward_batch.seq_lens
