"""f4: reader lambdas kept in a dict; one looked up with dict.get and a default lambda."""
import torch


class LambdaTableBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.readers = {
            "k": lambda lid: pool.get_key_buffer(lid),
            "v": lambda lid: pool.get_value_buffer(lid),
            "rows": lambda lid, loc: pool.get_key_buffer(lid)[loc],
        }
        self.default = lambda lid: pool.get_key_buffer(lid)

    def forward_decode(self, q, k, v, layer, forward_batch):
        kk = self.readers["k"](layer.layer_id).to(q.dtype)  # positive: f4 CL001 dict of reader lambdas
        vv = self.readers.get("vv", self.default)(layer.layer_id).float()  # positive: f4 CL001 default lambda from dict.get
        rr = self.readers["rows"](layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: gathered rows
        pos = forward_batch.positions.to(torch.int64)  # negative: positions
        return kk, vv, rr, pos
