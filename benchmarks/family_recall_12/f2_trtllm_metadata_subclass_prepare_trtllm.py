import torch


class TrtllmMetadataBase:
    def prepare(self):
        self.seq_lens_cuda = self.seq_lens.to(torch.int32)  # negative: lengths in per-step prepare


class DraftAwareMetadata(TrtllmMetadataBase):
    def prepare(self):
        super().prepare()
        mgr = self.kv_cache_manager
        self.layer_views = {i: mgr.get_buffers(i) for i in mgr.pp_layers}
        self.draft_lens = self.spec_lens.to(torch.int32)  # negative: draft lengths


class DraftAwareAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata, **kwargs):
        view = metadata.layer_views[self.layer_idx]
        if metadata.is_spec_decoding_enabled:
            return view.to(self.dtype)  # positive: f2 CL001 manager buffer stored by a metadata subclass's prepare
        return view[metadata.kv_lens_runtime].to(self.dtype)  # negative: gathered rows
