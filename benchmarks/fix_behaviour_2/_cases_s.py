# Safe case bodies for make_cases.py: nothing writes the pool between the cast and the gather and the
# cast result is only gathered (or read for its shape), so moving the cast after the gather is exact.
CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


case("len_between", "safe: len() of the cast result", "n = len(k) (a shape read) between cast and gather", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        n = len(k)
        return k[kv_indices % n]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 17, 5]))
    return {"out": out, "k": pool.k_buffer}
''')

case("size_ndim_between", "safe: size()/ndim reads", "k.size(0) and k.ndim between cast and gather", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        rows = k.size(0)
        nd = k.ndim
        return k[kv_indices.clamp(max=rows - 1)], nd


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([30, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

case("tuple_index", "safe: gather with a (tensor, int) index", "k[kv_indices, 0] (tokens, then head 0)", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices, 0]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([2, 9]))
    return {"out": out, "k": pool.k_buffer}
''')

case("two_gathers_tuple_return", "safe: two gathers in one return", "return k[a], k[b]", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, a, b):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32)
        return k[a], k[b]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([1, 2]), torch.tensor([15]))
    return {"out": out, "k": pool.k_buffer}
''')

case("forward_mode_between", "safe: ForwardMode predicate between", "if forward_batch.forward_mode.is_decode(): between cast and gather", '''
class ForwardMode:
    def __init__(self, decode):
        self.decode = decode

    def is_decode(self):
        return self.decode


class ForwardBatch:
    def __init__(self, decode):
        self.forward_mode = ForwardMode(decode)


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        if forward_batch.forward_mode.is_decode():
            scale = 1.0
        else:
            scale = 0.5
        return k[kv_indices] * scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([4, 4]), ForwardBatch(False))
    return {"out": out, "k": pool.k_buffer}
''')

case("math_sqrt_between", "safe: math.sqrt between", "scale = 1 / math.sqrt(head_dim) between cast and gather", '''
import math


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, head_dim):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        scale = 1.0 / math.sqrt(head_dim)
        return k[kv_indices] * scale


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([7, 8]), 4)
    return {"out": out, "k": pool.k_buffer}
''')

case("index_numel_assert", "safe: reads of the index between", "assert kv_indices.numel() > 0 between cast and gather", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).half()
        assert kv_indices.numel() > 0
        n = kv_indices.numel()
        return k[kv_indices], n


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([0, 15, 3]))
    return {"out": out, "k": pool.k_buffer}
''')

case("no_grad_both_inside", "safe: cast and gather inside one no_grad block", "with torch.no_grad(): k = cast; rows = k[idx]", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        with torch.no_grad():
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
            rows = k[kv_indices]
        return rows


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([5, 6]))
    return {"out": out, "k": pool.k_buffer}
''')

case("inference_mode_decorator", "safe: @torch.inference_mode() method", "the whole method runs in inference mode", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    @torch.inference_mode()
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        return k[kv_indices].clone()


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([5, 6]))
    return {"out": out, "is_inference": out.is_inference(), "k": pool.k_buffer}
''')

case("kv_tuple_unpack", "safe: get_kv_buffer unpacked, each converted and gathered", "k_buf, v_buf = pool.get_kv_buffer(l); k_buf.bfloat16()[idx], v_buf.bfloat16()[idx]", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k_buf, v_buf = self.token_to_kv_pool.get_kv_buffer(layer_id)
        k = k_buf.bfloat16()[kv_indices]
        v = v_buf.bfloat16()[kv_indices]
        return k, v


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([9, 10]))
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
''')

case("dtype_param_annotated", "safe: dtype from an annotated parameter", "def forward(self, ..., dtype: torch.dtype): pool.to(dtype)[idx]", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices, dtype: torch.dtype):
        return self.token_to_kv_pool.get_value_buffer(layer_id).to(dtype)[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([9, 10]), torch.float16)
    return {"out": out, "v": pool.v_buffer}
''')

case("trtllm_index_select", "safe: TRT-LLM get_buffers().float().index_select", "kv_cache_manager.get_buffers(l).float().index_select(0, block_ids)", '''
class KVCacheManager:
    def __init__(self, layers):
        g = torch.Generator().manual_seed(0)
        self.bufs = [torch.randn(6, 2, 4, 2, 4, generator=g).to(torch.float8_e4m3fn) for _ in range(layers)]

    def get_buffers(self, layer_idx):
        return self.bufs[layer_idx]


class TrtllmAttention:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def forward(self, layer_idx, block_ids):
        return self.kv_cache_manager.get_buffers(layer_idx).float().index_select(0, block_ids)


def run_case(torch):
    mgr = KVCacheManager(2)
    out = TrtllmAttention(mgr).forward(1, torch.tensor([5, 0, 5]))
    return {"out": out, "bufs": mgr.bufs}
''')

