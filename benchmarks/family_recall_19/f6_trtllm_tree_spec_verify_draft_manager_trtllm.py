import torch


class TreeVerifyWorker:
    """Medusa/EAGLE tree verification: the draft manager's layers feed the torch tree kernel."""

    def __init__(self, draft_kv_cache_manager, num_draft_layers):
        self.draft_manager = draft_kv_cache_manager
        self.num_draft_layers = num_draft_layers

    def _forward_step(self, scheduled_requests, tree_positions, model_dtype=torch.bfloat16):
        dense = []
        for i in range(self.num_draft_layers):
            buf = self.draft_manager.get_buffers(i)
            dense.append(buf.to(model_dtype))  # positive: f6 CL001 whole draft layer every verify step
        accepted = self.draft_manager.get_buffers(0)[tree_positions].to(model_dtype)  # negative: tree node blocks
        return dense, accepted

    def warmup(self, model_dtype=torch.bfloat16):
        return [self.draft_manager.get_buffers(i).to(model_dtype) for i in range(1)]  # negative: one-time warmup
