"""A target-verify step that zips layer ids with the MHA pool's k_buffer/v_buffer lists."""
import torch


class TorchVerifyFallbackBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.layer_ids = list(range(self.pool.start_layer, self.pool.end_layer))
        self.dtype = model_runner.dtype
        self.verify_kv = {}

    def init_forward_metadata(self, forward_batch):
        self.verify_kv.clear()
        if not forward_batch.forward_mode.is_target_verify():
            return
        for lid, kb, vb in zip(self.layer_ids, self.pool.k_buffer, self.pool.v_buffer):
            k_dense = kb.to(self.dtype)  # positive: f3 CL001 whole key layer zipped from pool.k_buffer, every verify step
            v_dense = vb.to(self.dtype)  # positive: f3 CL001 whole value layer zipped from pool.v_buffer
            self.verify_kv[lid] = (k_dense, v_dense)
        draft = forward_batch.spec_info
        for lid, kb in zip(self.layer_ids, self.pool.k_buffer):
            self.verify_kv.setdefault(("draft", lid), kb[draft.custom_mask_rows].to(self.dtype))  # negative: rows of the draft tokens
        positions = draft.positions.to(torch.int64)  # negative: an index tensor

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_dense, v_dense = self.verify_kv[layer.layer_id]
        return self._tree_sdpa(q, k_dense, v_dense, forward_batch.spec_info.custom_mask)
