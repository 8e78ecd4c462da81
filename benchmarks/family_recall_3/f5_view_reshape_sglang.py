import torch


class ViewReshapeBackend:
    def __init__(self, model_runner):
        self.head_dim = 576
        self.fp8 = torch.float8_e4m3fn

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id).view(-1, 1, self.head_dim).to(q.dtype)  # positive: f5 CL001 view then cast of the whole key pool
        vb = pool.get_value_buffer(layer.layer_id)
        v2 = vb.reshape(vb.shape[0], -1).half()  # positive: f5 CL001 reshape then half of the whole value pool
        raw = pool.get_key_buffer(layer.layer_id).view(torch.uint8)  # negative: dtype view, zero copy
        qv = q.view(-1, layer.tp_q_head_num, self.head_dim).to(self.fp8)  # negative: batch q
        return kb, v2, raw, qv
