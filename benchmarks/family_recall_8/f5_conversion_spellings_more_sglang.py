import torch


class SpellingsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool.get_key_buffer(layer.layer_id)
        a = lat.type_as(q)  # positive: f5 CL001 type_as the query
        b = lat.to(q)  # positive: f5 CL001 to(tensor) takes q's dtype
        c = lat.to("cuda", torch.bfloat16)  # positive: f5 CL001 device and dtype positional
        d = lat.to(device=q.device, dtype=self.dtype, non_blocking=True)  # positive: f5 CL001 keyword dtype with device
        e = torch.Tensor.half(lat)  # positive: f5 CL001 unbound Tensor.half
        f = lat.to(lat.dtype)  # negative: same dtype
        g = lat.to(device="cuda")  # negative: device only
        return a, b, c, d, e, f, g
