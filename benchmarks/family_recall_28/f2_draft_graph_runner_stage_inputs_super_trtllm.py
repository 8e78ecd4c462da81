"""TensorRT-LLM two-model EAGLE3 draft CUDA graph runner: replay stages inputs through an overridden hook."""
import torch


class DraftCUDAGraphRunnerBase:
    def __init__(self, draft_engine, target_mgr):
        self.engine = draft_engine
        self.target_mgr = target_mgr
        self.static = {}

    def _stage_inputs(self, batch_size, inputs):
        self.static[batch_size]["hidden"].copy_(inputs["hidden_states"])
        return self.static[batch_size]

    def capture(self, batch_size, layer_ids):
        self.static[batch_size] = {"hidden": torch.zeros(batch_size, 4096, device="cuda", dtype=torch.bfloat16)}
        for i in layer_ids:
            self.static[batch_size][i] = torch.empty_like(self.target_mgr.get_buffers(i), dtype=torch.bfloat16)  # negative: allocation at capture (setup)

    def replay(self, batch_size, inputs):
        static = self._stage_inputs(batch_size, inputs)
        self.engine.graphs[batch_size].replay()
        return static["hidden"]


class Eagle3DraftGraphRunner(DraftCUDAGraphRunnerBase):
    def __init__(self, draft_engine, target_mgr, target_layer_ids):
        super().__init__(draft_engine, target_mgr)
        self.target_layer_ids = target_layer_ids

    def _stage_inputs(self, batch_size, inputs):
        static = super()._stage_inputs(batch_size, inputs)
        for i in self.target_layer_ids:
            static[i].copy_(self.target_mgr.get_buffers(i).to(torch.bfloat16))  # positive: f2 CL001 whole target layer buffer, every replay
        static["hidden"].mul_(inputs["hidden_scale"].to(torch.bfloat16))  # negative: scale
        return static
