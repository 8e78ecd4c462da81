import torch


class LayerReader:
    """LayerReader[torch.bfloat16] builds (and caches) a subclass that reads pool layers in that dtype."""

    read_dtype = None
    _specialized = {}

    def __class_getitem__(cls, dtype):
        if dtype not in cls._specialized:
            cls._specialized[dtype] = type(f"{cls.__name__}_{dtype}", (cls,), {"read_dtype": dtype})
        return cls._specialized[dtype]

    def __init__(self, pool):
        self.pool = pool

    def key(self, layer_id):
        buf = self.pool.get_key_buffer(layer_id)
        return buf if self.read_dtype is None else buf.to(self.read_dtype)  # positive: f2 CL001 the subclass made by __class_getitem__ sets read_dtype, whole key layer converted


    def value(self, layer_id):
        buf = self.pool.get_value_buffer(layer_id)
        if self.read_dtype is not None and buf.dtype != self.read_dtype:
            buf = buf.to(self.read_dtype)  # positive: f2 CL001 same specialized subclass, whole value layer converted
        return buf


class XPUMLABackend:
    def __init__(self, model_runner):
        self.reader = LayerReader[model_runner.dtype](model_runner.token_to_kv_pool)
        self.raw = LayerReader(model_runner.token_to_kv_pool)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = self.reader.key(layer.layer_id)
        v_buf = self.reader.value(layer.layer_id)
        raw = self.raw.key(layer.layer_id).view(torch.uint8)  # negative: .view(dtype) reinterpret
        q_cast = q.to(k_buf.dtype)  # negative: the query
        return k_buf, v_buf, raw, q_cast
