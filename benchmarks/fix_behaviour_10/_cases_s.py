# Safe case bodies for make_cases.py (round 10): realistic engine code where what runs between the cast and
# the gather is genuinely harmless, the harmless twins of this round's hazard mechanisms: asyncio.run of a
# pure scheduling coroutine, copy.deepcopy of plain sampling params, sorted() with a pure key, itertools.tee
# over a list, an f-string of shapes, a singledispatch whose overloads are all pure, out= into the backend's
# private workspace, an in-place op on an unsqueeze alias of a fresh tensor, a ContextVar read of a debug
# flag (not the dtype), a builtin set membership of ints, pickle.dumps of a plain tuple, and a dict view
# iteration over a plain dict. Nothing writes the pool, the dtype expression is not rebound, and the cast
# variable is only gathered: moving the cast is exact.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def simple(name, doc, between, cast=".to(torch.bfloat16)", gather="k[kv_indices]", ret="0", prelude=""):
    case(name, "safe: " + doc, doc, textwrap.dedent(prelude).strip("\n") + f'''


class DecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.workspace = torch.empty(2, 2, 4)
        self.sliding_layers = {{0, 2}}
        self.trace = []
        self.sampling = {{"temperature": [0.7, 1.0], "top_k": [20, 40]}}

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
        kv_indices = forward_batch.kv_indices
{_ind(between, 8)}
        return {gather}, {ret}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    q = _rand((2, 2, 4), 5)
    out = DecodeBackend(pool).forward_decode(q, RadixLayer(1), fb)
    return {{"out": out, "k": pool.k_buffer, "kv_indices": fb.kv_indices, "q": q}}
''')


simple("asyncio_run_pure_schedule_coroutine",
       "asyncio.run() of a pure coroutine that picks the number of splits from the batch size", '''
num_splits = asyncio.run(pick_splits(forward_batch.batch_size))''', ret="num_splits", prelude='''
import asyncio


async def pick_splits(bs):
    await asyncio.sleep(0)
    return 4 if bs < 8 else 1''')

simple("deepcopy_plain_sampling_params",
       "copy.deepcopy of the backend's plain dict of sampling lists", '''
params = copy.deepcopy(self.sampling)
params["temperature"][0] = 1.0''', cast=".bfloat16()", gather="k.index_select(0, kv_indices)",
       ret="params", prelude="import copy")

simple("sorted_pure_key_lengths",
       "sorted() of plain request records with a lambda key reading an int field", '''
order = [r.rid for r in sorted(forward_batch_reqs(), key=lambda r: r.seq_len)]''', ret="order",
       cast=".half()", prelude='''
class ReqRecord:
    __slots__ = ("rid", "seq_len")

    def __init__(self, rid, seq_len):
        self.rid = rid
        self.seq_len = seq_len


def forward_batch_reqs():
    return [ReqRecord("r0", 9), ReqRecord("r1", 4)]''')

simple("itertools_tee_over_list",
       "itertools.tee over an iterator of a Python list of sequence lengths", '''
a, b = itertools.tee(iter([4, 9]))
total = sum(a)
longest = max(b)''', ret="(total, longest)", cast=".float()", gather="torch.index_select(k, 0, kv_indices)",
       prelude="import itertools")

simple("fstring_of_shapes_to_trace",
       "an f-string of k's and q's shapes appended to the backend's trace list", '''
self.trace.append(f"decode k={tuple(k.shape)} q={tuple(q.shape)} bs={forward_batch.batch_size}")''',
       ret="self.trace", cast=".to(dtype=torch.float16)")

simple("singledispatch_all_pure_overloads",
       "a singledispatch metadata helper whose registered overloads only read their argument", '''
n_tokens = count_tokens(forward_batch.kv_indices) + count_tokens([1, 2])''', ret="n_tokens", cast=".double()",
       prelude='''
import functools


@functools.singledispatch
def count_tokens(x):
    return 0


@count_tokens.register
def _(x: list):
    return len(x)


@count_tokens.register
def _(x: torch.Tensor):
    return int(x.numel())''')

simple("out_into_private_workspace",
       "torch.mul(q, scale, out=self.workspace) into the backend's own freshly allocated workspace", '''
torch.mul(q.float(), layer.head_dim ** -0.5, out=self.workspace)''', ret="self.workspace",
       cast=".to(torch.float32)", gather="k[kv_indices, :, :]")

simple("inplace_on_unsqueeze_of_fresh_tensor",
       "an in-place mul_ on an unsqueeze alias of a freshly computed score tensor", '''
scores = q.float().sum(-1)
scores.unsqueeze(0).mul_(0.5)''', ret="scores", cast=".type(torch.bfloat16)")

simple("contextvar_debug_flag_read",
       "a ContextVar read of a debug flag deciding whether to record the batch size (the dtype is a literal)", '''
if DEBUG_KV.get():
    self.trace.append(forward_batch.batch_size)''', ret="self.trace", cast=".to(torch.bfloat16, copy=True)",
       prelude='''
import contextvars

DEBUG_KV = contextvars.ContextVar("debug_kv", default=True)''')

simple("builtin_set_membership_of_layer_id",
       "layer.layer_id in self.sliding_layers (a builtin set of ints) choosing the window", '''
window = 4 if layer.layer_id in self.sliding_layers else -1''', ret="window",
       gather="k[kv_indices].reshape(2, -1)")

simple("pickle_dumps_plain_tuple",
       "pickle.dumps of a plain tuple of ints (the step's shape header for the detokenizer)", '''
header = pickle.dumps((forward_batch.batch_size, layer.layer_id, layer.head_dim))
self.trace.append(len(header))''', ret="pickle.loads(header)", cast=".to(torch.float16, non_blocking=False)",
       prelude="import pickle")

simple("dict_items_view_plain_dict",
       "iterating the items() view of the backend's plain sampling dict to build a summary", '''
summary = {}
for name, values in self.sampling.items():
    summary[name] = len(values)''', ret="summary", cast=".float()", gather="k.index_select(0, kv_indices)")
