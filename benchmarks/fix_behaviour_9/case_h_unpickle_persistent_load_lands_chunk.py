"""HAZARD case h_unpickle_persistent_load_lands_chunk: KVUnpickler(io.BytesIO(msg), pool).load() of a transferred chunk: its persistent_load lands the rows into the pool zero-copy style, as torch.load does for storages."""
import torch

KIND = "hazard"
FAMILY = "an operator or container protocol on an engine object runs code that writes the pool: `seq_lens += 1` on a tracker whose __iadd__ reserves the next slot, a metadata mapping's __setitem__, len() of a transfer queue that polls, unpickling a transferred chunk (persistent_load lands it), send() to a KV-writer coroutine"


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
import io
import pickle


class KVRows:
    def __init__(self, layer_id, loc, values):
        self.layer_id, self.loc, self.values = layer_id, loc, values


class KVPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, KVRows):
            return ("kv_rows", obj.layer_id, obj.loc, obj.values)
        return None


class KVUnpickler(pickle.Unpickler):
    """Restricted unpickler of the KV transfer channel: KV rows are written straight into the receiving
    pool instead of being materialised as Python objects."""

    def __init__(self, file, kv_pool):
        super().__init__(file)
        self.kv_pool = kv_pool

    def persistent_load(self, pid):
        _tag, layer_id, loc, values = pid
        rows = torch.tensor(values).view(len(loc), 2, 4)
        dst = self.kv_pool.k_buffer[layer_id]
        dst[torch.tensor(loc)] = rows.to(dst.dtype)
        return ("landed", layer_id, tuple(loc))


def encode_message(rid, layer_id, loc, values):
    f = io.BytesIO()
    KVPickler(f).dump({"rid": rid, "rows": KVRows(layer_id, loc, values)})
    return f.getvalue()


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        msg = KVUnpickler(io.BytesIO(self.helper.pop(0)), self.token_to_kv_pool).load()
        return k[forward_batch.kv_indices], msg


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = [encode_message("r7", 1, [3], [0.5] * 8)]
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer}
