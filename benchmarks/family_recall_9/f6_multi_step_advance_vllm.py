"""A v0-style multi-step runner: execute_model loops over steps, _advance_step mirrors caches."""
import torch


class MultiStepModelRunner:
    def __init__(self, cache_engine, mirror_fp16=True):
        self.gpu_cache = cache_engine.gpu_cache
        self.mirror_fp16 = mirror_fp16
        self.mirror = [None, None]

    def execute_model(self, model_input, kv_caches, intermediate_tensors=None, num_steps=1):
        out = None
        for step in range(num_steps):
            out = self._advance_step(model_input, kv_caches, step)
        return out

    def _advance_step(self, model_input, kv_caches, step):
        if self.mirror_fp16:
            self.mirror[step % 2] = kv_caches[0].to(torch.float16)  # positive: f6 CL001 first layer's cache mirrored every step
        last = self.gpu_cache[-1].half()  # positive: f6 CL001 last layer's cache of the engine
        seq = model_input.seq_lens_tensor.to(torch.int32)  # negative: lengths
        pos = (model_input.input_positions + 1).to(torch.int64)  # negative: positions
        return last, seq, pos
