import torch


class Bf16KVCUDAGraphWrapper:
    """Graph wrapper that keeps bf16 copies of FP8 caches for a kernel without FP8 reads."""

    def __init__(self, runnable, runner, needs_bf16_kv):
        self.runnable = runnable
        self.runner = runner
        self.needs_bf16_kv = needs_bf16_kv
        self.static_kv = []
        self.graphs = {}

    def capture(self, batch_descriptor):
        self.static_kv = [c.to(torch.bfloat16) for c in self.runner.kv_caches]  # negative: capture-time allocation
        g = torch.cuda.CUDAGraph()
        self.graphs[batch_descriptor] = g
        return g

    def __call__(self, *args, batch_descriptor=None, **kwargs):
        if self.needs_bf16_kv:
            for dst, src in zip(self.static_kv, self.runner.kv_caches):
                dst.copy_(src)  # positive: f6 CL001 every replay copies each whole FP8 cache into its bf16 static buffer
        g = self.graphs.get(batch_descriptor)
        if g is None:
            return self.runnable(*args, **kwargs)
        lens = kwargs["seq_lens"].to(torch.int32)  # negative: static input of the batch
        g.replay()
        return lens
