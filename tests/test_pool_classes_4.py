"""Pool classes, round 4: what the allocation says a buffer is (a shape bound to a local, a
fixed-shape state, arithmetic on one layer, another object's cache attribute)."""

from castlint.analysis import pool_classes
from castlint.config import Config
from castlint.engine import check_file
from castlint.tables import load_tables

TABLES = load_tables()

SHAPE_LOCAL = """import torch


class Store:
    def __init__(self, n_layers, n_blocks, blk, heads, dim):
        shape = (n_blocks, blk, heads, dim)
        self.keys = [torch.empty(shape, dtype=torch.int8) for _ in range(n_layers)]
        self.state = [torch.zeros((64, 8)) for _ in range(n_layers)]

    def keys_at(self, i: int):
        return self.keys[i]

    def state_at(self, i: int):
        return self.state[i]

    def widened(self, i: int):
        return self.keys[i].to(torch.float16) * 0.5
"""

OTHER_OBJECT = """import torch


class Scratch:
    def __init__(self, max_bs, width):
        self.kv_buffer = torch.zeros((max_bs, width), dtype=torch.float8_e4m3fn)


class Backend:
    def __init__(self, runner):
        self.scratch = Scratch(runner.max_bs, 64)
        self.pool = runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.scratch.kv_buffer.to(q.dtype)
        b = self.pool.kv_buffer[layer.layer_id].to(q.dtype)
        return a, b
"""


def _findings(tmp_path, text, prune):
    path = tmp_path / "m.py"
    path.write_text(text)
    config = Config(root=tmp_path)
    result = check_file(str(path), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    return sorted((f.start.line, f.code) for f in result.findings)


def test_shape_bound_to_a_local_and_fixed_state():
    learnt = dict(pool_classes.learn_source(SHAPE_LOCAL.encode(), TABLES).accessors)
    assert learnt.get("keys_at") == "tensor"  # `torch.empty(shape)` with shape a local tuple
    assert "state_at" not in learnt  # `(64, 8)`: a fixed shape, no pool
    assert learnt.get("widened") == "tensor"  # arithmetic on a converted layer


def test_conversion_times_scale_inside_accessor_is_cl004(tmp_path):
    for prune in (False, True):
        assert _findings(tmp_path, SHAPE_LOCAL, prune) == [(17, "CL004")]


def test_cache_attribute_of_a_batch_sized_object_is_not_a_pool(tmp_path):
    for prune in (False, True):
        assert _findings(tmp_path, OTHER_OBJECT, prune) == [(16, "CL001")]
