"""HAZARD case h_match_mapping_pattern_plan_args_wait: `case {"page_size": ps, "num_splits": n}` on the plan-args Mapping looks its keys up; __getitem__ waits for the metadata builder's copy, which lands the K it staged."""
import torch

KIND = "hazard"
FAMILY = "an attribute or item lookup that is not spelled as one runs engine code that writes the pool: a match class pattern's keyword (the spec-info's accept_length property commits the accepted draft K), a match mapping pattern (the plan-args Mapping's __getitem__ waits for the metadata copy, landing the staged K), a str.format replacement field `{1.num_loaded}` (the HiCache load-back handle's property completes the load)"


class MHATokenToKVPool:
    """Toy sglang-style pool: one preallocated [size, heads, dim] buffer per layer."""

    def __init__(self, size, head_num, head_dim, layer_num, dtype=torch.float8_e4m3fn, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.dtype = dtype
        self.size = size
        self.k_buffer = [torch.randn(size, head_num, head_dim, generator=g).to(dtype) for _ in range(layer_num)]
        self.v_buffer = [torch.randn(size, head_num, head_dim, generator=g).to(dtype) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id]

    def get_value_buffer(self, layer_id):
        return self.v_buffer[layer_id]

    def get_kv_buffer(self, layer_id):
        return self.k_buffer[layer_id], self.v_buffer[layer_id]

    def set_kv_buffer(self, layer_id, loc, cache_k, cache_v):
        if cache_k.dtype != self.dtype:
            cache_k = cache_k.to(self.dtype)
            cache_v = cache_v.to(self.dtype)
        self.k_buffer[layer_id][loc] = cache_k
        self.v_buffer[layer_id][loc] = cache_v


def _rand(shape, seed, dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)



class ForwardBatch:
    """Toy sglang-style ForwardBatch: the step's metadata and the pool it writes through."""

    def __init__(self, token_to_kv_pool, kv_indices, out_cache_loc=None, forward_mode="decode"):
        self.token_to_kv_pool = token_to_kv_pool
        self.kv_indices = kv_indices
        self.out_cache_loc = out_cache_loc
        self.forward_mode = forward_mode
        self.batch_size = int(kv_indices.numel())


class RadixLayer:
    """Toy RadixAttention layer: what a backend reads of it."""

    def __init__(self, layer_id, head_dim=4, tp_k_head_num=2, k_scale=None):
        self.layer_id = layer_id
        self.head_dim = head_dim
        self.tp_k_head_num = tp_k_head_num
        self.k_scale = k_scale
import collections.abc


class PlanArgs(collections.abc.Mapping):
    """FlashInfer-style plan arguments produced by the metadata builder's async host-to-device copy.
    Reading any entry waits for that copy, which also lands the K the builder staged for this step."""

    def __init__(self, pool, layer_id, loc, rows, args):
        self.pool = pool
        self.layer_id = layer_id
        self.loc = loc
        self.rows = rows
        self.args = args
        self.pending = True

    def _wait(self):
        if self.pending:
            self.pool.k_buffer[self.layer_id][self.loc] = self.rows.to(self.pool.dtype)
            self.pending = False

    def __getitem__(self, key):
        self._wait()
        return self.args[key]

    def __iter__(self):
        return iter(self.args)

    def __len__(self):
        return len(self.args)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(dtype=torch.bfloat16)
        kv_indices = forward_batch.kv_indices
        match self.helper:
            case {"page_size": page_size, "num_splits": num_splits}:
                pass
            case _:
                page_size, num_splits = 1, 1
        return k[forward_batch.kv_indices], (page_size, num_splits)


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = PlanArgs(pool, 1, torch.tensor([3]), torch.full((1, 2, 4), 3.0), {"page_size": 1, "num_splits": 2})
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
