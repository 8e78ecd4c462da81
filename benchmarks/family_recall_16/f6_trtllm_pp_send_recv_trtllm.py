import torch


class PPKVSender:
    """Sends the stage's KV to the next rank when a request migrates."""

    def __init__(self, kv_cache_manager, dist):
        self.mgr = kv_cache_manager
        self.dist = dist

    def send_layer(self, layer_idx, block_ids=None):
        buf = self.mgr.get_buffers(layer_idx)
        if block_ids is None:
            payload = buf.to(torch.float16)  # positive: f6 CL001 whole layer when no block list is given
        else:
            payload = buf[block_ids].to(torch.float16)  # negative: migrating blocks
        self.dist.send(payload, dest=self.dist.next_pp_rank)


class PyExecutor:
    def __init__(self, kv_cache_manager, dist, layer_ids):
        self.sender = PPKVSender(kv_cache_manager, dist)
        self.layer_ids = layer_ids

    def _forward_step(self, scheduled_requests):
        for r in scheduled_requests.migrating:
            for i in self.layer_ids:
                self.sender.send_layer(i, r.block_ids if r.partial else None)
        return scheduled_requests
