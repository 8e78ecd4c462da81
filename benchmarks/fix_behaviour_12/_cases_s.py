# Safe case bodies for make_cases.py (round 12): realistic engine code where what runs between the cast and
# the gather is genuinely harmless, the harmless twins of this round's hazard mechanisms: a matmul of the
# query by a plain weight tensor, sum() / divmod() of ints, os.path.join of strings, an assert on the index's
# numel, a match whose guard compares ints, dict.get with a constant default, functools.reduce(operator.mul)
# over a shape, an f-string of ints, torch.nn.init.zeros_ on the backend's own workspace, an Enum member's
# pure method, isinstance against a collections.abc ABC, and a .to(torch.get_default_dtype()) cast with
# nothing changing the default. Nothing writes the pool, the dtype expression is not changed, and the cast
# variable is only gathered: moving the cast is exact.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def simple(name, doc, between, *, cast, gather="k[kv_indices]", ret="0", prelude="", imports="", init="",
           setup=""):
    parts = [textwrap.dedent(imports).strip("\n"), textwrap.dedent(prelude).strip("\n")]
    head = "\n\n\n".join(p for p in parts if p)
    init_block = ("\n" + _ind(init, 8)) if init.strip() else ""
    setup_block = (_ind(setup, 4) + "\n") if setup.strip() else ""
    case(name, "safe: " + doc, doc, f'''{head}


class DecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool{init_block}

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
        kv_indices = forward_batch.kv_indices
{_ind(between, 8)}
        return {gather}, {ret}


def run_case(torch):
{setup_block}    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    q = _rand((2, 2, 4), 5)
    out = DecodeBackend(pool).forward_decode(q, RadixLayer(1), fb)
    return {{"out": out, "k": pool.k_buffer, "v": pool.v_buffer, "kv_indices": fb.kv_indices, "q": q}}
''')


simple("matmul_plain_weight_tensor",
       "`q.reshape(2, 8)[:1] @ self.w_k` where w_k is a plain tensor (a fresh product, nothing stored)",
       "k_proj_out = q.reshape(2, 8)[:1].float() @ self.w_k", cast=".bfloat16()", ret="k_proj_out",
       init="self.w_k = torch.eye(8) * 2.0")

simple("sum_of_int_seq_lens", "sum() of the backend's list of int sequence lengths",
       "num_tokens = sum(self.seq_lens)", cast=".to(torch.bfloat16)", ret="num_tokens",
       init="self.seq_lens = [5, 2]")

simple("divmod_int_pages", "divmod() of an int token count by the page size",
       "num_pages, tail = divmod(forward_batch.batch_size * 7, 4)", cast=".half()", ret="(num_pages, tail)",
       gather="k.index_select(0, kv_indices)")

simple("os_path_join_str_dump_path", "os.path.join of plain strings for the debug dump path",
       'dump_path = os.path.join("/tmp/kv_dumps", f"kv_layer{layer.layer_id}.snap")',
       cast=".to(dtype=torch.float16)", ret="dump_path", imports="import os")

simple("assert_index_numel", "an assert on the index's numel against the batch size",
       'assert kv_indices.numel() == forward_batch.batch_size, "kv_indices/batch mismatch"',
       cast=".float()", gather="k[kv_indices, :, :]")

simple("match_guard_int_compare", "a match on the forward mode with a guard comparing ints", '''
match forward_batch.forward_mode:
    case "decode" if forward_batch.batch_size <= 8:
        path = "decode-small"
    case "decode":
        path = "decode"
    case _:
        path = "other"''', cast=".to(torch.float32)", ret="path")

simple("dict_get_constant_default", "self.sink_slots.get(layer_id, -1): the default is a constant",
       "sink_slot = self.sink_slots.get(layer.layer_id, -1)", cast=".type(torch.bfloat16)", ret="sink_slot",
       init="self.sink_slots = {0: 0, 1: 0}")

simple("functools_reduce_mul_shape", "functools.reduce(operator.mul, q.shape, 1) counts the query's elements",
       "q_numel = functools.reduce(operator.mul, q.shape, 1)", cast=".to(torch.bfloat16, copy=True)",
       ret="q_numel", imports="import functools\nimport operator", gather="torch.index_select(k, 0, kv_indices)")

simple("fstring_ints_trace", "an f-string of the layer id and batch size appended to the backend's trace",
       'self.trace.append(f"layer {layer.layer_id}: bs={forward_batch.batch_size}")',
       cast=".double()", ret="self.trace", init="self.trace = []")

simple("nn_init_zeros_own_workspace", "torch.nn.init.zeros_ on the backend's own workspace tensor",
       "torch.nn.init.zeros_(self.workspace)\npartial = self.workspace[: forward_batch.batch_size]",
       cast=".to(torch.float16, non_blocking=False)", ret="partial",
       init="self.workspace = torch.ones(4, 2, 4)")

simple("enum_member_pure_method", "an Enum member looked up by value whose method returns a tuple", '''
stride_order = KVLayout(self.layout).stride_order()''', cast=".to(dtype=torch.bfloat16)", ret="stride_order",
       imports="import enum", init='self.layout = "NHD"', prelude='''
class KVLayout(enum.Enum):
    NHD = "NHD"
    HND = "HND"

    def stride_order(self):
        return (0, 1, 2) if self is KVLayout.NHD else (1, 0, 2)''')

simple("isinstance_collections_abc_mapping", "isinstance of the backend's plain dict against collections.abc.Mapping",
       "meta_is_mapping = isinstance(self.meta, collections.abc.Mapping)", cast=".half()",
       ret="meta_is_mapping", imports="import collections.abc", init='self.meta = {"page_size": 1}',
       gather="k[kv_indices].reshape(2, -1)")

simple("get_default_dtype_unchanged", ".to(torch.get_default_dtype()) with only scale arithmetic between",
       "sm_scale = layer.head_dim ** -0.5", cast=".to(torch.get_default_dtype())", ret="sm_scale")
