# Safe case bodies for make_cases.py (round 9): realistic engine code where what runs between the cast and
# the gather is genuinely harmless, in spellings rounds 7 and 8 did not use. Several are the harmless twins
# of this round's hazards: an in-place write to the index tensor or to q (not the pool), a pure property, a
# print to the backend's own StringIO trace, a dataclass whose __post_init__ only validates, shape reads of
# the cast variable, a gather inside torch.inference_mode(), torch.bucketize, softmax over q, an Enum
# identity check with a getattr default, struct.pack of a local header, a boolean-mask filter of the index,
# a plain dict plan cache, a gather by a Python list of slots. Nothing writes the pool, the dtype expression
# is not rebound, and the cast variable is only gathered (or read for its shape, which the cast keeps):
# moving the cast is exact.
import textwrap

CASES = []


def case(name, family, doc, code):
    CASES.append((name, "safe", family, doc, code))


def _ind(text, n):
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n)


def simple(name, doc, between, cast=".to(torch.bfloat16)", gather="k[kv_indices]", ret="0", prelude="",
           fb="ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))"):
    case(name, "safe: " + doc, doc, textwrap.dedent(prelude).strip("\n") + f'''


class DecodeBackend:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool
        self.max_slot = 15
        self.capture_bs = torch.tensor([1, 2, 4, 8])
        self.plan_cache = {{}}
        self.trace = io.StringIO()
        self.headers = []

    def forward_decode(self, q, layer, forward_batch):
        k = self.token_to_kv_pool.get_key_buffer(layer.layer_id){cast}
        kv_indices = forward_batch.kv_indices
{_ind(between, 8)}
        return {gather}, {ret}


def run_case(torch):
    pool = MHATokenToKVPool(16, 2, 4, 2)
    fb = {fb}
    q = _rand((2, 2, 4), 5)
    out = DecodeBackend(pool).forward_decode(q, RadixLayer(1), fb)
    return {{"out": out, "k": pool.k_buffer, "kv_indices": fb.kv_indices, "q": q}}
''')


IO = "import io"

simple("index_clamp_inplace", "kv_indices.clamp_(0, self.max_slot) (an in-place write to the index tensor, not "
       "to the pool; the gather reads the index after it either way)", '''
kv_indices.clamp_(0, self.max_slot)''', prelude=IO)

simple("q_mul_inplace_scaling", "q.mul_(scaling) (an in-place write to the caller's query, not to the pool)", '''
scaling = layer.head_dim ** -0.5
q.mul_(scaling)''', cast=".bfloat16()", gather="k.index_select(0, kv_indices)", ret="q.clone()", prelude=IO)

simple("pure_property_is_decode", "if forward_batch.is_decode_or_idle: a pure property of the batch (a string "
       "comparison)", '''
if forward_batch.is_decode_or_idle:
    max_q_len = 1
else:
    max_q_len = forward_batch.batch_size''', cast=".half()", gather="torch.index_select(k, 0, kv_indices)",
       ret="max_q_len", prelude=IO + '''


class DecodeForwardBatch(ForwardBatch):
    @property
    def is_decode_or_idle(self):
        return self.forward_mode in ("decode", "idle")''',
       fb="DecodeForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]))")

simple("print_to_stringio_trace", "print(..., file=self.trace) into the backend's own io.StringIO trace", '''
print(f"decode layer={layer.layer_id} bs={forward_batch.batch_size} q={tuple(q.shape)}", file=self.trace)''',
       cast=".float()", gather="k[kv_indices].reshape(forward_batch.batch_size, -1)", ret="self.trace.getvalue()",
       prelude=IO)

simple("gather_inside_inference_mode", "the gather runs inside `with torch.inference_mode():` (the cast, before "
       "it, does not); the moved cast runs inside it too, as the gather did", '''
with torch.inference_mode():
    rows = k[kv_indices]
    scale = torch.ones(forward_batch.batch_size)''', cast=".to(dtype=torch.float16)", gather="rows", ret="scale",
       prelude=IO)

