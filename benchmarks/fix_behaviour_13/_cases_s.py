# Safe case bodies for make_cases.py (round 13): realistic engine code where what runs between the cast and
# the gather is genuinely harmless, the harmless twins of this round's hazard mechanisms: a defaultdict(list)
# block table, float() of a 0-d scale tensor, match class / mapping patterns over a plain dataclass / dict, a
# str.format of plain attributes, contextlib.nullcontext, a generator function called but never advanced, a
# plain json.loads, itertools.groupby over ints, an unfold view of the pool of which only the shape is read,
# torch.as_strided of the query, dataclasses.asdict of plain fields, atexit.register of a shutdown scrub (run
# only at interpreter exit), and dtype arguments read from a table / a functools.cache'd getter that nothing
# changes. Nothing writes the pool, the dtype expression is not changed, and the cast variable is only
# gathered: moving the cast is exact.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def simple(name, doc, between, *, cast, gather="k[kv_indices]", ret="0", prelude="", imports="", init="",
           methods="", setup=""):
    parts = [textwrap.dedent(imports).strip("\n"), textwrap.dedent(prelude).strip("\n")]
    head = "\n\n\n".join(p for p in parts if p)
    init_block = ("\n" + _ind(init, 8)) if init.strip() else ""
    methods_block = ("\n\n" + _ind(methods, 4)) if methods.strip() else ""
    setup_block = (_ind(setup, 4) + "\n") if setup.strip() else ""
    case(name, "safe: " + doc, doc, f'''{head}


class DecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool{init_block}

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
        kv_indices = forward_batch.kv_indices
{_ind(between, 8)}
        return {gather}, {ret}{methods_block}


def run_case(torch):
{setup_block}    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    q = _rand((2, 2, 4), 5)
    out = DecodeBackend(pool).forward_decode(q, RadixLayer(1), fb)
    return {{"out": out, "k": pool.k_buffer, "v": pool.v_buffer, "kv_indices": fb.kv_indices, "q": q}}
''')


simple("defaultdict_block_table_list_factory",
       "a block table kept as collections.defaultdict(list): a new request's lookup runs the list factory",
       "block_ids = self.block_tables[forward_batch.batch_size + 5]", cast=".bfloat16()",
       ret="(block_ids, sorted(self.block_tables))", imports="import collections",
       init="self.block_tables = collections.defaultdict(list)\nself.block_tables[0] = [3, 1]")

simple("float_of_scalar_k_scale_tensor", "float() of the layer's K scale held as a 0-d tensor",
       "sm_scale = layer.head_dim ** -0.5 * float(self.k_scale)", cast=".to(torch.bfloat16)", ret="sm_scale",
       init="self.k_scale = torch.tensor(1.5)")

simple("match_class_pattern_plain_dataclass",
       "a match class pattern with a keyword on a spec-info dataclass whose fields are plain attributes",
       '''
match self.spec_info:
    case EagleVerifyInput(accept_length=n_accepted):
        pass
    case _:
        n_accepted = 0''', cast=".half()", ret="n_accepted",
       prelude='''
import dataclasses


@dataclasses.dataclass
class EagleVerifyInput:
    draft_token_num: int
    accept_length: int''', init="self.spec_info = EagleVerifyInput(4, 2)")

simple("match_mapping_pattern_plain_dict", "a match mapping pattern over a plain dict of plan arguments",
       '''
match self.plan_args:
    case {"page_size": page_size, "num_splits": num_splits}:
        pass
    case _:
        page_size, num_splits = 1, 1''', cast=".to(dtype=torch.float16)", ret="(page_size, num_splits)",
       init='self.plan_args = {"page_size": 1, "num_splits": 2}')

simple("str_format_plain_attribute_fields", "a trace line built with str.format of plain int attributes",
       'self.trace.append("layer {0.layer_id}: bs {1.batch_size}".format(layer, forward_batch))',
       cast=".float()", ret="self.trace", init="self.trace = []")

simple("nullcontext_when_no_transfer_stream",
       "`with contextlib.nullcontext(self.trace) as trace:` (no transfer stream configured) appending an int",
       '''
with contextlib.nullcontext(self.trace) as trace:
    trace.append(int(kv_indices.numel()))''', cast=".to(torch.float32)", ret="self.trace",
       imports="import contextlib", init="self.trace = []")

