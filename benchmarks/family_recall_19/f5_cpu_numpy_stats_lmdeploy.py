import numpy as np
import torch


class CacheStatsReporter:
    def report(self, k_cache: torch.Tensor, v_cache: torch.Tensor, block_ids: torch.Tensor):
        k_np = k_cache.cpu().float().numpy()  # positive: f5 CL001 whole key cache copied then widened
        v_np = v_cache.to("cpu", torch.float32).numpy()  # positive: f5 CL001 device move with a dtype change
        blk = k_cache[block_ids].cpu().float().numpy()  # negative: one sequence's blocks
        raw = v_cache.cpu()  # negative: device move only
        return float(np.abs(k_np).mean()), float(np.abs(v_np).mean()), blk.shape, raw.shape


class StatsAttention(torch.nn.Module):
    def __init__(self, reporter: CacheStatsReporter):
        super().__init__()
        self.reporter = reporter

    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        return self.reporter.report(k_cache, v_cache, attn_metadata.block_offsets[0])
