"""HAZARD case h_json_loads_object_hook_inline_kv: json.loads(raw, object_hook=decoder.hook) on the prefill worker's step metadata; the hook writes an inline KV record (short prompts skip RDMA) into its slots as it decodes it."""
import torch

KIND = "hazard"
FAMILY = "a library function not used in rounds 7-12 calls engine code that writes the pool: contextlib.closing's exit calls the layer stream's close() (draining in-flight chunks), json.loads(object_hook=) decodes an inline KV record into its slots, itertools.groupby(key=) with a key that syncs each request's deferred append, dataclasses.asdict deep-copies a trace field whose __deepcopy__ lands a lazy KV handle, a PEP 562 module __getattr__ of a lazily built kernel module warms the op up on the padding slot, a global nn.Module forward pre-hook (a KV replay debugger) fires on the rotary module, torch.func.functional_call runs a gpt-fast style cache module with the pool's layer bound as its k_cache buffer"


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
import json


class StepMetaDecoder:
    """Decodes the prefill worker's JSON step metadata. Records of kind "inline_kv" carry a small chunk
    inline (short prompts skip RDMA); the hook writes it into its slots as the record is decoded."""

    def __init__(self, pool, raw):
        self.pool = pool
        self.raw = raw

    def hook(self, record):
        if record.get("kind") == "inline_kv":
            rows = torch.tensor(record["rows"]).reshape(-1, 2, 4)
            self.pool.k_buffer[record["layer"]][torch.tensor(record["loc"])] = rows.to(self.pool.dtype)
            return {"kind": "inline_kv", "num_tokens": len(record["loc"])}
        return record


class DecodeBackend:
    def __init__(self, token_to_kv_pool, helper):
        self.token_to_kv_pool = token_to_kv_pool
        self.helper = helper

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(dtype=torch.float16)
        kv_indices = forward_batch.kv_indices
        meta = json.loads(self.helper.raw, object_hook=self.helper.hook)
        return k[kv_indices, :, :], meta


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    raw = json.dumps({"step": 7, "chunks": [{"kind": "inline_kv", "layer": 1, "loc": [3], "rows": [3.0] * 8}]})
    helper = StepMetaDecoder(pool, raw)
    out = DecodeBackend(pool, helper).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {"out": out, "k": pool.k_buffer, "v": pool.v_buffer}
