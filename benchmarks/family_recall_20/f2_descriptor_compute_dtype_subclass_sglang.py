import torch


class ComputeDtype:
    """Descriptor: resolves the read dtype from the backend's runner at access time."""

    def __init__(self, source="kv"):
        self.source = source

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        runner = obj.model_runner
        return runner.kv_cache_dtype if self.source == "kv" else runner.dtype


class TritonMLABackend:
    read_dtype = ComputeDtype()

    def __init__(self, model_runner):
        self.model_runner = model_runner

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.model_runner.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id).to(self.read_dtype)  # positive: f2 CL001 HIP subclass's descriptor resolves to the model dtype, whole layer converted
        v_buf = pool.get_value_buffer(layer.layer_id).type(self.read_dtype)  # positive: f2 CL001 .type(dtype) spelling, same descriptor, whole value layer
        same = pool.get_key_buffer(layer.layer_id).to(pool.dtype)  # negative: same-dtype .to
        return k_buf, v_buf, same


class HIPTritonMLABackend(TritonMLABackend):
    read_dtype = ComputeDtype(source="model")
