import torch


class AscendAttnBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.fia_supports_int8_kv = False
        self._pairs = []

    def init_forward_metadata(self, forward_batch):
        pool = self.pool
        self._pairs = [pool.get_kv_buffer(i) for i in range(pool.start_layer, pool.end_layer)]
        self.seq_lens_list = forward_batch.seq_lens.cpu().to(torch.int32).tolist()  # negative: lengths

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf, v_buf = self._pairs[layer.layer_id - self.pool.start_layer]
        if self.fia_supports_int8_kv:
            return self._fia(q, k_buf, v_buf, layer)
        k_dense = k_buf.to(q.dtype)  # positive: f3 CL001 whole key layer taken from the per-step list of pairs
        v_dense = v_buf.to(q.dtype)  # positive: f3 CL001 whole value layer
        k_new = k_buf[forward_batch.out_cache_loc].to(q.dtype)  # negative: new-token rows
        return self._fia(q, k_dense, v_dense, layer, extra=k_new)
