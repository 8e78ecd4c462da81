import numpy as np
import torch


class HostSnapshotAttention:
    """Debug/offload path: snapshots caches on the host through numpy."""

    def __init__(self, layer_idx, snapshot_every=0):
        self.layer_idx = layer_idx
        self.snapshot_every = snapshot_every
        self.step = 0

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        self.step += 1
        if self.snapshot_every and self.step % self.snapshot_every == 0:
            k_host = k_cache.cpu().numpy().astype(np.float16)  # positive: f5 CL001 whole int8 K cache converted on the host with numpy astype
            v_host = torch.from_numpy(v_cache.cpu().numpy()).to(torch.float16)  # positive: f5 CL001 whole V cache round-tripped through numpy, then converted
            offs = np.asarray(attn_metadata.block_offsets.cpu()).astype(np.int32)  # negative: block offsets
            sz = k_scales_zeros.cpu().numpy().astype(np.float32)  # negative: scales/zeros
            return k_host, v_host, offs, sz
        return k_cache.cpu()  # negative: device move only
