# getattr with constant names and operator.methodcaller.
import operator
from operator import methodcaller

import torch

from sglang.srt.layers.quantization.kvfp4_tensor import FP4MXBlock16KVQuantizeUtil

_KEY_ACCESSOR = "get_key_buffer"
_VALUE_ACCESSOR = "get_value_buffer"
_UPCAST = "float"


class ReflectiveBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.upcast = operator.methodcaller("to", torch.float32)
        self.to_host = methodcaller("to", "cpu")
        self.bf16 = methodcaller("bfloat16")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        getter = getattr(self.pool, _KEY_ACCESSOR)
        k_all = getter(layer.layer_id).to(q.dtype)  # positive: f4 CL001 getattr with a module constant naming get_key_buffer
        v_all = getattr(self.pool, "get_value_buffer")(layer.layer_id).half()  # positive: f4 CL001 getattr with a literal accessor name
        k32 = getattr(self.pool.get_key_buffer(layer.layer_id), _UPCAST)()  # positive: f4 CL001 getattr of the cast method by constant name
        v32 = getattr(self.pool.get_value_buffer(layer.layer_id), "to")(self.dtype)  # positive: f4 CL001 getattr(buf, "to")(dtype)
        up = self.upcast(self.pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 methodcaller("to", torch.float32) on the whole pool
        b16 = self.bf16(getattr(self.pool, _VALUE_ACCESSOR)(layer.layer_id))  # positive: f4 CL001 methodcaller("bfloat16") on a getattr-reached pool
        host = self.to_host(self.pool.get_key_buffer(layer.layer_id))  # negative: methodcaller("to", "cpu") is a device move
        qq = self.upcast(q)  # negative: methodcaller cast of q
        shape = getattr(self.pool.get_key_buffer(layer.layer_id), "shape")  # negative: attribute read, no conversion
        return k_all, v_all, k32, v32, up, b16, host, qq, shape

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        packed = self.pool.k_buffer[layer.layer_id].view(torch.uint8)
        deq = getattr(FP4MXBlock16KVQuantizeUtil, "batched_dequantize")(packed, self.pool.k_scale_buffer[layer.layer_id])  # positive: f4 CL004 getattr-reached batched_dequantize of the whole FP4 arena
        return deq
