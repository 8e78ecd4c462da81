import torch


class TorchNativeMQABackend:
    """MQA pool stores one kv head; the fallback broadcasts it to all query heads."""

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        n, _, d = k_buf.shape
        k_all = torch.broadcast_to(k_buf, (n, layer.tp_q_head_num, d)).to(q.dtype)  # positive: f5 CL001 broadcast keeps every slot, then the whole pool is converted
        v_all = pool.get_value_buffer(layer.layer_id).broadcast_to((n, layer.tp_q_head_num, d)).contiguous().bfloat16()  # positive: f5 CL001 method form of broadcast_to, whole value pool converted
        loc = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices]
        k_rows = torch.broadcast_to(k_buf[loc], (*loc.shape, layer.tp_q_head_num, d)).to(q.dtype)  # negative: rows gathered before the broadcast and cast
        return k_all, v_all, k_rows
