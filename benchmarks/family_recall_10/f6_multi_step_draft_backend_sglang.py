"""An EAGLE multi-step draft backend: one step backend per draft step, all reading the draft pool."""
import torch


class DraftStepBackend:
    def __init__(self, model_runner, step_id):
        self.pool = model_runner.token_to_kv_pool
        self.step_id = step_id

    def init_forward_metadata(self, forward_batch):
        self.topk = forward_batch.spec_info.topk_p.to(torch.float32)  # negative: draft top-k probabilities

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 each draft step upcasts the whole layer
        mask = forward_batch.spec_info.custom_mask.to(torch.bool)  # negative: tree mask
        return lat, mask


class MultiStepDraftBackend:
    def __init__(self, model_runner, num_steps):
        self.backends = [DraftStepBackend(model_runner, i) for i in range(num_steps)]
        self.kv_indptr = torch.zeros(num_steps, 65, dtype=torch.int32)

    def init_forward_metadata(self, forward_batch):
        for b in self.backends:
            b.init_forward_metadata(forward_batch)
        return self.kv_indptr.to(torch.int64)  # negative: indptr
