import torch


class ShadowSet:
    def __init__(self, pool, dtype):
        self.pool = pool
        self.dtype = dtype
        self.layers = [pool.get_key_buffer(i) for i in range(pool.layer_num)]
        self.bf16 = [t.to(dtype) for t in self.layers]  # negative: built once, at construction

    def refresh(self, layer_ids):
        for i in layer_ids:
            self.bf16[i] = self.layers[i].to(self.dtype)  # positive: f7 CL001 whole layer buffer reconverted, called from the runner's replay
        return self.bf16
