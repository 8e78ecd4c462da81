"""CL003 through an annotated binding: `k: torch.Tensor = pool.get_key_buffer(i).to(d)` then `k[idx]` is the
same cast before a gather as `k = ...` (benchmarks/fix_behaviour_3's `annotated_assign` was reported as CL001
with no fix). The detection (castlint.analysis.gathers.bound_name), the proof and the codemod read both
binding forms alike: safe moves are fixed and behave exactly like the input on CPU torch; a writer between
the cast and the gather keeps the move unsafe, and forced, it changes the result."""

from __future__ import annotations

import pytest

from fix_safety_helpers import assert_exact, assert_hazard, assert_not_fixed_by_default, cl003, reason
from marked_cases import check
from test_fix_reach_12 import source

pytest.importorskip("torch")

PLAIN = b"k = self.pool.get_key_buffer(0).to(torch.bfloat16)"


def annotated(src: bytes, annotation: str) -> bytes:
    assert PLAIN in src
    return src.replace(PLAIN, b"k: " + annotation.encode() + PLAIN[1:])


SAFE = {
    # sglang: the plain annotation
    "torch.Tensor": ("", "", "0", "k[kv_indices]"),
    # vLLM: a string annotation, gathered with index_select
    '"torch.Tensor"': ("", "", "0", "k.index_select(0, kv_indices)"),
    # lmdeploy: Optional, read for its shape in between
    "Optional[torch.Tensor]": ("from typing import Optional\n", "n = k.shape[0]\n", "n", "k[kv_indices]"),
    # TRT-LLM: a read-only helper between
    "torch.Tensor with arithmetic between": ("", "scale = layer.head_dim ** -0.5\n", "scale", "k[kv_indices]"),
}


@pytest.mark.parametrize("name", sorted(SAFE))
def test_an_annotated_cast_before_a_gather_is_fixed_exactly(name):
    prelude, between, ret, gather = SAFE[name]
    annotation = name.split(" with ")[0]
    assert_exact(annotated(source(prelude, between, ret, gather), annotation))


def test_an_annotated_cast_with_a_writer_between_is_not_fixed():
    assert_hazard(annotated(source("", "commit()\n"), "torch.Tensor"), "commit")


def test_an_annotated_cast_with_a_pool_store_between_is_refused_as_the_plain_one():
    plain = source("", "self.pool.set_kv_buffer(0, 3, torch.full((1, 2), 0.25))\n")
    assert_not_fixed_by_default(annotated(plain, "torch.Tensor"), "set_kv_buffer")
    assert [reason(f) for f in cl003(annotated(plain, "torch.Tensor"))] == [reason(f) for f in cl003(plain)]


def test_reported_as_cl003_pruned_as_whole(tmp_path):
    path = tmp_path / "backend.py"
    path.write_bytes(annotated(source("", ""), "torch.Tensor"))
    assert check(path, True) == check(path, False)
    assert [code for code, _, _ in check(path, False)] == ["CL003"]
