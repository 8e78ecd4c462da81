"""sglang MUSA EAGLE: the draft worker installs the target pool on the draft runner with setattr."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class MusaEagleDraftWorker:
    def __init__(self, target_worker, draft_runner):
        self.target_worker = target_worker
        self.draft_runner = draft_runner
        setattr(draft_runner, "target_pool", target_worker.model_runner.token_to_kv_pool)


class MusaDraftExtendBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.runner = model_runner
        self.scale_dtype = torch.float32

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.runner.target_pool
        k_all = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 whole target key layer through the setattr-installed attribute
        v_all = pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 whole target value layer
        k_new = k.to(q.dtype)  # negative: new tokens of this batch
        rows = pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows gathered before the cast
        k_scale = layer.k_scale.to(self.scale_dtype)  # negative: scale
        return self._attend(q, k_all, v_all, k_new, rows, k_scale, layer)

    def _attend(self, q, k_all, v_all, k_new, rows, k_scale, layer):
        scores = torch.einsum("thd,shd->ths", q, k_all) * layer.scaling
        return torch.einsum("ths,shd->thd", scores.softmax(-1), v_all)
