# Safe case bodies for make_cases.py (round 15): realistic engine code where what runs between the cast and
# the gather is genuinely harmless, the harmless twins of this round's hazard mechanisms: a __truediv__ that
# only divides, max() over branches whose __gt__ only compares, sys.getsizeof of a staging buffer whose
# __sizeof__ only sums, truthiness of a plain list of transfers, a match value pattern on a plain Enum member,
# inspect.getattr_static (which does not run the property a runtime_checkable isinstance would),
# itertools.product over a generator that only reads, Condition.wait_for with a predicate that only reads,
# pickle.loads of a ticket whose __setstate__ only sets fields, torch.reciprocal of a plain scale tensor, a
# [:] view of the layer and the layer's row views that are only read, a MappingProxyType view whose other key
# is updated, and another module converted with .to() while the cast reads the draft head's dtype. Nothing
# writes the pool, the dtype expression's value is not changed, and the cast variable is only gathered:
# moving the cast is exact.
import importlib.util
import os

_SPEC = importlib.util.spec_from_file_location(
    "fb15_template_s", os.path.join(os.path.dirname(os.path.abspath(__file__)), "_template.py"))
T = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(T)

CASES = []
RESULT = '{"out": out, "k": pool.k_buffer, "v": pool.v_buffer, "kv_indices": fb.kv_indices}'


def simple(name, doc, prelude, between, **kw):
    kw.setdefault("result", RESULT)
    CASES.append((name, "safe", "safe: " + doc, doc, T.render(len(CASES), prelude, between, **kw)))


simple("truediv_token_usage_reads_counter",
       "token_usage = used_slots / pool.size with a UsedSlots.__truediv__ that only reads its counter",
       '''
class UsedSlots:
    def __init__(self, used):
        self.used = used

    def __truediv__(self, capacity):
        return self.used / capacity
''',
       "self.last_token_usage = self.used_slots / self.token_to_kv_pool.size",
       init="self.used_slots = helper\nself.last_token_usage = 0.0", ret="self.last_token_usage",
       setup="helper = UsedSlots(9)")

simple("max_draft_branch_pure_gt",
       "best = max(draft_branches) where DraftBranch.__gt__ only compares verified log-probs",
       '''
class DraftBranch:
    def __init__(self, name, logp):
        self.name = name
        self.logp = logp

    def __gt__(self, other):
        return self.logp > other.logp
''',
       "best = max(self.draft_branches)",
       init="self.draft_branches = helper", ret="best.name",
       setup="helper = [DraftBranch('a', -1.5), DraftBranch('b', -0.5), DraftBranch('c', -2.0)]")

simple("getsizeof_staging_sums_chunks",
       "sys.getsizeof(staging) where the staging buffer's __sizeof__ only sums its chunks' sizes",
       '''
class HostStagingBuffer:
    def __init__(self, chunks):
        self.chunks = list(chunks)

    def __sizeof__(self):
        return object.__sizeof__(self) + sum(c.numel() * c.element_size() for c in self.chunks)
''',
       "self.metrics['host_staging_bytes'] = sys.getsizeof(self.staging) > 0",
       init="self.staging = helper\nself.metrics = {}", ret="self.metrics", imports="import sys",
       setup="helper = HostStagingBuffer([torch.zeros(2, 4), torch.zeros(1, 4)])")

simple("truthiness_of_plain_inflight_list",
       "if self.inflight_transfers: on a plain list of transfer ids",
       "",
       """
if self.inflight_transfers:
    self.num_overlapped_steps += 1
""",
       init="self.inflight_transfers = ['req-1', 'req-4']\nself.num_overlapped_steps = 0",
       ret="self.num_overlapped_steps")

simple("match_value_pattern_plain_enum",
       "match spec_phase: case SpecPhase.VERIFY: on a plain Enum member (Enum's identity __eq__)",
       '''
class SpecPhase(enum.Enum):
    DRAFT = "draft"
    VERIFY = "verify"
''',
       """
match self.spec_phase:
    case SpecPhase.VERIFY:
        self.num_verify_steps += 1
    case _:
        pass
""",
       init="self.spec_phase = SpecPhase.VERIFY\nself.num_verify_steps = 0", ret="self.num_verify_steps",
       imports="import enum")

simple("getattr_static_does_not_run_property",
       "inspect.getattr_static(connector, 'num_layers_loaded'): finds the property without running it (the "
       "landing getter a runtime_checkable isinstance would call is not reached)",
       '''
class LMCacheLayerwiseConnector:
    def __init__(self, pool):
        self.pool = pool
        self.arrived = [(1, 3)]

    @property
    def num_layers_loaded(self):
        for layer_id, loc in self.arrived:
            self.pool.k_buffer[layer_id][loc] = torch.zeros(2, 4)
        self.arrived.clear()
        return 1
''',
       "self.layerwise = isinstance(inspect.getattr_static(self.connector, 'num_layers_loaded'), property)",
       init="self.connector = helper\nself.layerwise = None", ret="self.layerwise", imports="import inspect",
       setup="helper = LMCacheLayerwiseConnector(pool)")

