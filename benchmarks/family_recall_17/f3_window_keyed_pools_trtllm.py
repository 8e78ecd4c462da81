"""TensorRT-LLM variable sliding window: per-window buffer lists keyed by window size; the
full-attention layers are the ones under max(pools)."""
import torch


class VSWABufferIndex:
    def __init__(self, manager, layer_windows):
        self.pools = {}
        self.local = {}
        for idx, window in enumerate(layer_windows):
            self.pools.setdefault(window, []).append(manager.get_buffers(idx))
            self.local[idx] = len(self.pools[window]) - 1
        self.windows = layer_windows


class VSWAAttention:
    def __init__(self, index: VSWABufferIndex, dtype):
        self.index = index
        self.dtype = dtype

    def forward(self, q, k, v, metadata, layer_idx):
        pools = self.index.pools
        window = self.index.windows[layer_idx]
        buf = pools[window][self.index.local[layer_idx]]
        if window == max(pools):
            buf = buf.to(self.dtype)  # positive: f3 CL001 a full-attention layer's whole buffer
        else:
            buf = buf[metadata.window_block_offsets[layer_idx]].to(self.dtype)  # negative: window blocks only
        return self._run(q, buf)

    def _run(self, q, buf):
        return q
