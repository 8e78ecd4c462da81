"""The prefill backend: writes the step's KV and hands layers to the sender."""
from . import stager


class PrefillSendingBackend:
    def __init__(self, model_runner, sender, wire_dtype):
        self.sender = sender
        self.wire_dtype = wire_dtype
        self.whole_layer_mode = sender.remote_page_size != model_runner.page_size

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = pool.get_key_buffer(layer.layer_id)
        if self.whole_layer_mode:
            self.sender.put(layer.layer_id, stager.stage_layer(k_buf, self.wire_dtype))
        else:
            self.sender.put(layer.layer_id, stager.stage_rows(k_buf, forward_batch.out_cache_loc, self.wire_dtype))
        self.sender.put_scale(layer.layer_id, stager.stage_scale(layer.k_scale, self.wire_dtype))
        return q