simple("itertools_product_of_read_only_generator",
       "itertools.product(loader.iter_ready_layers(), heads) where the generator only reads readiness flags",
       '''
class LayerwiseLoader:
    def __init__(self, ready):
        self.ready = dict(ready)

    def iter_ready_layers(self):
        for layer_id, ok in sorted(self.ready.items()):
            if ok:
                yield layer_id
''',
       "self.pending_work = itertools.product(self.loader.iter_ready_layers(), range(layer.tp_k_head_num))",
       init="self.loader = helper\nself.pending_work = None", ret="list(self.pending_work)",
       imports="import itertools", setup="helper = LayerwiseLoader({0: True, 1: True})")

simple("condition_wait_for_read_only_predicate",
       "with cv: cv.wait_for(lambda: layer_id in resident, timeout): the predicate only reads a set",
       '''
class LayerLoadSync:
    def __init__(self, resident):
        self.cv = threading.Condition()
        self.resident = set(resident)
''',
       """
with self.load_sync.cv:
    self.layer_ready = self.load_sync.cv.wait_for(lambda: layer.layer_id in self.load_sync.resident, timeout=1.0)
""",
       init="self.load_sync = helper\nself.layer_ready = None", ret="self.layer_ready",
       imports="import threading", setup="helper = LayerLoadSync([0, 1])")

simple("pickle_loads_ticket_setstate_fields_only",
       "ticket = pickle.loads(frame) of a transfer ticket whose __setstate__ only sets its fields",
       '''
class KVTransferTicket:
    def __init__(self, rid, loc):
        self.rid = rid
        self.loc = loc

    def __getstate__(self):
        return {"rid": self.rid, "loc": self.loc}

    def __setstate__(self, state):
        self.__dict__.update(state)
''',
       "ticket = pickle.loads(self.frame)",
       init="self.frame = helper", ret="(ticket.rid, ticket.loc)", imports="import pickle\nimport sys\nimport types",
       setup="""
_mod = types.ModuleType(__name__)
_mod.KVTransferTicket = KVTransferTicket
sys.modules[__name__] = _mod
helper = pickle.dumps(KVTransferTicket('req-5', 3))
""",
       finally_="sys.modules.pop(__name__, None)")

simple("reciprocal_of_plain_k_scale",
       "inv_k_scale = torch.reciprocal(layer.k_scale) of a plain scale tensor",
       "",
       "inv_k_scale = torch.reciprocal(layer.k_scale)",
       ret="inv_k_scale", layer="RadixLayer(1, k_scale=torch.tensor(2.0))")

simple("slice_all_view_only_read",
       "cache_view = pool.get_key_buffer(l)[:] (a view of the layer) only read for its amax",
       "",
       """
cache_view = self.token_to_kv_pool.get_key_buffer(layer.layer_id)[:]
self.k_amax = cache_view.float().abs().amax()
""",
       init="self.k_amax = None", ret="self.k_amax")

simple("tensor_row_iteration_only_read",
       "for slot, row in enumerate(pool.get_key_buffer(l)): the row views are only read (counting all-zero rows)",
       "",
       """
num_zero_rows = 0
for slot, row in enumerate(self.token_to_kv_pool.get_key_buffer(layer.layer_id)):
    if not bool(row.float().abs().sum()):
        num_zero_rows += 1
""",
       ret="num_zero_rows")

simple("mapping_proxy_other_key_updated",
       ".to(self.precision['kv_compute']) read through a MappingProxyType; the runner's fallback writes "
       "'attn_accum', another key",
       '''
class ModelRunner:
    def __init__(self):
        self._precision = {"kv_compute": torch.bfloat16, "attn_accum": torch.bfloat16}
        self.precision = types.MappingProxyType(self._precision)

    def apply_pending_fallbacks(self):
        self._precision["attn_accum"] = torch.float32
''',
       "self.helper.apply_pending_fallbacks()",
       init="self.precision = helper.precision", imports="import types",
       cast=".to(self.precision['kv_compute'])", setup="helper = ModelRunner()")

simple("module_dtype_property_other_module_converted",
       ".to(self.draft_head.dtype) while the code between converts another module (the LM head adapter) "
       "with .to(float16)",
       '''
class EagleDraftHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4, dtype=torch.bfloat16)

    @property
    def dtype(self):
        return next(self.parameters()).dtype
''',
       """
if not self.adapter_ready:
    self.lm_head_adapter.to(torch.float16)
    self.adapter_ready = True
""",
       init="self.draft_head = helper\nself.lm_head_adapter = torch.nn.Linear(4, 4, dtype=torch.bfloat16)\n"
            "self.adapter_ready = False",
       cast=".to(self.draft_head.dtype)", setup="helper = EagleDraftHead()")
