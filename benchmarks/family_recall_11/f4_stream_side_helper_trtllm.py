import torch


class OffloadSideStream:
    def __init__(self):
        self.stream = torch.cuda.Stream()
        self.host = {}

    def _copy_out(self, layer_idx, buf):
        with torch.cuda.stream(self.stream):
            self.host[layer_idx] = buf.to("cpu", torch.float16, non_blocking=True)  # positive: f4 CL001 whole layer buffer converted on a side stream inside the helper
        return self.stream

    def _copy_idx(self, mgr, request_ids):
        ids = mgr.get_batch_cache_indices(request_ids)
        return torch.tensor(ids).to("cpu", non_blocking=True)  # negative: device move of indices


class OffloadingAttention:
    def __init__(self, layer_idx, offloader):
        self.layer_idx = layer_idx
        self.offloader = offloader

    def forward(self, q, k, v, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        if metadata.offload_this_step:
            s = self.offloader._copy_out(self.layer_idx, mgr.get_buffers(self.layer_idx))
            torch.cuda.current_stream().wait_stream(s)
        return self.offloader._copy_idx(mgr, metadata.request_ids)
