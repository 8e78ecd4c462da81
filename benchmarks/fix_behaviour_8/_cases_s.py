# Safe case bodies for make_cases.py (round 8): realistic engine code where what runs between the cast and
# the gather is genuinely harmless, in spellings round 7 did not use: early-exit shape checks, a stats dict
# on the backend, a static q buffer of the backend's own, padded indptr via F.pad, a pure lru_cache'd page
# count, torch.where index sanitising, an index dtype conversion, a perf_counter timing, dataclasses.replace
# of metadata, q scaling, a RoPE cos/sin table lookup, is_available() checks. Nothing writes the pool, the
# dtype expression is not rebound, the cast variable is only gathered: moving the cast is exact.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def simple(name, doc, between, cast=".to(torch.bfloat16)", gather="k[kv_indices]", ret="0", prelude="",
           pre_gather="kv_indices = forward_batch.kv_indices"):
    case(name, "safe: " + doc, doc, textwrap.dedent(prelude).strip("\n") + f'''


class DecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.page_size = 2
        self.max_bs = 8
        self.stats = {{"decode_steps": 0, "tokens": 0}}
        self.static_q = torch.zeros(8, 2, 4)

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
{_ind(pre_gather, 8)}
{_ind(between, 8)}
        return {gather}, {ret}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))
    out = DecodeBackend(pool).forward_decode(_rand((2, 2, 4), 5), RadixLayer(1), fb)
    return {{"out": out, "k": pool.k_buffer}}
''')


simple("empty_batch_early_return", "if kv_indices.numel() == 0: return an empty tensor early (a shape check, "
       "not taken)", '''
if kv_indices.numel() == 0:
    return q.new_empty(0, layer.tp_k_head_num, layer.head_dim), 0''', cast=".to(dtype=torch.bfloat16)")

simple("stats_dict_counters", "self.stats['decode_steps'] += 1; self.stats['tokens'] += bs (a dict on the backend)", '''
self.stats["decode_steps"] += 1
self.stats["tokens"] += forward_batch.batch_size''', ret="dict(self.stats)", cast=".float()")

simple("static_q_buffer_copy", "self.static_q[:bs].copy_(q) (the backend's own CUDA-graph input buffer, not the pool)", '''
bs = q.shape[0]
self.static_q[:bs].copy_(q)''', ret="self.static_q.clone()", cast=".to(torch.float32)")

simple("kv_indptr_fpad_cumsum", "kv_indptr = F.pad(torch.cumsum(seq_lens, 0), (1, 0)) (a fresh padded indptr)", '''
seq_lens = torch.ones(forward_batch.batch_size, dtype=torch.int32)
kv_indptr = F.pad(torch.cumsum(seq_lens, 0, dtype=torch.int32), (1, 0))''', ret="kv_indptr", prelude='''
import torch.nn.functional as F''')

simple("lru_cached_num_pages", "num_pages = _num_pages(seq_len, page_size), a pure functools.lru_cache helper", '''
num_pages = _num_pages(int(kv_indices.numel()), self.page_size)''', ret="num_pages", prelude='''
import functools


@functools.lru_cache(maxsize=None)
def _num_pages(seq_len, page_size):
    return (seq_len + page_size - 1) // page_size''', cast=".half()")

simple("torch_where_sanitise_padding", "kv_indices = torch.where(kv_indices < 0, 0, kv_indices) (padded -1 slots "
       "sanitised, index arithmetic)", '''
kv_indices = torch.where(kv_indices < 0, torch.zeros_like(kv_indices), kv_indices)''')

simple("index_dtype_int64", "kv_indices = kv_indices.to(torch.int64) (a conversion of the index, not of the pool)", '''
kv_indices = kv_indices.to(torch.int64)''', gather="k.index_select(0, kv_indices)", cast=".float()")

simple("perf_counter_timing", "t0 = time.perf_counter(); ...; elapsed >= 0 (timing)", '''
t0 = time.perf_counter()
n = kv_indices.numel()
elapsed_ok = (time.perf_counter() - t0) >= 0.0''', ret="(n, elapsed_ok)", prelude='''
import time''')

simple("dataclasses_replace_metadata", "md = dataclasses.replace(md, max_seq_len=...) (fresh metadata object)", '''
md = DecodeMetadata(max_seq_len=8, num_kv_splits=2)
md = dataclasses.replace(md, max_seq_len=int(kv_indices.max()) + 1)''', ret="md.max_seq_len", prelude='''
import dataclasses


@dataclasses.dataclass(frozen=True)
class DecodeMetadata:
    max_seq_len: int
    num_kv_splits: int''', cast=".to(torch.float16)")

simple("q_scaling_new_tensor", "q = q * layer.head_dim ** -0.5 (a new q tensor, the pool untouched)", '''
scaling = layer.head_dim ** -0.5
q = q.float() * scaling''', ret="q", cast=".float()")

simple("rope_cos_sin_table_lookup", "cos, sin = cos_sin_cache[positions].chunk(2, -1) (a fresh RoPE table read)", '''
positions = torch.arange(forward_batch.batch_size)
inv_freq = 1.0 / (10000 ** (torch.arange(0, layer.head_dim, 2).float() / layer.head_dim))
freqs = torch.outer(torch.arange(16).float(), inv_freq)
cos_sin_cache = torch.cat([freqs.cos(), freqs.sin()], dim=-1)
cos, sin = cos_sin_cache[positions].chunk(2, dim=-1)''', ret="(cos, sin)")

simple("cuda_available_branch", "if torch.cuda.is_available(): ... else: device = 'cpu' (a capability check)", '''
if torch.cuda.is_available():
    device_name = "cuda"
else:
    device_name = "cpu"''', ret="device_name", gather="torch.index_select(k, 0, kv_indices)")

simple("page_table_view_first_column", "page_table = kv_indices.view(-1, 1); loc = page_table[:, 0] (index reshape)", '''
page_table = kv_indices.view(-1, 1)
loc = page_table[:, 0].contiguous()''', gather="k[loc]", cast=".to(dtype=torch.float32)")
