import torch


class MLAGraphRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.graphs = {}
        self.shadow = []

    def capture(self):
        for i in range(self.pool.layer_num):
            self.shadow.append(self.pool.get_key_buffer(i).to(self.dtype))  # negative: shadows made once at capture
        for bs in (1, 2, 4, 8):
            self.graphs[bs] = torch.cuda.CUDAGraph()

    def replay(self, forward_batch, skip_attn_backend_init=False):
        bs = forward_batch.batch_size
        for i, dst in enumerate(self.shadow):
            src = self.pool.get_key_buffer(i)
            dst.copy_(src, non_blocking=True)  # positive: f6 CL001 whole FP8 layer buffer refreshed into its bf16 shadow every replay
        seq = forward_batch.seq_lens[:bs].to(torch.int32)  # negative: lengths
        self.graphs[bs].replay()
        return seq

    def can_run(self, forward_batch):
        return forward_batch.batch_size in self.graphs
