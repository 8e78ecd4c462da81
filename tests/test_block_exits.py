"""One test of "this block leaves" (castlint.analysis.tree.block_exits) for both narrowings: the
isinstance narrowing of object flow and the dtype-equality narrowing. An exiting body written on the
`if` line (`if isinstance(src, C): return ...`) narrows what follows as an indented one does; a body
that falls through narrows nothing. The pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from marked_cases import FILLER
from marked_cases import check as _check

_POOLS = """
import torch


class DenseLatent:
    def __init__(self, size, layers):
        self.planes = [torch.empty(size, 1, 576, dtype=torch.float8_e4m3fn) for _ in range(layers)]


class StepRows:
    def __init__(self):
        self.planes = [torch.empty(32, 1, 576, dtype=torch.float8_e4m3fn)]
"""

CASES = {
    # isinstance past a one-line return: what follows reads the step's rows
    "isinstance_one_line_return": _POOLS
    + """

class OneLineExitBackend:
    def __init__(self, src: "DenseLatent | StepRows"):
        self.src = src

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        src = self.src
        if isinstance(src, DenseLatent): return src.planes[layer.layer_id].to(q.dtype)  # positive
        return src.planes[0].to(q.dtype)  # negative
""",
    # the same test past a one-line `continue` in a loop over sources (vLLM style)
    "isinstance_one_line_continue": _POOLS
    + """

class LoopBackend:
    def __init__(self, size, layers):
        self.sources = [DenseLatent(size, layers), StepRows()]

    def forward(self, query, key, value, attn_metadata, layer_idx=0):
        out = []
        for src in self.sources:
            if isinstance(src, DenseLatent): out.append(src.planes[layer_idx].to(query.dtype)); continue  # positive
            out.append(src.planes[0].to(query.dtype))  # negative
        return out
""",
    # a one-line body that does not leave: the code after it is not narrowed
    "isinstance_one_line_falls_through": _POOLS
    + """

class FallThroughBackend:
    def __init__(self, src: "DenseLatent | StepRows"):
        self.src = src
        self.seen = 0

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        src = self.src
        if isinstance(src, DenseLatent): self.seen += 1
        rows = src.planes[0][forward_batch.out_cache_loc].to(q.dtype)  # negative
        return src.planes[0].to(q.dtype), rows  # positive
""",
    # dtype equality past a one-line return (lmdeploy style): the cast below converts nothing
    "dtype_one_line_return": """
import torch


class CacheEngine:
    def __init__(self, num_blocks, layers):
        self.gpu_cache = [torch.empty(num_blocks, 64, 8, 128, dtype=torch.float8_e4m3fn) for _ in range(layers)]


class Attention:
    def __init__(self, engine: CacheEngine, layer_idx: int):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, attn_metadata):
        cache = self.engine.gpu_cache[self.layer_idx]
        if cache.dtype != query.dtype: return cache.to(query.dtype)  # positive
        return cache.to(query.dtype)  # negative
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {line for _, line, _ in _check(path, False)}
    positives = {i for i, text in enumerate(lines, 1) if "# positive" in text}
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert found & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
