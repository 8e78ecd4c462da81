import torch


class ZipStarBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        pairs = [pool.get_kv_buffer(i) for i in range(pool.layer_num)]
        self.k_all, self.v_all = zip(*pairs)
        first, *rest = pool.k_buffer
        self.first_layer = first
        self.rest_layers = rest

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kc = self.k_all[layer.layer_id].to(q.dtype)  # positive: f3 CL001 tuple from zip(*pairs) of per-layer buffers
        if layer.layer_id == 0:
            head = self.first_layer.to(q.dtype)  # positive: f3 CL001 star-unpacked first layer buffer
        else:
            head = self.rest_layers[layer.layer_id - 1].to(q.dtype)  # positive: f3 CL001 star-unpacked rest list
        return kc, head
