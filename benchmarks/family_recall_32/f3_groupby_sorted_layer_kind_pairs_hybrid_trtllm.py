"""TRT-LLM hybrid (full + local attention) reference: (kind, layer_idx) pairs grouped with itertools.groupby."""
import itertools
import operator

import torch


class HybridReferenceAttention:
    def __init__(self, mgr, layer_kinds, dtype=torch.bfloat16):
        self.mgr = mgr
        self.pairs = sorted(((kind, i) for i, kind in enumerate(layer_kinds)), key=operator.itemgetter(0))
        self.dtype = dtype

    def prepare(self, metadata):
        out = {}
        for kind, group in itertools.groupby(self.pairs, key=operator.itemgetter(0)):
            for _, idx in group:
                buf = self.mgr.get_buffers(idx)
                if kind == "full":
                    out[idx] = buf.to(self.dtype)  # positive: f3 CL001 whole layer buffer of every full-attention layer, each step
                else:
                    ids = metadata.local_block_ids[idx]
                    out[idx] = buf[ids].to(self.dtype)  # negative: local-window block gather
        metadata.seq_lens_cuda.copy_(metadata.seq_lens.to("cuda", non_blocking=True))  # negative: lengths, device move
        return out
