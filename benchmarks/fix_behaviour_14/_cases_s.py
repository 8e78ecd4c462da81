# Safe case bodies for make_cases.py (round 14): realistic engine code where what runs between the cast and
# the gather is genuinely harmless, the harmless twins of this round's hazard mechanisms: subtraction of
# plain seq-len tensors, a functools.total_ordering class with a pure __lt__, an Enum lookup of a known value
# (its _missing_ is not reached), add_done_callback on a pending future (resolved after the step), a
# warnings.catch_warnings(record=True) block, pickle.dumps of a plain step record, sched.scheduler.run with no
# due event, model.eval() of plain submodules, .cpu() of the query (an alias of q, not of the pool), a
# .contiguous() copy of a transposed layer written in place, a nonlocal closure and a match capture that bind
# other names, vars(config).update of fields other than the dtype, a cast of the FP8 pool under no_grad, and
# an autocast scope around the gather with a constant cast dtype. Nothing writes the pool, the dtype
# expression is not changed, and the cast variable is only gathered: moving the cast is exact.
import importlib.util
import os

_SPEC = importlib.util.spec_from_file_location(
    "fb14_template_s", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_template.py"))
T = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(T)

CASES = []
RESULT = '{"out": out, "k": pool.k_buffer, "v": pool.v_buffer, "kv_indices": fb.kv_indices}'


def simple(name, doc, prelude, between, **kw):
    kw.setdefault("result", RESULT)
    CASES.append((name, "safe", "safe: " + doc, doc, T.render(len(CASES), prelude, between, **kw)))


simple("sub_of_plain_seq_len_tensors",
       "new_tokens = seq_lens - prefix_lens on plain int64 tensors",
       "",
       "new_tokens = (self.seq_lens - self.prefix_lens).tolist()",
       init="self.seq_lens = torch.tensor([4, 7])\nself.prefix_lens = torch.tensor([2, 5])", ret="new_tokens")

simple("total_ordering_pure_lt_progress",
       "if progress <= threshold on a functools.total_ordering class whose __lt__ only compares counters",
       '''
@functools.total_ordering
class PrefetchProgress:
    def __init__(self, landed):
        self.landed = landed

    def __eq__(self, other):
        return self.landed == int(other)

    def __lt__(self, other):
        return self.landed < int(other)
''',
       """
if self.helper <= self.prefetch_threshold:
    self.prefetch_skips += 1
""",
       init="self.prefetch_threshold = 8\nself.prefetch_skips = 0", ret="self.prefetch_skips",
       imports="import functools", setup="helper = PrefetchProgress(2)")

simple("enum_known_value_missing_not_reached",
       "KVLayout('hnd'), a known value: the Enum's _missing_ (which would migrate pools) is not reached",
       '''
_REGISTERED_POOLS = []


class KVLayout(enum.Enum):
    NHD = "nhd"
    HND = "hnd"

    @classmethod
    def _missing_(cls, value):
        for pool, padding_slot in _REGISTERED_POOLS:
            for layer_buf in pool.k_buffer:
                layer_buf[padding_slot] = torch.zeros(2, 4)
        return cls.NHD
''',
       "layout = KVLayout(self.layout_name)",
       init='self.layout_name = "hnd"', ret="layout.value", imports="import enum",
       setup="_REGISTERED_POOLS.clear()\n_REGISTERED_POOLS.append((pool, 3))\nhelper = None")

simple("future_add_done_callback_pending_transfer",
       "add_done_callback on a transfer future that is still pending: the landing callback runs only when "
       "the transfer completes, after the step",
       '''
class KVReceiver:
    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id
        self.futures = {}
        self.landed = []

    def land(self, future):
        loc, k_rows = future.result()
        self.pool.k_buffer[self.layer_id][loc] = k_rows
        self.landed.append(int(loc))
''',
       "self.helper.futures[self.rid].add_done_callback(self.helper.land)",
       init='self.rid = "req-0"', ret="list(self.helper.landed)", imports="import concurrent.futures",
       setup="helper = KVReceiver(pool, 1)\nfut = concurrent.futures.Future()\nhelper.futures['req-0'] = fut",
       after=f"fut.set_result((3, {T.ROW}))")

simple("warnings_catch_record_counts_saturation",
       "warnings.warn inside warnings.catch_warnings(record=True): the warning is only recorded and counted",
       '''
class FP8SaturationWarning(UserWarning):
    pass
''',
       """
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", FP8SaturationWarning)
    warnings.warn(f"layer {layer.layer_id}: K saturated", FP8SaturationWarning)
num_warnings = len(caught)
""",
       ret="num_warnings", imports="import warnings")

simple("pickle_dumps_plain_step_record",
       "pickle.dumps of a plain step record (ints, a tuple, a string) sent to the detokenizer",
       "",
       """
payload = pickle.dumps({"rid": "req-0", "seq_lens": (4, 7), "step": self.step})
self.outbox.append(payload)
""",
       init="self.step = 7\nself.outbox = []", ret="pickle.loads(payload)", imports="import pickle")

simple("sched_run_nothing_due_yet",
       "sched.scheduler.run(blocking=False) on the step clock when the deferred free is not yet due (it "
       "returns the delay and runs nothing)",
       '''
class DeferredFrees:
    def __init__(self, pool):
        self.pool = pool
        self.step = 0
        self.queue = sched.scheduler(timefunc=lambda: self.step, delayfunc=lambda _: None)
        self.freed = []

    def free_later(self, step, locs):
        self.queue.enterabs(step, 0, self._free, (locs,))

    def _free(self, locs):
        for loc in locs:
            for layer_buf in self.pool.k_buffer:
                layer_buf[loc] = torch.zeros(2, 4)
            self.freed.append(loc)
''',
       """
self.helper.step = self.step_counter
delay = self.helper.queue.run(blocking=False)
""",
       init="self.step_counter = 4", ret="(delay, self.helper.freed)", imports="import sched",
       setup="helper = DeferredFrees(pool)\nhelper.free_later(9, [3])")

simple("module_eval_plain_submodules",
       "model.eval() of a model made of nn.Linear / nn.LayerNorm (no train() override)",
       '''
class PolicyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.norm = torch.nn.LayerNorm(4)
''',
       """
if self.helper.training:
    self.helper.eval()
""",
       ret="self.helper.training", setup="helper = PolicyModel()\nhelper.train()")

simple("cpu_of_query_scaled_in_place",
       "q.cpu() on a CPU backend is q itself, scaled in place: an alias of the query, not of the pool",
       "",
       """
q_host = q.cpu()
q_host.mul_(layer.head_dim ** -0.5)
""",
       ret="q")

simple("contiguous_copy_of_transposed_layer_written",
       "pool.get_key_buffer(i).transpose(0, 1).contiguous() is a real copy (HND staging); the copy is "
       "written, the pool is not",
       "",
       """
staging = self.token_to_kv_pool.get_key_buffer(layer.layer_id).transpose(0, 1).contiguous()
staging[:, 3] = torch.zeros(2, 4)
self.staging_rows = staging.shape[1]
""",
       init="self.staging_rows = 0", ret="self.staging_rows")

simple("nonlocal_closure_rebinds_other_name",
       "a nested note_fallback closure rebinds forward_decode's num_fallbacks with nonlocal; the cast reads "
       "compute_dtype, which nothing rebinds",
       "",
       """
if layer.layer_id in self.risky_layers:
    note_fallback("k overflow risk")
""",
       pre="""
compute_dtype = self.compute_dtype
num_fallbacks = 0

def note_fallback(reason):
    nonlocal num_fallbacks
    self.fallback_reasons.append(reason)
    num_fallbacks += 1
""",
       cast=".to(compute_dtype)",
       init="self.compute_dtype = torch.bfloat16\nself.fallback_reasons = []\nself.risky_layers = {1}",
       ret="(num_fallbacks, self.fallback_reasons)")

simple("match_capture_binds_other_names",
       "a match statement over the step plan captures num_splits and accum_dtype; the cast reads "
       "compute_dtype, which the patterns do not bind",
       "",
       """
match self.plan:
    case {"kind": "split_kv", "num_splits": num_splits, "accum_dtype": accum_dtype}:
        workspace = num_splits * torch.empty((), dtype=accum_dtype).element_size()
    case _:
        workspace = 0
""",
       pre="compute_dtype = torch.bfloat16",
       cast=".to(compute_dtype)",
       init="self.plan = {'kind': 'split_kv', 'num_splits': 4, 'accum_dtype': torch.float32}",
       ret="workspace")

simple("vars_update_non_dtype_config_fields",
       "vars(model_config).update(overrides) of fields other than kv_compute_dtype; the cast reads "
       "self.model_config.kv_compute_dtype",
       '''
class ModelConfig:
    def __init__(self):
        self.kv_compute_dtype = torch.bfloat16
        self.max_running_requests = 16
        self.chunked_prefill_size = 8192
''',
       "vars(self.model_config).update(self.pending_overrides)",
       cast=".to(self.model_config.kv_compute_dtype)",
       init="self.model_config = ModelConfig()\n"
            "self.pending_overrides = {'max_running_requests': 8, 'chunked_prefill_size': 4096}",
       ret="(self.model_config.max_running_requests, self.model_config.chunked_prefill_size)")

simple("no_grad_cast_of_fp8_pool",
       "the working copy is made under torch.no_grad() and gathered after the block; the FP8 pool's "
       "buffers do not require grad",
       "", "",
       fd="""
with torch.no_grad():
    k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
kv_indices = forward_batch.kv_indices
return k[kv_indices], 0
""")

simple("autocast_scope_constant_cast_dtype",
       "the gather runs under torch.autocast('cpu', dtype=fp16) but the cast's dtype is the constant "
       "torch.bfloat16 (indexing is not an autocast op)",
       "", "",
       fd="""
k = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
kv_indices = forward_batch.kv_indices
with torch.autocast("cpu", dtype=torch.float16):
    k_sel = k[kv_indices]
    scores = (q.float() * k_sel.float()).sum(-1)
return k_sel, scores
""")
