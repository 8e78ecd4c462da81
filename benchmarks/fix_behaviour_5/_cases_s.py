# Safe case bodies for make_cases.py (round 5): nothing writes the pool between the cast and the gather,
# the cast result is only gathered, the gather is defined for the stored dtype: moving the cast is exact.
# New spellings relative to rounds 1-4.
CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


BACKEND = '''
class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool
'''


def simple(name, doc, body, call="forward(1, torch.tensor([3, 1]))", ret="k", init=""):
    case(name, "safe: " + doc, doc, BACKEND + init + body + f'''


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).{call}
    return {{"out": out, "{ret}": pool.{ret}_buffer}}
''')


simple("to_copy_false_kw", ".to(dtype, copy=False)[idx] (a real conversion: copy=False changes nothing)", '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.bfloat16, copy=False)[kv_indices]''')

simple("to_memory_format_preserve", ".to(dtype=..., memory_format=torch.preserve_format), then a gather", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(dtype=torch.float16, memory_format=torch.preserve_format)
        return k[kv_indices]''')

simple("type_dtype_kw", ".type(dtype=torch.bfloat16) (the keyword form of .type)", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).type(dtype=torch.bfloat16)
        return k[kv_indices]''')

simple("half_alias_index_select_kw", ".to(torch.half).index_select(dim=0, index=idx) (torch.half, keyword arguments)", '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_value_buffer(layer_id).to(torch.half).index_select(dim=0, index=kv_indices)''',
       ret="v")

simple("get_kv_buffer_subscript", "get_kv_buffer(layer)[1].float() (V from the tuple accessor by subscript)", '''
    def forward(self, layer_id, kv_indices):
        v = self.token_to_kv_pool.get_kv_buffer(layer_id)[1].float()
        return v[kv_indices]''', ret="v")

simple("accessor_keyword_layer", "get_value_buffer(layer_id=...) (the layer as a keyword argument), .bfloat16()[idx]", '''
    def forward(self, layer_id, kv_indices):
        return self.token_to_kv_pool.get_value_buffer(layer_id=layer_id).bfloat16()[kv_indices]''', ret="v")

simple("one_tuple_index", "k[(idx,)]: a one-element tuple holding the index tensor", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[(kv_indices,)]''')

simple("gather_then_flatten", "k[idx].flatten(1): a view of the gathered rows", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        return k[kv_indices].flatten(1)''')

simple("early_return_between", "if kv_indices.numel() == 0: return None between the cast and the gather", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        if kv_indices.numel() == 0:
            return None
        return k[kv_indices]''')

simple("fstring_between", "an f-string of ints between (tag = f'layer{layer_id}:{n}')", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).bfloat16()
        tag = f"layer{layer_id}:{kv_indices.numel()}"
        return k[kv_indices], tag''')

simple("dict_lookup_between", "scale = self.scales[layer_id] (a dict of floats made in __init__) between", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        scale = self.scales[layer_id]
        return k[kv_indices] * scale''', init='''        self.scales = {0: 0.5, 1: 2.0}
''')

simple("range_loop_between", "a for loop over range() accumulating ints between", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        total = 0
        for i in range(layer_id + 2):
            total += i
        return k[kv_indices], total''')

simple("cat_index_between", "idx = torch.cat([kv_indices, kv_indices.flip(0)]) between, then k[idx]", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).half()
        idx = torch.cat([kv_indices, kv_indices.flip(0)])
        return k[idx]''')

simple("cache_attr_direct", "self.token_to_kv_pool.k_buffer[layer_id].float() (the cache attribute, no accessor)", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.k_buffer[layer_id].float()
        return k[kv_indices]''')

simple("try_int_between", "try: n = int(layer_id) except ValueError: n = 0 between (a handler around neither cast nor gather)", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).float()
        try:
            n = int(layer_id)
        except ValueError:
            n = 0
        return k[kv_indices], n''')

simple("gather_and_count_return", "return k[idx], kv_indices.numel() (the gather in a returned tuple)", '''
    def forward(self, layer_id, kv_indices):
        k = self.token_to_kv_pool.get_key_buffer(layer_id).to(torch.float32)
        return k[kv_indices], kv_indices.numel()''')
