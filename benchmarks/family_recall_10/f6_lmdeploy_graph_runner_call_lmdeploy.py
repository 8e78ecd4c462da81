"""An lmdeploy CUDA-graph runner whose __call__ refreshes bf16 copies of past_key_values before replay."""
import torch


class LmdeployGraphRunnerLike:
    def __init__(self, model, dtype):
        self.model = model
        self.dtype = dtype
        self.static = {}

    def capture(self, past_key_values):
        self.static["kv"] = [(k.to(self.dtype), v.to(self.dtype)) for k, v in past_key_values]  # negative: capture (one-time)

    def __call__(self, input_ids, position_ids, past_key_values, attn_metadata):
        fresh = []
        for k_cache, v_cache in past_key_values:
            k16 = k_cache.to(self.dtype)  # positive: f6 CL001 every replay converts each whole K cache
            v16 = v_cache.to(self.dtype)  # positive: f6 CL001 every replay converts each whole V cache
            fresh.append((k16, v16))
        self.static["kv"] = fresh
        self.static["pos"] = position_ids.to(torch.int64)  # negative: positions
        return self.model(input_ids, position_ids, self.static["kv"], attn_metadata)


class ModelAgentLike:
    def __init__(self, cache_engine, graph_runner):
        self.cache_engine = cache_engine
        self.graph_runner = graph_runner

    def _forward_impl(self, inputs):
        return self.graph_runner(inputs.input_ids, inputs.position_ids, self.cache_engine.gpu_cache, inputs.attn_metadata)
