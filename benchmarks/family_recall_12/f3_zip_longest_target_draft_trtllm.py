import itertools

import torch


class OneModelSpecAttention:
    def __init__(self, target_layers, draft_layers, dtype):
        self.target_layers = target_layers
        self.draft_layers = draft_layers
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata, **kwargs):
        mgr = attn_metadata.kv_cache_manager
        pairs = list(itertools.zip_longest(
            [mgr.get_buffers(i) for i in self.target_layers],
            [mgr.get_buffers(i) for i in self.draft_layers],
        ))
        tgt, drf = pairs[0]
        t16 = tgt.to(self.dtype)  # positive: f3 CL001 target layer buffer from a zip_longest pair
        if drf is not None:
            d16 = drf.to(self.dtype)  # positive: f3 CL001 draft layer buffer from the same pair
        else:
            d16 = None
        acc = attn_metadata.num_accepted_draft_tokens.to(torch.int32)  # negative: accepted counts
        return t16, d16, acc
