"""HAZARD case h_match_class_pattern_accept_length_commits: `case EagleVerifyInput(accept_length=n)` reads the spec-info's accept_length property, which commits the accepted draft tokens' K into their target slots."""
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
class EagleVerifyInput:
    """Spec-decoding verify input. accept_length is known once verification ran; reading it commits the
    accepted draft tokens' K into their target slots (the EAGLE worker's lazy move of the draft KV)."""

    def __init__(self, pool, layer_id, tgt, draft_rows):
        self.pool = pool
        self.layer_id = layer_id
        self.tgt = tgt
        self.draft_rows = draft_rows
        self._accepted = None

    @property
    def accept_length(self):
        if self._accepted is None:
            self.pool.k_buffer[self.layer_id][self.tgt] = self.draft_rows.to(self.pool.dtype)
            self._accepted = int(self.tgt.numel())
        return self._accepted


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.float16, non_blocking=False)
        kv_indices = forward_batch.kv_indices
        match forward_batch.spec_info:
            case EagleVerifyInput(accept_length=n_accepted):
                pass
            case _:
                n_accepted = 0
        return k[kv_indices, :, :], n_accepted


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    fb.spec_info = EagleVerifyInput(pool, 1, torch.tensor([3]), torch.full((1, 2, 4), 3.0))
    helper = None
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
