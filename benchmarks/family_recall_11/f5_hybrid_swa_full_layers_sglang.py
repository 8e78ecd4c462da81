import torch


class HybridSWABackend:
    def __init__(self, model_runner):
        self.swa_layers = set(model_runner.model_config.swa_layer_ids)
        self.window = model_runner.model_config.sliding_window_size
        self.dtype = model_runner.dtype

    def _buffers(self, forward_batch, layer):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf, vbuf = self._buffers(forward_batch, layer)
        if layer.layer_id in self.swa_layers:
            loc = forward_batch.token_to_kv_pool.translate_loc_from_full_to_swa(forward_batch.out_cache_loc)
            return kbuf[loc].to(self.dtype), vbuf[loc].to(self.dtype)  # negative: SWA rows gathered at translated slots
        k_d = kbuf.unsqueeze(1).to(self.dtype)  # positive: f5 CL001 whole full-attention key buffer with a head axis added
        v_d = vbuf.flatten(1).to(self.dtype)  # positive: f5 CL001 whole full-attention value buffer flattened
        return k_d, v_d

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf, _ = self._buffers(forward_batch, layer)
        lens = forward_batch.extend_seq_lens.to(torch.int32)  # negative: lengths
        return kbuf[-self.window :].float() if layer.layer_id in self.swa_layers else None, lens  # negative: last window of slots
