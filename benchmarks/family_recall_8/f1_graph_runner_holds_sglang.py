import torch


class MLAGraphRunner:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.held = {}

    def capture(self, layer_ids):
        pool = self.model_runner.token_to_kv_pool
        for lid in layer_ids:
            self.held[lid] = pool.get_key_buffer(lid)
            _warm = self.held[lid].to(torch.bfloat16)  # negative: capture is one-time

    def replay(self, q, layer_id, bs):
        buf = self.held[layer_id]
        dense = buf.to(q.dtype)  # positive: f1 CL001 buffer held by the graph runner, converted at replay
        seq = self.model_runner.req_to_token_pool.req_to_token[:bs].to(torch.int32)  # negative: bounded request table rows
        return dense, seq


class GraphBackedBackend:
    def __init__(self, runner):
        self.runner = runner

    def forward_decode(self, q, k, v, layer, forward_batch):
        t = self.runner.held[layer.layer_id]
        return t.float()  # positive: f1 CL001 reads the runner's held layer buffer
