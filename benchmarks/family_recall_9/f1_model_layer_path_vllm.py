"""A model runner reaching the cache bound on an attention layer through the model's module path."""
import torch


class LayerPathRunner:
    def __init__(self, model, vllm_config):
        self.model = model
        self.dtype = vllm_config.model_config.dtype
        self.positions = torch.zeros(8192, dtype=torch.int64)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        layers = self.model.model.layers
        first = layers[0].self_attn.attn.kv_cache[0]
        snap = first.to(self.dtype)  # positive: f1 CL001 kv_cache bound on the first attention layer
        last_attn = layers[-1].self_attn.attn
        tail = last_attn.kv_cache[0][1].float()  # positive: f1 CL001 V plane of the last layer's bound cache
        pos = self.positions[: scheduler_output.total_num_scheduled_tokens].to(torch.int32)  # negative: positions of this step
        scale = last_attn._k_scale.to(self.dtype)  # negative: per-layer scale
        return snap, tail, pos, scale
