# Safe case bodies for make_cases.py (round 4): nothing writes the pool between the cast and the gather,
# the cast result is only gathered, the gather is defined for the stored dtype: moving the cast is exact.
CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


BACKEND = '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
'''


def simple(name, doc, body, call="forward(1, torch.tensor([3, 1]))", ret="k", pre=""):
    case(name, "safe: " + doc, doc, pre + BACKEND + body + f'''


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).{call}
    return {{"out": out, "{ret}": pool.{ret}_buffer}}
''')


simple("to_none_device", ".to(None, dtype): device None keeps the device", '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(None, torch.bfloat16)[kv_indices]''')

simple("to_positional_non_blocking", ".to(dtype, True): the second positional is non_blocking", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32, True)
        return k[kv_indices]''')

simple("to_kw_copy_index_select", ".to(dtype=..., copy=True, non_blocking=False).index_select", '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_value_buffer(layer_id).to(
            dtype=torch.float16, copy=True, non_blocking=False).index_select(0, kv_indices)''', ret="v")

simple("device_none_kw", ".to(dtype=..., device=None)", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(dtype=torch.bfloat16, device=None)
        return k[kv_indices]''')

simple("ellipsis_last_dim_index", "k[..., idx]: a gather on the last dim after an ellipsis", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[..., kv_indices]''', call="forward(0, torch.tensor([3, 1, 1]))")

simple("none_in_index_tuple", "k[None, idx]: None then a tensor index", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).bfloat16()
        return k[None, kv_indices]''')

simple("tensor_and_int_index", "k[idx, 0]: a tensor index with an int (advanced + basic, a copy)", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices, 0]''')

simple("autocast_both_inside", "cast and gather both inside torch.autocast('cpu')", '''
    def forward(self, layer_id, kv_indices):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
            return k[kv_indices]''')

case("threading_lock_between", "safe: a threading.Lock context between the cast and the gather", "with self.lock: around the gather (a real lock, one thread)", '''
import threading


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
        self.lock = threading.Lock()

    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        with self.lock:
            return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]))
    return {"out": out, "k": pool.k_buffer}
''')

simple("getattr_torch_literal", "the dtype is getattr(torch, 'bfloat16') (a literal name)", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(getattr(torch, "bfloat16"))
        return k[kv_indices]''')

simple("noop_same_dtype", "the target is the pool's own dtype (the cast returns the pool itself)", '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float8_e4m3fn)[kv_indices]''')

simple("arange_index_between", "the index is built between the cast and the gather with torch.arange", '''
    def forward(self, layer_id, n: int):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        idx = torch.arange(n) * 2
        return k[idx]''', call="forward(1, 4)")

simple("int32_index", "k[idx.int()]: an int32 index", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).half()
        return k[kv_indices.int()]''')

simple("index_select_negative_dim", "k.index_select(-3, idx): a negative dim", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k.index_select(-3, kv_indices)''')

simple("rows_inplace_after_gather", "rows = k[idx]; rows *= 2 (in place on the gathered copy, k read once)", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[kv_indices]
        rows *= 2.0
        return rows''')

simple("two_layers_two_casts", "two layers cast and gathered in one function", '''
    def forward(self, layer_id, kv_indices):
        k0 = self.token_to_kv_pool.get_key_buffer(0).float()
        k1 = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k0[kv_indices] + k1[kv_indices]''')
