import torch


class TorchFlexFp8Backend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        vb = pool.get_value_buffer(layer.layer_id)
        k_scale = layer.k_scale if layer.k_scale is not None else torch.ones((), device=q.device)
        k_deq = kb.to(torch.float32) * k_scale  # positive: f5 CL001 whole key buffer to fp32 before the scale
        v_deq = torch.mul(vb.float(), layer.v_scale)  # positive: f5 CL001 float() of the whole value buffer inside mul
        s = k_scale.to(q.dtype)  # negative: scalar scale
        k_new = (k.float() * k_scale).to(q.dtype)  # negative: the step's keys
        return self._flex(q, k_deq, v_deq, s, k_new)

    def _flex(self, *a):
        return a[0]
