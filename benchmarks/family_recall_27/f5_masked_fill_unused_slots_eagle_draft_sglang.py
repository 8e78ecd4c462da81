import torch


class EagleDraftDecodeBackend:
    """EAGLE draft decode over the target pool; slots not yet written hold stale fp8 bytes."""

    def __init__(self, model_runner, target_pool):
        self.target_pool = target_pool
        self.slot_valid = torch.zeros(target_pool.size + 1, dtype=torch.bool, device=model_runner.device)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        valid = self.slot_valid
        valid[forward_batch.out_cache_loc] = True
        k_buf = self.target_pool.get_key_buffer(layer.layer_id)
        if forward_batch.spec_info.topk > 1:
            keys = k_buf.masked_fill(~valid.view(-1, 1, 1), 0).to(q.dtype)  # positive: f5 CL001 masked_fill keeps every slot
        else:
            keys = k_buf[valid].to(q.dtype)  # negative: boolean-mask gather of valid rows
        vals = self.target_pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows
        return self._tree_decode(q, keys, vals, forward_batch.spec_info.custom_mask.to(torch.bool))  # negative: the mask
