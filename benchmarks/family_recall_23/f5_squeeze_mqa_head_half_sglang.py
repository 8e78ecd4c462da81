# sglang MQA pool (1 kv head): the head axis is squeezed off before a fp16 widening for a sm70 kernel.
import torch


class Sm70DoubleSparseBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id).squeeze(1)
        v_buf = pool.get_value_buffer(layer.layer_id)
        k16 = k_buf.half()  # positive: f5 CL001 squeezed whole key buffer widened
        label = pool.get_label_buffer(layer.layer_id).half()  # negative: sparse label buffer, not K/V
        v_rows = v_buf.index_select(0, forward_batch.req_to_token_pool.req_to_token[0]).half()  # negative: rows first
        return self._sparse_decode(q.half(), k16, v_rows, label, layer)
