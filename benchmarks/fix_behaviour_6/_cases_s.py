# Safe case bodies for make_cases.py (round 6): nothing writes the pool between the cast and the gather,
# the cast result is only gathered, the gather is defined for the stored dtype: moving the cast is exact.
# New spellings relative to rounds 1-5, most of them harmless look-alikes of this round's hazards (the same
# constructs on builtin values, tensors or literals).
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


def simple(name, doc, between, cast=".float()", gather="k[kv_indices]", ret="0", args="", call_args="",
           prelude="", ret_buf="k"):
    between = textwrap.indent(textwrap.dedent(between).strip("\n"), " " * 8)
    case(name, "safe: " + doc, doc, textwrap.dedent(prelude).strip("\n") + f'''


class Backend:
    def __init__(self, pool):
        self.token_to_kv_pool = pool

    def forward(self, layer_id, kv_indices{args}):
        k = self.token_to_kv_pool.get_{"key" if ret_buf == "k" else "value"}_buffer(layer_id){cast}
{between}
        return {gather}, {ret}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    out = Backend(pool).forward(1, torch.tensor([3, 1]){call_args})
    return {{"out": out, "{ret_buf}": pool.{ret_buf}_buffer}}
''')


simple("len_of_index_tensor", "n = len(kv_indices) (len of a tensor) between", "n = len(kv_indices)", ret="n")

simple("isinstance_tensor_guard", "if not isinstance(kv_indices, torch.Tensor): raise TypeError(...) between", '''
if not isinstance(kv_indices, torch.Tensor):
    raise TypeError("kv_indices must be a tensor")''')

simple("round_float_ndigits_int", "scale = round(0.125 * (layer_id + 1), 3) (a float and an int literal)",
       "scale = round(0.125 * (layer_id + 1), 3)", ret="scale", cast=".half()")

simple("percent_format_ints", "tag = 'layer %d: %d rows' % (layer_id, kv_indices.numel()) between",
       'tag = "layer %d: %d rows" % (layer_id, kv_indices.numel())', ret="tag", cast=".bfloat16()")

simple("percent_format_float_literal", "tag = 'scale=%.3f' % 0.5 between", 'tag = "scale=%.3f" % 0.5',
       ret="tag")

simple("sorted_tolist_reverse_literal", "order = sorted(kv_indices.tolist(), reverse=True) between",
       "order = sorted(kv_indices.tolist(), reverse=True)", ret="order")

simple("augmented_int_numel", "n = kv_indices.numel(); n += 1; n *= 2 between (ints only)",
       "n = kv_indices.numel()\nn += 1\nn *= 2", ret="n", cast=".to(torch.float16)")

simple("assert_dim_between", "assert kv_indices.dim() == 1, 'flat indices' between",
       'assert kv_indices.dim() == 1, "flat indices"')

simple("chained_compare_ints", "ok = 0 <= layer_id < 2 between (ints)", "ok = 0 <= layer_id < 2", ret="ok",
       cast=".double()")

simple("local_dict_str_key_store", "seen = {}; seen['layer'] = layer_id between (a str key)",
       'seen = {}\nseen["layer"] = layer_id', ret="seen")

simple("del_local_int", "tmp = layer_id * 2; del tmp between", "tmp = layer_id * 2\ndel tmp")

simple("while_int_loop", "i = 0; while i < 2: i += 1 between", "i = 0\nwhile i < 2:\n    i += 1", ret="i")

simple("try_keyerror_dict_between", "try: s = self.scales[layer_id] except KeyError: s = 1.0 (around neither "
       "the cast nor the gather)", '''
try:
    s = {0: 0.5}[layer_id]
except KeyError:
    s = 1.0''', ret="s")

simple("masked_select_fp8", "mask from the indices (a fresh torch.zeros, stored into), then k.masked_select(mask) "
       "of an FP8 pool's .float() (masked_select has an FP8 kernel)", '''
mask = torch.zeros(16, 2, 4, dtype=torch.bool)
mask[kv_indices] = True''', gather="k.masked_select(mask)")

simple("index_select_negative_dim", "k.index_select(-3, kv_indices) (dim 0 spelled from the end)", "",
       gather="k.index_select(-3, kv_indices)", cast=".to(torch.bfloat16)")

simple("bool_mask_from_indices", "mask = torch.zeros(16, dtype=torch.bool); mask[kv_indices] = True; k[mask]", '''
mask = torch.zeros(16, dtype=torch.bool)
mask[kv_indices] = True''', gather="k[mask]", ret_buf="v")

simple("gather_sum_formatted", "the gathered rows reduced and formatted: f'{k[idx].sum().item():.3f}'", "",
       gather='f"{k[kv_indices].sum().item():.3f}"')

simple("copy_of_int_list_between", "snap = list(kv_indices.tolist()) between (a list of ints, no copy protocol)",
       "snap = list(kv_indices.tolist())", ret="snap", cast=".type(torch.float32)")