simple("bucketize_graph_batch_size", "graph_bs = capture_bs[torch.bucketize(bs, capture_bs)] (picking the CUDA "
       "graph to replay)", '''
bs = torch.tensor([forward_batch.batch_size])
graph_bs = int(self.capture_bs[torch.bucketize(bs, self.capture_bs)])''', cast=".double()", ret="graph_bs",
       prelude=IO)

simple("softmax_over_q_only", "a softmax of q against itself (fresh tensors only) between the cast and the gather", '''
qf = q.float()
probs = torch.softmax(qf @ qf.transpose(-1, -2), dim=-1)''', cast=".to(torch.float32)", ret="probs", prelude=IO)

simple("enum_identity_and_getattr_default", "forward_batch.forward_mode is ForwardMode.DECODE (a real Enum) and "
       "getattr(layer, 'sliding_window_size', -1) on a plain layer", '''
is_decode = forward_batch.forward_mode is ForwardMode.DECODE
window = getattr(layer, "sliding_window_size", -1)''', cast=".type(torch.bfloat16)", gather="k[kv_indices, :, :]",
       ret="(is_decode, window)", prelude=IO + '''
import enum


class ForwardMode(enum.Enum):
    EXTEND = 1
    DECODE = 2''', fb="ForwardBatch(pool, torch.tensor([3, 1]), torch.tensor([3]), forward_mode=ForwardMode.DECODE)")

simple("struct_pack_local_header", "header = struct.pack('<iii', layer_id, bs, heads) into a local bytes object "
       "appended to the backend's own list", '''
header = struct.pack("<iii", layer.layer_id, forward_batch.batch_size, layer.tp_k_head_num)
self.headers.append(header)''', cast=".to(torch.bfloat16, copy=True)", ret="list(self.headers)",
       prelude=IO + "\nimport struct")

simple("boolean_mask_filters_index", "kv_indices = kv_indices[kv_indices >= 0] (padding slots dropped; the index "
       "is rebound, not the pool)", '''
kv_indices = kv_indices[kv_indices >= 0]''', cast=".float()",
       fb="ForwardBatch(pool, torch.tensor([3, -1, 1]), torch.tensor([3]))", prelude=IO)

simple("plain_dict_plan_cache", "plan = self.plan_cache.get(key) / self.plan_cache[key] = ... on a plain dict of "
       "the backend", '''
key = (forward_batch.batch_size, layer.layer_id)
plan = self.plan_cache.get(key)
if plan is None:
    plan = {"num_splits": 2, "bs": forward_batch.batch_size}
    self.plan_cache[key] = plan''', cast=".to(torch.float16, non_blocking=False)", ret="dict(plan)", prelude=IO)

simple("python_list_of_slots", "slots = kv_indices.tolist() (a CPU-side list of slots, as read from a "
       "req_to_token row); the gather is k[slots]", '''
slots = kv_indices.tolist()
assert all(0 <= s <= self.max_slot for s in slots)''', gather="k[slots]", ret="len(slots)", prelude=IO)

simple("post_init_validates_only", "md = DecodeMetadata(bs, page_size) whose __post_init__ only validates and "
       "derives fields (raises ValueError on a bad page size; not taken)", '''
md = DecodeMetadata(forward_batch.batch_size, 4)''', cast=".half()", ret="(md.bs, md.page_size, md.page_shift)",
       prelude=IO + '''
import dataclasses


@dataclasses.dataclass
class DecodeMetadata:
    bs: int
    page_size: int
    page_shift: int = 0

    def __post_init__(self):
        if self.page_size <= 0 or self.page_size & (self.page_size - 1):
            raise ValueError(f"page_size must be a power of two, got {self.page_size}")
        self.page_shift = self.page_size.bit_length() - 1''')

simple("shape_reads_of_cast_variable", "num_heads, head_dim = k.shape[1], k.shape[2] (shape reads of the cast "
       "variable; the cast keeps the shape)", '''
num_heads, head_dim = k.shape[1], k.shape[2]
assert num_heads == layer.tp_k_head_num and head_dim == layer.head_dim''', cast=".float()",
       ret="(num_heads, head_dim)", prelude=IO)
