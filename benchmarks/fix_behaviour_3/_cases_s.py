# Safe case bodies for make_cases.py (round 3): nothing writes the pool between the cast and the gather,
# the cast result is only gathered, the gather is defined for the stored dtype: moving the cast is exact.
CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


BACKEND = '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
'''


def simple(name, doc, body, call, ret="k"):
    case(name, "safe: " + doc, doc, BACKEND + body + f'''

def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).{call}
    return {{"out": out, "{ret}": pool.{ret}_buffer}}
''')


simple("annotated_assign", "annotated assignment of the cast", '''
    def forward(self, layer_id, kv_indices):
        k: torch.Tensor = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices]''', "forward(1, torch.tensor([3, 1]))")

simple("paren_multiline", "parenthesised cast over two lines", '''
    def forward(self, layer_id, kv_indices):
        return (self.token_to_kv_pool.get_key_buffer(layer_id)
                .to(torch.bfloat16))[kv_indices]''', "forward(0, torch.tensor([5, 2]))")

simple("to_kw_non_blocking_index_select", ".to(dtype=..., non_blocking=True).index_select", '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_value_buffer(layer_id).to(dtype=torch.float32, non_blocking=True).index_select(0, kv_indices)''',
       "forward(1, torch.tensor([0, 15]))", ret="v")

simple("double_method", ".double() then gather", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).double()
        return k[kv_indices]''', "forward(0, torch.tensor([7]))")

simple("type_fp16_two_gathers", ".type(torch.float16), two gathers", '''
    def forward(self, layer_id, a, b):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).type(torch.float16)
        first = k[a]
        second = k[b]
        return first, second''', "forward(1, torch.tensor([1]), torch.tensor([2, 3]))")

simple("list_literal_index", "a Python list of ints as the index", '''
    def forward(self, layer_id):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[[1, 5, 3]]''', "forward(0)")

simple("index_with_trailing_slices", "k[idx, :, 1:3]", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32)
        return k[kv_indices, :, 1:3]''', "forward(1, torch.tensor([4, 9]))")

simple("block_table_2d", "a 2-D index (block table)", '''
    def forward(self, layer_id, block_table):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).bfloat16()
        return k[block_table]''', "forward(0, torch.tensor([[1, 2], [3, 4]]))")

case("module_const_dtype", "safe: dtype from a module constant", "KV_DTYPE = torch.bfloat16 at module level", '''
KV_DTYPE = torch.bfloat16
''' + BACKEND + '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(KV_DTYPE)
        return k[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([10, 11]))
    return {"out": out, "k": pool.k_buffer}
''')

simple("torch_tensor_between", "the index built by torch.tensor() between", '''
    def forward(self, layer_id, slots):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        idx = torch.tensor(slots)
        return k[idx]''', "forward(0, [6, 2, 6])")

simple("ternary_two_gathers", "a gather in each arm of a conditional expression", '''
    def forward(self, layer_id, a, b, use_a):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        rows = k[a] if use_a else k[b]
        return rows''', "forward(1, torch.tensor([1]), torch.tensor([2]), False)")

simple("chained_consumer", "the gather result consumed by a method chain", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32)
        return k[kv_indices].sum(0).unsqueeze(0)''', "forward(0, torch.tensor([3, 8, 9]))")

simple("shape_modulo_index_select", "k.index_select(0, idx % k.shape[0])", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).half()
        return k.index_select(0, kv_indices % k.shape[0])''', "forward(1, torch.tensor([17, -1, 4]))")

simple("masked_select_fp8", "masked_select (defined for FP8 on CPU)", '''
    def forward(self, layer_id, mask):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k.masked_select(mask)''', "forward(0, torch.arange(16).view(16, 1, 1).expand(16, 2, 4) % 5 == 0)")

case("int8_pool_to_float", "safe: an int8 pool converted and gathered", "integer pool: .float()[idx] is elementwise too", BACKEND + '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).float()[kv_indices]


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2, dtype=torch.int8)
    out = Backend(pool).forward(1, torch.tensor([3, 14]))
    return {"out": out, "k": pool.k_buffer}
''')

simple("assert_index_bounds_between", "assert on the index (int compares) between", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16)
        assert kv_indices.max().item() < 16
        return k[kv_indices]''', "forward(1, torch.tensor([15, 0]))")
