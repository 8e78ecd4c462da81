import torch


class ForwardBatch:
    __match_args__ = ("token_to_kv_pool", "out_cache_loc")

    def __init__(self, token_to_kv_pool, out_cache_loc, seq_lens):
        self.token_to_kv_pool = token_to_kv_pool
        self.out_cache_loc = out_cache_loc
        self.seq_lens = seq_lens


class PatternBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        match forward_batch:
            case ForwardBatch(token_to_kv_pool=None):
                return q
            case ForwardBatch(pool, loc):
                kbuf = pool.get_key_buffer(layer.layer_id)
                dense = kbuf.float()  # positive: f1 CL001 pool taken out of the batch by a positional class pattern
                last = kbuf[loc].float()  # negative: gathered at the step's slots
                return dense, last
        return None

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        match forward_batch:
            case ForwardBatch(token_to_kv_pool=p, seq_lens=lens):
                vbuf = p.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 pool taken by a keyword class pattern
                return vbuf, lens.to(torch.int32)  # negative: lengths
        return None
