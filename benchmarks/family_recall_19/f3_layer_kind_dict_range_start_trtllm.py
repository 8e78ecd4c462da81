import torch


class ChunkedPrefillWindowedCache:
    """Gemma-3 style: every sixth layer is global, the rest use a sliding window."""

    def __init__(self, kv_cache_manager, start_layer, num_layers, window):
        self.manager = kv_cache_manager
        self.window = window
        self.kinds = {
            idx: ("global" if idx % 6 == 5 else "local")
            for idx in range(start_layer, start_layer + num_layers)
        }

    def _forward_step(self, q_dtype, chunk_start):
        out = {}
        for idx, kind in self.kinds.items():
            buf = self.manager.get_buffers(idx)
            if kind == "global":
                out[idx] = buf.to(q_dtype)  # positive: f3 CL001 whole buffer of each global layer
            else:
                out[idx] = buf[:, 0].to(q_dtype)  # positive: f3 CL001 key plane of every block of a local layer (plane selection keeps every slot)
        tail = self.manager.get_buffers(0)[chunk_start:].to(q_dtype)  # negative: block range
        return out, tail
