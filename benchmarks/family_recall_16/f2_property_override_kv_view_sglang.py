import torch


class DecodeLayerView:
    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id

    @property
    def key(self):
        return self.pool.get_key_buffer(self.layer_id)


class Bf16DecodeLayerView(DecodeLayerView):
    @property
    def key(self):
        return super().key.to(torch.bfloat16)  # positive: f2 CL001 overriding property converts the whole layer


class XpuBackend:
    view_cls = Bf16DecodeLayerView

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        view = self.view_cls(self.pool, layer.layer_id)
        idx = forward_batch.out_cache_loc
        new_rows = view.key[idx]
        q16 = q.to(torch.bfloat16)  # negative: query
        return q16 @ view.key.T, new_rows
