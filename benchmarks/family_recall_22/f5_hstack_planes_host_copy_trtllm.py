import torch


class KVCacheHostSnapshot:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def snapshot(self, layer_idx, block_ids=None):
        buf = self.kv_cache_manager.get_buffers(layer_idx)  # [blocks, 2, tpb, heads, dim]
        if block_ids is None:
            flat = torch.hstack(buf.unbind(1)).to(torch.float16)  # positive: f5 CL001 both planes of every block re-stacked, widened
        else:
            flat = torch.hstack(buf[block_ids].unbind(1)).to(torch.float16)  # negative: blocks selected first
        return flat

    def _forward_step(self, scheduled_requests, layers):
        snaps = [self.snapshot(i) for i in layers]
        return snaps, torch.hstack([torch.ones(1), torch.zeros(1)]).to(torch.float16)  # negative: constants
