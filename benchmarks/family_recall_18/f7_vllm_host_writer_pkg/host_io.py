"""Host writer: fp16 pinned host buffers; one method converts whole layers, the other only blocks."""
import torch


class HostWriter:
    def __init__(self, host_dtype):
        self.host_dtype = host_dtype
        self.host = {}

    def allocate(self, shapes: dict):
        self.host = {n: torch.empty(s, dtype=self.host_dtype, pin_memory=True) for n, s in shapes.items()}

    def write_layer(self, name, kv_layer):
        self.host[name].copy_(kv_layer.to(self.host_dtype), non_blocking=True)  # positive: f7 CL001 connector's whole layer converted before the host copy

    def write_blocks(self, name, kv_layer, block_ids):
        rows = kv_layer[:, block_ids].to(self.host_dtype)  # negative: saved blocks only
        self.host[name][:, block_ids.cpu()] = rows.cpu()

    def flush(self):
        torch.cuda.current_stream().synchronize()