case("out_of_range_index", "safe: an out-of-range index raises IndexError either way", "the gather raises IndexError before or after the move; the caller catches it", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        try:
            return k[kv_indices]
        except IndexError:
            return None


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([3, 40]))
    return {"out": out, "k": pool.k_buffer}
''')

case("negative_empty_index", "safe: negative and empty index tensors", "k[neg] and k[empty] on the converted pool", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, neg, empty):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        a = k[neg]
        b = k[empty]
        return a, b


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([-1, -16, 2]), torch.tensor([], dtype=torch.long))
    return {"out": out, "k": pool.k_buffer}
''')

case("bool_mask_gather", "safe: bool mask gather (no fp8 compare)", "k[mask] with a bool mask built from the index", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, live):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        mask = torch.zeros(16, dtype=torch.bool)
        mask[live] = True
        return k[mask]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([3, 1, 12]))
    return {"out": out, "k": pool.k_buffer}
''')

case("mla_two_reads", "safe: MLA latent, one gather sliced twice", "kv = pool.get_key_buffer(l).to(q.dtype); rows = kv[idx]; k_nope, k_rope = rows[..., :3], rows[..., 3:]", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, q, layer_id, kv_indices):
        kv = self.token_to_kv_pool.get_key_buffer(layer_id).to(q.dtype)
        rows = kv[kv_indices]
        return rows[..., :3], rows[..., 3:]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(_rand((2, 2, 4), 1), 1, torch.tensor([8, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("gather_in_helper_call_arg", "safe: gathered rows passed straight to torch.cat", "torch.cat([k[a], k[b]]) (the cast result only gathered)", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, a, b):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return torch.cat([k[a], k[b]])


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(0, torch.tensor([1]), torch.tensor([14, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("isinstance_between", "safe: isinstance() of a builtin between", "isinstance(kv_indices, torch.Tensor) between cast and gather", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        if not isinstance(kv_indices, torch.Tensor):
            kv_indices = torch.tensor(kv_indices)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, [4, 5])
    return {"out": out, "k": pool.k_buffer}
''')

case("vllm_flat_slot_mapping", "safe: vLLM key_cache.view(-1, h, d).to(dtype)[slot_mapping]", "a reshape of the whole cache, converted, then gathered by slot", '''
class Impl:
    def forward(self, query, kv_cache, slot_mapping):
        key_cache = kv_cache[0]
        flat = key_cache.view(-1, 2, 4)
        return flat.to(query.dtype)[slot_mapping]


def run_case(torch):
    g = torch.Generator().manual_seed(0)
    kv_cache = torch.randn(2, 4, 4, 2, 4, generator=g).to(torch.float8_e4m3fn)
    out = Impl().forward(_rand((2, 2, 4), 2), kv_cache, torch.tensor([0, 9, 15]))
    return {"out": out, "kv_cache": kv_cache}
''')

case("receiver_rebound", "safe: the receiver name is rebound after the cast (the fix keeps k bound to the unconverted layer)", "kv = layer 0; k = kv.float(); kv = layer 1; gather k: a fix must keep k bound to layer 0", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, kv_indices):
        kv = self.token_to_kv_pool.get_key_buffer(0)
        k = kv.float()
        kv = self.token_to_kv_pool.get_key_buffer(1)
        v = kv[kv_indices]
        return k[kv_indices], v


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(torch.tensor([1, 2]))
    return {"out": out, "k": pool.k_buffer}
''')

case("receiver_rebound_for", "safe: the receiver is rebound by a for target after the cast", "`for kv in (...)` rebinds the receiver between cast and gather", '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, kv_indices):
        kv = self.token_to_kv_pool.get_key_buffer(0)
        k = kv.to(torch.bfloat16)
        n = 0
        for kv in (self.token_to_kv_pool.get_key_buffer(1),):
            n += 1
        return k[kv_indices], n


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(torch.tensor([3, 4]))
    return {"out": out, "k": pool.k_buffer}
''')
