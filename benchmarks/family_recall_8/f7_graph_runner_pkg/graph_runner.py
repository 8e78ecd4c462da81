import torch


class HoldingGraphRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.layer_bufs = []

    def capture(self):
        self.layer_bufs = [self.pool.get_key_buffer(i) for i in range(self.pool.layer_num)]
        self.warm = [b.to(torch.bfloat16) for b in self.layer_bufs]  # negative: capture-time
