import torch


class CUDAGraphRunner:
    def __init__(self, engine):
        self.engine = engine
        self.graphs = {}
        self.static_inputs = {}

    def capture(self, batch_size, forward_fn, initial_inputs):
        mgr = initial_inputs["attn_metadata"].kv_cache_manager
        self.warm = mgr.get_buffers(0).to(torch.bfloat16)  # negative: one-time warm-up at capture
        self.graphs[batch_size] = torch.cuda.CUDAGraph()

    def replay(self, batch_size, current_inputs):
        md = current_inputs["attn_metadata"]
        static = self.static_inputs[batch_size]
        if self.engine.needs_dense_kv:
            mgr = md.kv_cache_manager
            for i, dst in enumerate(self.engine.dense_kv):
                dst.copy_(mgr.get_buffers(i))  # positive: f6 CL001 every manager layer copied into a bf16 dense buffer at replay
        n = current_inputs["input_ids"].shape[0]
        static["input_ids"][:n].copy_(current_inputs["input_ids"])  # negative: step ids
        static["position_ids"][:, :n].copy_(current_inputs["position_ids"])  # negative: positions
        self.graphs[batch_size].replay()
        return static["logits"]
