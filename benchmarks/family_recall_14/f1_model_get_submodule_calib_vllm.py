"""Per-step KV scale calibration that finds each Attention layer with nn.Module.get_submodule."""
import torch


class KVScaleCalibrator:
    def __init__(self, model, layer_names, steps=32):
        self.model = model
        self.layer_names = list(layer_names)
        self.remaining = steps

    def observe(self, block_ids, virtual_engine=0):
        if self.remaining <= 0:
            return
        self.remaining -= 1
        for name in self.layer_names:
            attn = self.model.get_submodule(name)
            key_plane = attn.kv_cache[virtual_engine][0]
            amax = key_plane.float().abs().amax()  # positive: f1 CL001 the key plane of the layer's whole cache, widened per step
            seen = attn.kv_cache[virtual_engine][1][block_ids].float()  # negative: blocks of this step
            old = attn._k_scale.float()  # negative: the layer's scale tensor
            attn._k_scale.copy_(torch.maximum(old, amax / 448.0))
            attn._v_scale.copy_(torch.maximum(attn._v_scale, seen.abs().amax() / 448.0))


class GPUModelRunner:
    def __init__(self, vllm_config, model, attn_layer_names):
        self.calibrator = KVScaleCalibrator(model, attn_layer_names)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        out = self._model_forward(scheduler_output)
        self.calibrator.observe(self.input_batch.block_table.get_cpu_tensor()[:1])
        return out
