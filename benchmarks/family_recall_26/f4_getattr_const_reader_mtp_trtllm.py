import torch


class MTPDraftLayerReader:
    READER = "get_buffers"
    SCALES = "get_scales"

    def __init__(self, kv_cache_manager, target_layer_idx, draft_dtype=torch.bfloat16):
        self.mgr = kv_cache_manager
        self.target_layer_idx = target_layer_idx
        self.draft_dtype = draft_dtype

    def target_kv(self):
        read = getattr(self.mgr, self.READER)
        return read(self.target_layer_idx).to(self.draft_dtype)  # positive: f4 CL001 manager accessor fetched by getattr with a class constant, whole layer

    def target_scales(self):
        return getattr(self.mgr, self.SCALES)(self.target_layer_idx).to(self.draft_dtype)  # negative: scales


class MTPWorker:
    def __init__(self, reader):
        self.reader = reader

    def forward(self, input_ids, position_ids, hidden_states, attn_metadata, spec_metadata):
        kv = self.reader.target_kv()
        s = self.reader.target_scales()
        h = hidden_states.to(self.reader.draft_dtype)  # negative: hidden states
        return kv, s, h
