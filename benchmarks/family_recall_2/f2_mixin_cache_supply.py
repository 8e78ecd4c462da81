# Mixins that read the whole cache for the class they are mixed into.
import torch

from sglang.srt.layers.quantization.kv_cache_quant import dequantize_kv_tensor


class KVReadMixin:
    """Expects the host class to define self.kv_pool."""

    def read_layer(self, layer_id: int) -> torch.Tensor:
        return self.kv_pool.get_key_buffer(layer_id)

    def read_layer_values(self, layer_id: int) -> torch.Tensor:
        return self.kv_pool.get_value_buffer(layer_id)


class UpcastMixin:
    upcast_dtype = torch.float32

    def upcast_layer(self, layer_id: int) -> torch.Tensor:
        return self.read_layer(layer_id).to(self.upcast_dtype)  # positive: f2 CL001 mixin casts what the sibling mixin returns, the whole pool


class DequantMixin:
    def dequant_layer(self, layer_id: int) -> torch.Tensor:
        local = layer_id - self.kv_pool.start_layer
        return dequantize_kv_tensor(self.kv_pool.k_buffer[local], self.kv_pool.k_scale_buffer[local], layer_id)  # positive: f2 CL004 mixin dequantizes the host's whole key arena


class DebugDumpMixin:
    def dump_new_tokens(self, k: torch.Tensor) -> torch.Tensor:
        return k.float().cpu()  # negative: batch k handed in by callers


class AiterLikeBackend(UpcastMixin, KVReadMixin, DebugDumpMixin):
    def __init__(self, model_runner):
        self.kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_f32 = self.upcast_layer(layer.layer_id)
        v_bf16 = self.read_layer_values(layer.layer_id).bfloat16()  # positive: f2 CL001 value accessor inherited from the mixin
        dumped = self.dump_new_tokens(k)
        v_sel = self.read_layer_values(layer.layer_id)[forward_batch.out_cache_loc].float()  # negative: gathered first
        return k_f32, v_bf16, dumped, v_sel


class WaveLikeBackend(DequantMixin, KVReadMixin):
    def __init__(self, model_runner):
        self.kv_pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        full = self.read_layer(layer.layer_id)
        full_h = full.half()  # positive: f2 CL001 single mixin accessor
        prefix_h = full[: forward_batch.extend_num_tokens].half()  # negative: active prefix
        as_bytes = full.view(torch.int8)  # negative: reinterpret
        return full_h, prefix_h, as_bytes
