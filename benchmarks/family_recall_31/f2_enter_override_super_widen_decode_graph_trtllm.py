# TensorRT-LLM decode CUDA graph on SM75: a context-manager class hands the layer buffer to the captured
# body; the fp16 subclass's __enter__ widens what the base __enter__ returns (per replayed step).
import torch


class _LayerScope:
    def __init__(self, kv_cache_manager, layer_idx: int):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx

    def __enter__(self):
        return self.mgr.get_buffers(self.layer_idx)

    def __exit__(self, *exc):
        return False


class _Fp16LayerScope(_LayerScope):
    def __enter__(self):
        return super().__enter__().to(torch.float16)  # positive: f2 CL001 every block of the layer buffer from the base __enter__


class SM75DecodeGraphBody:
    def __init__(self, layers, kv_cache_manager):
        self.layers = layers
        self.scopes = [_Fp16LayerScope(kv_cache_manager, i) for i in range(len(layers))]
        self.raw_scopes = [_LayerScope(kv_cache_manager, i) for i in range(len(layers))]

    def forward(self, hidden_states, attn_metadata):
        for i, scope in enumerate(self.scopes):
            with self.raw_scopes[i] as raw:
                tail = raw[attn_metadata.block_ids[:, -1]].to(torch.float16)  # negative: last block of each request
            with scope as buf:
                hidden_states = self.layers[i](hidden_states, buf, tail, attn_metadata)
        return hidden_states
