import torch


class PageLoopAttention:
    def __init__(self, layer_idx, tokens_per_block=64):
        self.layer_idx = layer_idx
        self.tokens_per_block = tokens_per_block

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if metadata.use_reference_path:
            blocks = [blk.to(q.dtype) for blk in buf]  # positive: f5 CL001 every block of the layer, row by row
            dense = torch.ops.aten.to.dtype(buf, torch.bfloat16)  # positive: f5 CL001 whole buffer through the aten overload
            return blocks, dense
        ids = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        picked = [buf[i].to(q.dtype) for i in ids[0]]  # negative: only the request's blocks
        lens = metadata.kv_lens_cuda.to(torch.int32)  # negative: lengths
        return picked, lens
