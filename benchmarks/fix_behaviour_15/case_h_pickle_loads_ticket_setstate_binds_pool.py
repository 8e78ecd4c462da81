"""HAZARD case h_pickle_loads_ticket_setstate_binds_pool: ticket = pickle.loads(sock.recv()): a PD-disaggregation KVTransferTicket's __setstate__ binds it to the local pool on unpickling, copying the inline first-token K into the pre-allocated slot 3."""
import torch

KIND = "hazard"
FAMILY = "a library function, hook or registry not used in rounds 7-14 runs engine code that writes the pool"


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
import pickle
import sys
import types


class KVTransferTicket:
    """PD disaggregation: the prefill server pickles one ticket per request (Python objects over ZMQ).
    Unpickling it on the decode server binds it to the local pool: __setstate__ copies the inline K of the
    first generated token into the request's pre-allocated slot."""

    local_pool = None

    def __init__(self, rid, layer_id, loc, k_row):
        self.rid = rid
        self.layer_id = layer_id
        self.loc = loc
        self.k_row = k_row

    def __getstate__(self):
        return {"rid": self.rid, "layer_id": self.layer_id, "loc": self.loc, "k_row": self.k_row.tolist()}

    def __setstate__(self, state):
        self.__dict__.update(state)
        KVTransferTicket.local_pool.k_buffer[self.layer_id][self.loc] = torch.tensor(self.k_row)


class FakeZmqSocket:
    def __init__(self, frames):
        self.frames = list(frames)

    def recv(self):
        return self.frames.pop(0)


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16, copy=True)
        kv_indices = forward_batch.kv_indices
        ticket = pickle.loads(self.helper.recv())
        return k.index_select(0, kv_indices), ticket.rid


def run_case(torch):
    try:
        pool = MHATokenToKVPool(16, 2, 4, 2)
        fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
        _mod = types.ModuleType(__name__)
        _mod.KVTransferTicket = KVTransferTicket
        sys.modules[__name__] = _mod
        KVTransferTicket.local_pool = pool
        helper = FakeZmqSocket([pickle.dumps(KVTransferTicket('req-5', 1, 3, torch.full((2, 4), 3.0)))])
        backend = DecodeBackend(pool, helper)
        out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
        return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
    finally:
        sys.modules.pop(__name__, None)
