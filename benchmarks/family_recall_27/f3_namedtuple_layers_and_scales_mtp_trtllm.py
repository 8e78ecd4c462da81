from typing import NamedTuple

import torch


class MTPStepKV(NamedTuple):
    layers: list
    scales: list
    block_ids: torch.Tensor


class MTPWorker:
    def __init__(self, mtp_layers, dtype):
        self.mtp_layers = mtp_layers
        self.dtype = dtype

    def forward(self, input_ids, hidden_states, attn_metadata, spec_metadata):
        mgr = attn_metadata.kv_cache_manager
        ids = [b for seq in mgr.get_batch_cache_indices(attn_metadata.request_ids) for b in seq]
        step = MTPStepKV(
            [mgr.get_buffers(m.layer_idx) for m in self.mtp_layers],
            [m.attn.kv_scale_quant_orig for m in self.mtp_layers],
            torch.tensor(ids, dtype=torch.long),
        )
        dense = []
        for buf in step.layers:
            dense.append(buf.to(self.dtype))  # positive: f3 CL001 every block of each MTP layer from the record's list field
        scales = [s.to(torch.float32) for s in step.scales]  # negative: the scales
        used = step.layers[0][step.block_ids].to(self.dtype)  # negative: the batch's blocks
        return self._draft(input_ids, hidden_states.to(self.dtype), dense, scales, used)  # negative: hidden states
