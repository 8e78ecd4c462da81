# Cast-then-gather (CL003): the whole pool is converted, then only some rows are read.
import torch


class CastThenGatherBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.req_to_token = model_runner.req_to_token_pool.req_to_token

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        kbuf = self.pool.get_key_buffer(layer.layer_id)
        vbuf = self.pool.get_value_buffer(layer.layer_id)
        r1 = kbuf.to(q.dtype)[loc]  # positive: f5 CL003 whole-pool cast, then a subscript gather
        r2 = torch.index_select(vbuf.float(), 0, loc)  # positive: f5 CL003 torch.index_select of a whole-pool cast
        r3 = kbuf.bfloat16().index_select(0, loc)  # positive: f5 CL003 method index_select after the whole cast
        idx = loc.view(-1, 1, 1).expand(-1, vbuf.shape[1], vbuf.shape[2])
        r4 = torch.gather(vbuf.half(), 0, idx)  # positive: f5 CL003 torch.gather of a whole-pool cast
        r5 = kbuf.view(-1, kbuf.shape[-1]).to(self.dtype)[loc]  # positive: f5 CL003 view, cast, then gather
        r6 = kbuf[loc].to(q.dtype)  # negative: gather-then-cast
        r7 = vbuf.index_select(0, loc).float()  # negative: index_select first
        r8 = torch.gather(vbuf, 0, idx).half()  # negative: gather first
        return r1, r2, r3, r4, r5, r6, r7, r8

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        page_table = self.req_to_token[forward_batch.req_pool_indices, : forward_batch.seq_lens.max()]
        latent = self.pool.get_key_buffer(layer.layer_id)
        sel = latent.float()[page_table]  # positive: f5 CL003 whole latent cast then indexed by the page table
        sel2 = latent[page_table].float()  # negative: page table gather first
        return sel, sel2
