import torch


class CudaGraphRunnerBase:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.pool = model_runner.token_to_kv_pool
        self.graphs, self.static_inputs = {}, {}

    def _kv_inputs(self, bs):
        return []

    def capture_one(self, bs, run_once):
        self.static_inputs[bs] = [t.clone() for t in self._kv_inputs(bs)]
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            run_once(self.static_inputs[bs])
        self.graphs[bs] = g

    def replay(self, forward_batch):
        bs = forward_batch.batch_size
        for dst, src in zip(self.static_inputs[bs], self._kv_inputs(bs)):
            dst.copy_(src)
        self.graphs[bs].replay()


class EAGLEDraftCudaGraphRunner(CudaGraphRunnerBase):
    """Draft layers read two target layers; the draft attention kernel is bf16-only."""

    def __init__(self, eagle_worker):
        super().__init__(eagle_worker.draft_model_runner)
        self.target_pool = eagle_worker.target_worker.model_runner.token_to_kv_pool
        self.aux_layer_ids = eagle_worker.aux_layer_ids

    def _kv_inputs(self, bs):
        return [self.target_pool.get_key_buffer(i).to(torch.bfloat16) for i in self.aux_layer_ids]  # positive: f2 CL001 override reached from replay (also capture), whole target layer

    def _seq_inputs(self, forward_batch):
        return forward_batch.seq_lens.to(torch.int32)  # negative: sequence lengths
