import torch


class PipelineStageAttention:
    """Per pipeline stage, the list of that stage's local layer buffers."""

    def __init__(self, layer_idx, layers_per_stage, pp_rank):
        self.layer_idx = layer_idx
        self.local = layer_idx - pp_rank * layers_per_stage
        self.pp_rank = pp_rank
        self.stage_bufs = None

    def _bind(self, mgr, num_stages, layers_per_stage):
        if self.stage_bufs is None:
            self.stage_bufs = [[] for _ in range(num_stages)]
            self.stage_bufs[self.pp_rank] = [
                mgr.get_buffers(self.pp_rank * layers_per_stage + j) for j in range(layers_per_stage)
            ]

    def forward(self, q, k, v, metadata, **kwargs):
        self._bind(metadata.kv_cache_manager, metadata.pp_size, metadata.layers_per_stage)
        buf = self.stage_bufs[self.pp_rank][self.local]
        out = buf.to(q.dtype)  # positive: f3 CL001 whole local layer buffer from a list of per-stage lists
        firsts = [b.to(q.dtype) for b in self.stage_bufs[self.pp_rank][:1]]  # positive: f3 CL001 the stage's first whole layer buffer, via a list slice
        rows = buf[metadata.slot_mapping].to(q.dtype)  # negative: the step's slots gathered first
        ids = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        return out, firsts, rows, torch.tensor(ids).to(torch.int32)  # negative: cache indices
