# Safe case bodies for make_cases.py (round 7): realistic engine code where what runs between the cast and
# the gather is genuinely harmless - reads of metadata, index arithmetic on fresh tensors, logging of ints,
# shape checks, fresh workspaces. Nothing writes the pool, the dtype expression is not rebound, the cast
# variable is only gathered and the gather is defined for the stored dtype: moving the cast is exact.
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
        self.page_size = 1
        self.max_bs = 8
        self.forward_metadata = None

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


simple("seq_lens_sum_item", "bs = forward_batch.batch_size; lens = kv_indices.new_ones(bs); total = int(lens.sum()) "
       "(metadata reads, a fresh tensor)", '''
bs = forward_batch.batch_size
seq_lens = kv_indices.new_ones(bs)
seq_lens_sum = int(seq_lens.sum().item())''', ret="seq_lens_sum")

simple("page_index_arithmetic", "page = kv_indices // page_size; offset = kv_indices % page_size; "
       "loc = page * page_size + offset (index arithmetic)", '''
page_idx = kv_indices // self.page_size
offset = kv_indices % self.page_size
loc = page_idx * self.page_size + offset''', gather="k[loc]", cast=".float()")

simple("logger_debug_ints", "logger.debug('layer %d bs %d', layer_id, bs) (logging of ints, stdlib logger)", '''
logger.debug("layer %d bs %d", layer.layer_id, forward_batch.batch_size)''', prelude='''
import logging

logger = logging.getLogger("fb7.decode")''')

simple("shape_check_q_heads", "if q.shape[1] != layer.tp_k_head_num: raise ValueError(...) (a shape check on q)", '''
if q.shape[1] != layer.tp_k_head_num or q.shape[-1] != layer.head_dim:
    raise ValueError(f"q shape {tuple(q.shape)} does not match layer {layer.layer_id}")''', cast=".half()")

simple("kv_indptr_cumsum_fresh", "kv_indptr = torch.zeros(bs + 1); kv_indptr[1:] = torch.cumsum(lens, 0) (a fresh "
       "workspace stored into)", '''
bs = forward_batch.batch_size
kv_indptr = torch.zeros(bs + 1, dtype=torch.int64)
kv_indptr[1:] = torch.cumsum(torch.ones(bs, dtype=torch.int64), dim=0)''', ret="kv_indptr")

simple("clamp_indices_to_pool", "kv_indices = kv_indices.clamp(0, pool.size - 1) (index arithmetic)", '''
kv_indices = kv_indices.clamp(0, self.token_to_kv_pool.size - 1)''', cast=".float()")

simple("k_scale_default_read", "k_scale = layer.k_scale if layer.k_scale is not None else 1.0; out scaled after "
       "the gather", '''
k_scale = layer.k_scale if layer.k_scale is not None else 1.0''', gather="k[kv_indices] * k_scale")

simple("fstring_tag_of_ints", "tag = f'decode L{layer_id} bs={bs}' (an f-string of ints)", '''
tag = f"decode L{layer.layer_id} bs={forward_batch.batch_size}"''', ret="tag", cast=".bfloat16()")

simple("min_bs_padding", "padded_bs = min(max(bs, 1), self.max_bs) (ints: CUDA-graph padding arithmetic)", '''
padded_bs = min(max(forward_batch.batch_size, 1), self.max_bs)''', ret="padded_bs")

simple("spec_num_draft_tokens", "num_draft = steps * topk + 1; positions = torch.arange(num_draft) (spec-decoding "
       "metadata, a fresh tensor)", '''
speculative_num_steps, topk = 2, 1
num_draft_tokens = speculative_num_steps * topk + 1
positions = torch.arange(num_draft_tokens)''', ret="positions", cast=".float()")

simple("forward_metadata_dataclass_read", "md = self.forward_metadata or DecodeMetadata(...); max_len = md.max_seq_len "
       "(a plain dataclass read)", '''
md = self.forward_metadata or DecodeMetadata(max_seq_len=16, page_size=1)
max_len = md.max_seq_len''', ret="max_len", prelude='''
import dataclasses


@dataclasses.dataclass
class DecodeMetadata:
    max_seq_len: int
    page_size: int''')

simple("q_reshape_contiguous", "q = q.reshape(-1, H, D).contiguous() (q only)", '''
q = q.reshape(-1, layer.tp_k_head_num, layer.head_dim).contiguous()''', ret="q", cast=".to(torch.float16)")

simple("req_to_token_row_read", "kv_indices = req_to_token[req, :seq_len] (a read of a separate int table)", '''
req_to_token = torch.tensor([[3, 1, 0, 0]])
kv_indices = req_to_token[0, :forward_batch.batch_size]''', cast=".double()")

simple("v_buffer_shape_check", "assert pool.get_value_buffer(l).shape == (16, 2, 4) (a shape read of V)", '''
v_shape = tuple(self.token_to_kv_pool.get_value_buffer(layer.layer_id).shape)
assert v_shape == (16, 2, 4), v_shape''', ret="v_shape")

simple("sorted_indices_unique", "kv_indices, order = torch.sort(kv_indices) (index arithmetic on a fresh result)", '''
sorted_idx, order = torch.sort(kv_indices)''', gather="k[sorted_idx]", ret="order")

simple("fresh_output_workspace", "o = torch.empty_like(q, dtype=torch.float32); o.zero_() (a fresh output "
       "buffer written)", '''
o = torch.empty(q.shape, dtype=torch.float32)
o.zero_()''', ret="o")
