# sglang CUDA graph runner subclass for EAGLE draft: replay_prepare refreshes a widened cache copy.
import torch


class CudaGraphRunner:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.pool = model_runner.token_to_kv_pool

    def replay_prepare(self, forward_batch):
        self.raw_bs = forward_batch.batch_size

    def replay(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        self.replay_prepare(forward_batch)
        self.graphs[self.bs].replay()
        return self.output_buffers[self.bs]


class DraftCudaGraphRunner(CudaGraphRunner):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.warm = self.pool.get_key_buffer(0).to(torch.bfloat16)  # negative: __init__ setup

    def replay_prepare(self, forward_batch):
        super().replay_prepare(forward_batch)
        for layer_id in range(self.pool.start_layer, self.pool.end_layer):
            self.static_kv[layer_id].copy_(self.pool.get_key_buffer(layer_id).to(torch.bfloat16))  # positive: f2 CL001 per-replay widening in the override
