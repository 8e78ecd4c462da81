import torch


class FlashInferAttnBackendNoFp8Prefill:
    """Extend = ragged attention over the new tokens + paged attention over the cached prefix, merged."""

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        q3 = q.view(-1, layer.tp_q_head_num, layer.head_dim)
        o1, s1 = self.prefill_wrapper_ragged.forward_return_lse(
            q3,
            k.view(-1, layer.tp_k_head_num, layer.head_dim).to(q.dtype),  # negative: batch tensor for the ragged wrapper
            v.view(-1, layer.tp_v_head_num, layer.head_dim).to(q.dtype),  # negative: batch tensor for the ragged wrapper
            causal=True,
        )
        pool = forward_batch.token_to_kv_pool
        k_buf, v_buf = pool.get_kv_buffer(layer.layer_id)
        paged_kv = (k_buf.to(q.dtype), v_buf.to(q.dtype))  # positive: f6 CL001 whole K and V pools converted for the paged prefix (one line, one finding)
        o2, s2 = self.prefill_wrapper_paged.forward_return_lse(q3, paged_kv, causal=False)
        return self.merge_state(o1, s1, o2, s2)
