"""f5: torch.concatenate, column_stack and row_stack of whole layer planes before a conversion."""
import torch


class StackSpellingBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        kb, vb = self.pool.get_kv_buffer(layer.layer_id)
        both = torch.concatenate([kb, vb], dim=-1).to(self.dtype)  # positive: f5 CL001 K and V concatenated whole
        cols = torch.column_stack([kb.flatten(1), vb.flatten(1)]).float()  # positive: f5 CL001 column_stack of whole planes
        rows = torch.row_stack((kb.flatten(1), vb.flatten(1))).half()  # positive: f5 CL001 row_stack of whole planes
        new = torch.concatenate([k, v], dim=-1).to(self.dtype)  # negative: the batch's new k/v
        return both, cols, rows, new

    def forward_extend(self, q, k, v, layer, forward_batch):
        kb, vb = self.pool.get_kv_buffer(layer.layer_id)
        loc = forward_batch.out_cache_loc
        picked = torch.concatenate([kb[loc], vb[loc]], dim=-1).to(self.dtype)  # negative: rows of this step
        return picked
