import torch

ROLE_OF_MODE = {"DRAFT_EXTEND": "draft", "TARGET_VERIFY": "target", "DECODE": "target"}


class RolePoolBackend:
    def __init__(self, target_runner, draft_runner):
        self.pools = {
            "target": target_runner.token_to_kv_pool,
            "draft": draft_runner.token_to_kv_pool,
        }
        self.tree_masks = {"target": None, "draft": None}

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        role = ROLE_OF_MODE.get(forward_batch.forward_mode.name, "target")
        kbuf = self.pools[role].kv_buffer[layer.layer_id]
        if role == "draft":
            return kbuf.to(q.dtype)  # positive: f3 CL001 whole draft-pool layer from a role-keyed dict then the per-layer list
        mask = forward_batch.spec_info.custom_mask
        self.tree_masks[role] = mask.to(torch.bool)  # negative: tree mask
        return kbuf[forward_batch.spec_info.kv_indices].to(q.dtype)  # negative: verify slots gathered first

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buffers = self.pools["target"].kv_buffer
        return buffers[layer.layer_id].to(q.dtype)  # positive: f3 CL001 whole target-pool layer
