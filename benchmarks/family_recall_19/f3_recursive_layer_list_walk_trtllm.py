import torch


def _widen_layers(layers, dtype, out):
    if not layers:
        return out
    head, *rest = layers
    out.append(head.to(dtype))  # positive: f3 CL001 recursion over whole layer buffers
    return _widen_layers(rest, dtype, out)


def _first_blocks(layers, n, dtype):
    return [buf[:n].to(dtype) for buf in layers]  # negative: first n blocks


class DraftTargetSync:
    def __init__(self, kv_cache_manager, num_layers):
        self.manager = kv_cache_manager
        self.num_layers = num_layers

    def _forward_step(self, scheduled_requests, model_dtype=torch.bfloat16):
        layers = [self.manager.get_buffers(i) for i in range(self.num_layers)]
        dense = _widen_layers(layers[1:], model_dtype, [])
        head = _first_blocks(layers, 4, model_dtype)
        return dense, head
