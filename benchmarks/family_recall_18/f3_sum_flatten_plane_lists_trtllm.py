"""TensorRT-LLM-style draft verifier that flattens per-layer [key, value] lists with sum(..., [])."""
import torch


class DraftKVVerifier:
    def __init__(self, layer_ids, compute_dtype=torch.bfloat16):
        self.layer_ids = list(layer_ids)
        self.compute_dtype = compute_dtype
        self.planes = []

    def refresh(self, kv_cache_manager):
        pairs = [[kv_cache_manager.get_buffers(i)[:, 0], kv_cache_manager.get_buffers(i)[:, 1]] for i in self.layer_ids]
        flat = sum(pairs, [])
        self.planes = [t.to(self.compute_dtype) for t in flat]  # positive: f3 CL001 every whole plane of every layer widened

    def refresh_blocks(self, kv_cache_manager, block_ids):
        pairs = [[kv_cache_manager.get_buffers(i)[block_ids, 0]] for i in self.layer_ids]
        self.planes = [t.to(self.compute_dtype) for t in sum(pairs, [])]  # negative: gathered blocks


class TwoModelSpecExecutor:
    def __init__(self, model_engine, draft_manager, layer_ids, paged_draft):
        self.model_engine = model_engine
        self.draft_manager = draft_manager
        self.paged_draft = paged_draft
        self.verifier = DraftKVVerifier(layer_ids)

    def _forward_step(self, scheduled_requests, block_ids):
        if self.paged_draft:
            self.verifier.refresh_blocks(self.draft_manager, block_ids)
        else:
            self.verifier.refresh(self.draft_manager)
        return self.model_engine.forward(scheduled_requests, self.verifier.planes)
