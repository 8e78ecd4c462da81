"""f5: .type() with a type string, with a tensor-type class, and torch.Tensor.type(buf, dtype)."""
import torch


class TypeSpellingBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        a = buf.type("torch.cuda.BFloat16Tensor")  # positive: f5 CL001 type string converts the whole layer
        b = self.token_to_kv_pool.get_value_buffer(layer.layer_id).type(torch.cuda.HalfTensor)  # positive: f5 CL001 tensor-type class
        c = torch.Tensor.type(buf, torch.bfloat16)  # positive: f5 CL001 unbound .type with a dtype
        name = buf.type()  # negative: no argument, returns a string
        is_fp8 = buf.type() == "torch.cuda.Float8_e4m3fnTensor"  # negative: a comparison of strings
        return a, b, c, name, is_fp8

    def forward_extend(self, q, k, v, layer, forward_batch):
        buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        rows = buf[forward_batch.out_cache_loc].type(torch.bfloat16)  # negative: the step's rows
        return rows