simple("generator_function_called_not_advanced",
       "a chunk-landing generator function is called but not advanced before the gather (its body has not run)",
       "lander = iter_land_chunks(self.token_to_kv_pool, layer.layer_id, self.chunks)",
       cast=".type(torch.bfloat16)", ret="type(lander).__name__",
       prelude='''
def iter_land_chunks(pool, layer_id, chunks):
    """Lands the chunks one by one as the caller iterates (its body runs only when advanced)."""
    for loc, rows in chunks:
        pool.k_buffer[layer_id][loc] = rows.to(pool.dtype)
        yield int(loc.numel())''',
       init="self.chunks = [(torch.tensor([3]), torch.full((1, 2, 4), 3.0))]")

simple("json_loads_plain_step_meta", "json.loads of the step metadata without hooks",
       "meta = json.loads(self.raw_meta)", cast=".to(torch.bfloat16, copy=True)", ret="meta",
       gather="torch.index_select(k, 0, kv_indices)",
       imports="import json", init='self.raw_meta = json.dumps({"step": 7, "num_tokens": [5, 2]})')

simple("groupby_sorted_int_seq_lens", "itertools.groupby over the sorted int sequence lengths",
       "length_groups = [(length, len(list(grp))) for length, grp in itertools.groupby(sorted(self.seq_lens))]",
       cast=".double()", ret="length_groups", gather="k[kv_indices].reshape(2, -1)", imports="import itertools", init="self.seq_lens = [5, 2, 5]")

simple("unfold_page_view_shape_only",
       "an unfold page view of the pool's layer is made but only its shape is read",
       "num_pages = self.token_to_kv_pool.get_key_buffer(layer.layer_id).unfold(0, 4, 4).shape[0]",
       cast=".to(torch.float16, non_blocking=False)", ret="num_pages")

simple("as_strided_query_norm", "torch.as_strided view of the query (not the pool) and its norm",
       "q_flat = torch.as_strided(q, (2, 8), (8, 1))\nq_norm = q_flat.float().norm(dim=-1)",
       cast=".to(dtype=torch.bfloat16)", ret="q_norm",
       gather="k.index_select(0, kv_indices)")

simple("dataclasses_asdict_plain_plan", "dataclasses.asdict of a decode plan with plain fields",
       "plan_dict = dataclasses.asdict(self.plan)", cast=".bfloat16()", ret="plan_dict", gather="k[forward_batch.kv_indices]",
       prelude='''
import dataclasses


@dataclasses.dataclass
class DecodePlan:
    page_size: int
    num_splits: int
    window: tuple''', init="self.plan = DecodePlan(1, 2, (0, 16))")

simple("atexit_register_shutdown_scrub",
       "atexit.register of a shutdown scrub of the layer (it runs only at interpreter exit)",
       "atexit.register(self.scrub_on_shutdown, layer.layer_id)", cast=".to(torch.bfloat16)",
       imports="import atexit",
       methods='''
def scrub_on_shutdown(self, layer_id):
    self.token_to_kv_pool.k_buffer[layer_id].zero_()''')

simple("dtype_override_table_read_only",
       "`.to(self.dtype_overrides.get(layer.layer_id, torch.bfloat16))` with only reads of the table between",
       "fp32_layers = sorted(lid for lid, dt in self.dtype_overrides.items() if dt == torch.float32)",
       cast=".to(self.dtype_overrides.get(layer.layer_id, torch.bfloat16))", ret="fp32_layers",
       init="self.dtype_overrides = {0: torch.float32}")

simple("functools_cache_dtype_getter_not_cleared",
       "`.to(get_kv_compute_dtype())`, a functools.cache'd getter of a constant, read again between",
       "acc_bytes = get_kv_compute_dtype().itemsize * forward_batch.batch_size",
       cast=".to(get_kv_compute_dtype())", ret="acc_bytes",
       prelude='''
import functools


@functools.cache
def get_kv_compute_dtype():
    return torch.bfloat16''')
