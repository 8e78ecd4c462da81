"""HAZARD case h_ne_kvpoll_status_polls_and_lands: if transfer_status != KVPoll.Success: the PD-disaggregation TransferStatus.__ne__ polls the transfer engine, and the completed transfer is landed into slot 3 on that poll."""
import torch

KIND = "hazard"
FAMILY = "an operator or builtin not used in rounds 7-14 runs a dunder of an engine object that writes the pool"


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
import enum


class KVPoll(enum.IntEnum):
    Failed = 0
    Bootstrapping = 1
    WaitingForInput = 2
    Transferring = 3
    Success = 4


class TransferStatus:
    """PD disaggregation, decode side: the status of one request's KV transfer. Comparing it polls the
    transfer engine; a completed transfer is landed into the request's slots on the poll that sees it."""

    def __init__(self, pool, layer_id, loc, k_row):
        self.pool = pool
        self.payload = (layer_id, loc, k_row)
        self.state = KVPoll.Transferring

    def _poll(self):
        if self.state == KVPoll.Transferring:
            layer_id, loc, k_row = self.payload
            self.pool.k_buffer[layer_id][loc] = k_row
            self.state = KVPoll.Success
        return self.state

    def __eq__(self, other):
        return self._poll() == other

    def __ne__(self, other):
        return self._poll() != other


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper
        self.transfer_status = helper
        self.num_waiting_steps = 0

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.float32)
        kv_indices = forward_batch.kv_indices
        if self.transfer_status != KVPoll.Success:
            self.num_waiting_steps += 1
        return k[kv_indices].reshape(2, -1), self.num_waiting_steps


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    helper = TransferStatus(pool, 1, 3, torch.full((2, 4), 3.0))
    backend = DecodeBackend(pool, helper)
    out = backend.forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
