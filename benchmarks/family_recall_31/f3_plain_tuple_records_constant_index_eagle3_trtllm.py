# TensorRT-LLM EAGLE3 draft layers: the worker keeps plain (layer_idx, buffer, scale, is_target) tuples
# and indexes them with module constants instead of a record class.
import torch

_IDX, _BUF, _SCALE, _IS_TARGET = range(4)


class Eagle3DraftKV:
    def __init__(self, target_manager, draft_manager, capture_layers, num_draft_layers):
        self.records = [(i, target_manager.get_buffers(i), target_manager.kv_scale(i), True) for i in capture_layers]
        self.records += [(i, draft_manager.get_buffers(i), None, False) for i in range(num_draft_layers)]

    def prepare(self, attn_metadata, dtype: torch.dtype):
        out = []
        for rec in self.records:
            if rec[_IS_TARGET]:
                out.append(rec[_BUF].to(dtype))  # positive: f3 CL001 every block of a target layer buffer, read through the tuple index
            else:
                out.append(rec[_BUF][attn_metadata.draft_block_ids].to(dtype))  # negative: the draft blocks only
        scales = [rec[_SCALE].to(torch.float32) for rec in self.records if rec[_SCALE] is not None]  # negative: scales
        self.layer_ids = [rec[_IDX] for rec in self.records]
        return out, scales
