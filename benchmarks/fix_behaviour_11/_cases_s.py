# Safe case bodies for make_cases.py (round 11): realistic engine code where what runs between the cast and
# the gather is genuinely harmless, the harmless twins of this round's hazard mechanisms: a req-to-token
# table whose __getitem__ only reads a list, heapq of plain int tuples, a walrus early exit that is not taken,
# a for-else search over capture sizes, a lambda whose default is an int, a nested def doing arithmetic on a
# fresh tensor, operator.mul and getattr of an out-of-place method on the query, a nonlocal rebinding of the
# index (the gather reads the index at the same point before and after the move), json.dumps of plain ints,
# a dataclass with default_factory=list, contextlib.suppress around a plain dict lookup, map(int, ...) over
# the index, and a decorator that only counts calls in a dict. Nothing writes the pool, the dtype expression
# is not rebound, and the cast variable is only gathered: moving the cast is exact.
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


simple("getitem_read_only_req_to_token_table",
       "a req-to-token table whose __getitem__ only returns a row of its own list of ints", '''
seq_slots = self.req_to_token[0]
seq_len = len(seq_slots)''', cast=".bfloat16()", ret="seq_len", prelude='''
class ReqToTokenTable:
    def __init__(self, rows):
        self.rows = [list(row) for row in rows]

    def __getitem__(self, req_pool_idx):
        return self.rows[req_pool_idx]''', init="self.req_to_token = ReqToTokenTable([[3, 1], [5, 6]])")

simple("heapq_push_int_priority_tuples",
       "heapq.heappush of (priority, rid) tuples of ints onto the backend's own list", '''
for prefix_len, rid in ((2, 1), (8, 0)):
    heapq.heappush(self.waiting_queue, (-prefix_len, rid))
order = [rid for _, rid in self.waiting_queue]''', cast=".half()", gather="k.index_select(0, kv_indices)",
       ret="order", imports="import heapq", init="self.waiting_queue = []")

simple("walrus_numel_early_exit_not_taken",
       "an if condition's walrus binds kv_indices.numel(); the early exit for an empty batch is not taken", '''
if (num_tokens := kv_indices.numel()) == 0:
    return q.new_zeros((0, 2, 4)), 0''', cast=".float()", gather="torch.index_select(k, 0, kv_indices)",
       ret="num_tokens")

simple("for_else_pure_capture_bucket",
       "a for-else search of the CUDA-graph capture sizes for the batch's bucket (else: the batch size itself)", '''
for capture_bs in self.capture_bs_list:
    if capture_bs >= forward_batch.batch_size:
        break
else:
    capture_bs = forward_batch.batch_size''', cast=".to(dtype=torch.float16)", gather="k[kv_indices, :, :]",
       ret="capture_bs", init="self.capture_bs_list = [1, 2, 4, 8]")

simple("lambda_default_arg_head_dim_scale",
       "a lambda whose default argument is the layer's head_dim (an int) computes the softmax scale", '''
scale_of = lambda d=layer.head_dim: d ** -0.5
sm_scale = scale_of()''', cast=".double()", gather="k[kv_indices].reshape(2, -1)", ret="sm_scale")

simple("nested_def_pure_softcap",
       "a nested def applies a tanh logit soft-cap to scores computed from q alone", '''
def softcap(x, cap=30.0):
    return cap * torch.tanh(x / cap)

scores = softcap((q.float() * q.float()).sum(-1))''', cast=".to(torch.float32)", ret="scores")

simple("operator_mul_fresh_query",
       "operator.mul scales a fresh float copy of the query", '''
q_scaled = operator.mul(q.float(), layer.head_dim ** -0.5)''', cast=".type(torch.bfloat16)", ret="q_scaled",
       imports="import operator")

simple("getattr_out_of_place_method",
       "getattr(q, 'mul') looks up the out-of-place mul by its configured name", '''
q_scaled = getattr(q, self.scale_op)(0.5)''', cast=".to(torch.bfloat16, copy=True)", ret="q_scaled",
       init='self.scale_op = "mul"')

simple("nonlocal_rebinds_indices",
       "a nested helper rebinds kv_indices (nonlocal) to the reversed order; the gather reads the index at the "
       "same point before and after the move", '''
def reverse_for_split_kv():
    nonlocal kv_indices
    kv_indices = kv_indices.flip(0)

reverse_for_split_kv()''', cast=".to(torch.bfloat16)")

simple("json_dumps_plain_ints_trace",
       "json.dumps of a dict of ints appended to the backend's trace list", '''
self.trace.append(json.dumps({"layer": layer.layer_id, "bs": forward_batch.batch_size}))''', cast=".half()",
       gather="k.index_select(0, kv_indices)", ret="self.trace", imports="import json", init="self.trace = []")

simple("dataclass_default_factory_list",
       "a step-stats dataclass whose pages field has default_factory=list, filled from the index", '''
stats = StepStats(num_kv_splits=2)
stats.pages.extend(kv_indices.tolist())''', cast=".bfloat16()", ret="(stats.pages, stats.num_kv_splits)",
       imports="import dataclasses", prelude='''
@dataclasses.dataclass
class StepStats:
    pages: list = dataclasses.field(default_factory=list)
    num_kv_splits: int = 1''')

simple("suppress_keyerror_plain_dict_lookup",
       "contextlib.suppress(KeyError) around a lookup in the backend's plain dict of split counts", '''
num_kv_splits = 1
with contextlib.suppress(KeyError):
    num_kv_splits = self.split_table[forward_batch.batch_size]''', cast=".float()", ret="num_kv_splits",
       imports="import contextlib", init="self.split_table = {1: 4, 2: 2}")

simple("list_map_int_over_index",
       "list(map(int, kv_indices)) turns the index into Python ints for the scheduler", '''
slots = list(map(int, kv_indices))''', cast=".to(torch.float16)", ret="slots")

simple("decorator_counts_calls_pure",
       "a decorated softmax_scale helper whose wrapper only counts calls in a module dict", '''
sm_scale = softmax_scale(layer.head_dim)''', cast=".to(dtype=torch.bfloat16)",
       ret="(sm_scale, dict(_CALL_COUNTS))", imports="import functools", prelude='''
_CALL_COUNTS = {}


def counted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _CALL_COUNTS[fn.__name__] = _CALL_COUNTS.get(fn.__name__, 0) + 1
        return fn(*args, **kwargs)

    return wrapper


@counted
def softmax_scale(head_dim):
    return head_dim ** -0.5''', setup="_CALL_COUNTS.clear()")
