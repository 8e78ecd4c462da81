"""TRT-LLM MTP verify reference: torch.split(buf, buf.size(0))[0] is the whole buffer; a page-sized chunk is not."""
import torch


class MTPVerifyReference:
    def __init__(self, mgr, dtype=torch.bfloat16):
        self.mgr = mgr
        self.dtype = dtype

    def forward(self, q, layer_idx, metadata):
        buf = self.mgr.get_buffers(layer_idx)
        if metadata.spec_metadata.is_mtp_verify:
            whole = torch.split(buf, buf.size(0))[0]
            kv = whole.to(self.dtype)  # positive: f5 CL001 one chunk of the full size keeps every block
        else:
            chunk = torch.split(buf, metadata.tokens_per_block)[metadata.chunk_idx]
            kv = chunk.to(self.dtype)  # negative: one chunk of blocks
        draft = metadata.spec_metadata.draft_tokens.to(q.device)  # negative: token ids
        return q.to(self.dtype), kv, draft  # negative: query
