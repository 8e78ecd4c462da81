import torch


class DraftCUDAGraphRunner:
    def __init__(self, draft_model, max_bs, compute_dtype=torch.bfloat16):
        self.draft_model = draft_model
        self.compute_dtype = compute_dtype
        self.graphs = {}
        self.static_kv = {}

    def capture(self, bs, kv_cache_manager, layer_ids):
        self.static_kv[bs] = [kv_cache_manager.get_buffers(i).to(self.compute_dtype) for i in layer_ids]  # negative: capture, setup
        self.graphs[bs] = torch.cuda.CUDAGraph()

    def replay(self, bs, kv_cache_manager, layer_ids, inputs):
        for dst, i in zip(self.static_kv[bs], layer_ids):
            dst.copy_(kv_cache_manager.get_buffers(i).to(self.compute_dtype), non_blocking=True)  # positive: f6 CL001 whole FP8 layer widened into the static buffer per replay
        ids = inputs["input_ids"].to(torch.int32)  # negative: token ids
        self.graphs[bs].replay()
        return ids
