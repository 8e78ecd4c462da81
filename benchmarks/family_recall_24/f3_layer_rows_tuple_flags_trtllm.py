# TensorRT-LLM executor: prepare() builds (layer_idx, buffer, quantized) rows once per
# iteration; the debug dump in _forward_step walks them.
import torch


class KVDumpHook:
    def __init__(self, manager):
        self.manager = manager

    def prepare(self, scheduled_requests):
        fp8 = self.manager.dtype == torch.float8_e4m3fn
        self.rows = [(i, self.manager.get_buffers(i), fp8) for i in range(self.manager.num_local_layers)]

    def _forward_step(self, scheduled_requests):
        dumped = []
        for idx, buf, quantized in self.rows:
            if quantized:
                dumped.append((idx, buf.to(torch.bfloat16)))  # positive: f3 CL001 whole buffer from the row tuple
            else:
                dumped.append((idx, buf.to("cpu", non_blocking=True)))  # negative: device move only
        scales = [s.float() for s in self.manager.kv_scales or ()]  # negative: scales
        return dumped, scales
