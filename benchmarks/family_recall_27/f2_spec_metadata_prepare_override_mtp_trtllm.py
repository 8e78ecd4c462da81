import torch


class SpecMetadata:
    def __init__(self, max_num_requests, max_draft_len):
        self.max_num_requests = max_num_requests
        self.max_draft_len = max_draft_len

    def prepare(self):
        self.num_accepted = torch.zeros(self.max_num_requests, dtype=torch.int32)


class MTPSpecMetadata(SpecMetadata):
    def __init__(self, max_num_requests, max_draft_len, kv_cache_manager, mtp_layer_ids, dtype):
        super().__init__(max_num_requests, max_draft_len)
        self.kv_cache_manager = kv_cache_manager
        self.mtp_layer_ids = mtp_layer_ids
        self.dtype = dtype

    def prepare(self):
        super().prepare()
        mgr = self.kv_cache_manager
        self.draft_kv = [mgr.get_buffers(i).to(self.dtype) for i in self.mtp_layer_ids]  # positive: f2 CL001 every block of each MTP layer, per step in the override
        ids = torch.tensor(mgr.get_batch_cache_indices(self.request_ids)[0], dtype=torch.long)
        self.draft_blocks = [mgr.get_buffers(i)[ids].to(self.dtype) for i in self.mtp_layer_ids]  # negative: blocks of the first request
        self.mtp_hidden = self.mtp_hidden_states.to(self.dtype)  # negative: hidden states
