import torch


class ModeDispatchBase:
    _handler_names = {"decode": "_decode", "extend": "_extend", "idle": "_idle"}

    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self._handlers = {m: getattr(self, n) for m, n in self._handler_names.items()}

    def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        mode = "decode" if forward_batch.forward_mode.is_decode() else "extend"
        return self._handlers[mode](q, layer, forward_batch)

    def _decode(self, q, layer, forward_batch):
        rows = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        return rows.to(self.dtype)  # negative: base decode gathers the step's rows

    def _extend(self, q, layer, forward_batch):
        return q

    def _idle(self, q, layer, forward_batch):
        return q


class UpcastDecodeBackend(ModeDispatchBase):
    def _decode(self, q, layer, forward_batch):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return kv.to(self.dtype)  # positive: f2 CL001 override bound into the base's handler dict by name

    def _extend(self, q, layer, forward_batch):
        pref = forward_batch.extend_prefix_lens.to(torch.int32)  # negative: prefix lengths
        return q.to(self.dtype), pref  # negative: batch query
