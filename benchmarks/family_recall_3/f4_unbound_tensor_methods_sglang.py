import torch


class UnboundMethodBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = torch.Tensor.to(pool.get_key_buffer(layer.layer_id), q.dtype)  # positive: f4 CL001 unbound Tensor.to on the whole key pool
        vb = torch.Tensor.type(pool.get_value_buffer(layer.layer_id), torch.bfloat16)  # positive: f4 CL001 unbound Tensor.type on the whole value pool
        kt = pool.get_key_buffer(layer.layer_id).type_as(q)  # positive: f4 CL001 type_as converts the whole key pool
        qb = torch.Tensor.to(q, torch.bfloat16)  # negative: batch q
        kd = torch.Tensor.to(pool.get_key_buffer(layer.layer_id), q.device)  # negative: device only
        return kb, vb, kt, qb, kd
