import torch


class BaseDecodeBackend:
    read_dtype = None

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def _key(self, layer_id):
        buf = self.pool.get_key_buffer(layer_id)
        if self.read_dtype is None:
            return buf
        return buf.to(self.read_dtype)  # positive: f2 CL001 whole layer when a registered subclass sets read_dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        new = self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: new rows
        return q @ self._key(layer.layer_id).T, new


class NativeFp8Backend(BaseDecodeBackend):
    pass


class Sm80UpcastBackend(BaseDecodeBackend):
    read_dtype = torch.bfloat16


BACKENDS = {"native": NativeFp8Backend, "sm80": Sm80UpcastBackend}


def create_backend(name, model_runner):
    return BACKENDS[name](model_runner)
