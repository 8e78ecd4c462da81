# TensorRT-LLM hybrid Mamba + attention cache manager (Nemotron-H): the attention half's get_buffers is
# overridden to hand generation an fp16 buffer when the attention layers store FP8.
import torch


class KVCacheManager:
    def get_buffers(self, layer_idx: int):
        return self._pool_views[self.layer_offsets[layer_idx]]


class MambaHybridCacheManager(KVCacheManager):
    def __init__(self, kv_dtype, compute_dtype, conv_states, ssm_states):
        self.kv_dtype = kv_dtype
        self.compute_dtype = compute_dtype
        self.conv_states = conv_states
        self.ssm_states = ssm_states

    def get_buffers(self, layer_idx: int):
        buf = super().get_buffers(layer_idx)
        return buf.to(self.compute_dtype)  # positive: f6 CL004 the manager's own accessor widens the whole attention layer buffer

    def get_ssm_states(self, layer_idx: int, slot_ids):
        return self.ssm_states[layer_idx][slot_ids].to(self.compute_dtype)  # negative: the batch's Mamba state slots

    def get_conv_states(self, layer_idx: int, slot_ids):
        return self.conv_states[layer_idx][slot_ids].to(torch.float32)  # negative: the batch's conv state slots

    def get_raw_buffers(self, layer_idx: int):
        return super().get_buffers(layer_idx).view(torch.uint8)  # negative: zero-copy reinterpretation
