"""lmdeploy CUDA graph runner: a subclass override widens every layer in one comprehension before each replay."""
import torch


class CUDAGraphRunnerBase:
    def __init__(self, model, cache_engine):
        self.model = model
        self.cache_engine = cache_engine
        self.graphs = {}
        self.static_kv = []

    def _prepare_kv(self, past_key_values):
        return past_key_values

    def capture(self, batch_size):
        self.static_kv = [(torch.zeros_like(k, dtype=torch.float16), torch.zeros_like(v, dtype=torch.float16)) for k, v in self.cache_engine.gpu_cache]  # negative: allocations at capture (setup)
        self.graphs[batch_size] = torch.cuda.CUDAGraph()

    def __call__(self, input_ids, position_ids, past_key_values, attn_metadata):
        kv = self._prepare_kv(past_key_values)
        for (sk, sv), (k, v) in zip(self.static_kv, kv):
            sk.copy_(k)
            sv.copy_(v)
        self.graphs[input_ids.size(0)].replay()
        return attn_metadata.q_seqlens.to(torch.int32)  # negative: lengths


class Fp16KVGraphRunner(CUDAGraphRunnerBase):
    def _prepare_kv(self, past_key_values):
        return [(k.half(), v.half()) for k, v in past_key_values]  # positive: f2 CL001 every layer's whole caches, one comprehension line (one finding)
