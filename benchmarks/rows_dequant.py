"""The FP4 rows read on a GPU (issue 24): sglang's fixed FP4 pool accessors, whole against rows.

Runs the accessors castlint's fix wrote into sglang's memory_pool.py, unchanged: the
methods of MHATokenToKVPool (the delegating get_key_buffer / get_key_buffer_rows),
MHATokenToKVPoolFP4 and MLATokenToKVPoolFP4 are taken from the fixed file by name and
put on minimal classes that hold only the buffers they read; the dequantize is sglang's
own FP4MXBlock16KVQuantizeUtil.batched_dequantize (kvfp4_tensor.py, torch.compile). Then,
for each cell of the grid, it times

- whole: get_key_buffer(L) and get_value_buffer(L) (what a Triton backend reads today);
- rows:  read_kv_rows(pool, L, kv_indices) of the module the fix adds;

checks that every row the kernel reads is bit-equal (whole[rows] == compact), and writes a
JSON with the median and the 10th/90th percentiles of each (CUDA events, 30 runs).

    python benchmarks/rows_dequant.py --tree FIXED_SGLANG --original ORIG_SGLANG --json out.json
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import statistics
import sys
import types
from pathlib import Path

import torch

POOL = "srt/mem_cache/memory_pool.py"
FP4 = "srt/layers/quantization/kvfp4_tensor.py"
ROWS = "srt/mem_cache/kv_rows_read.py"


def _install_fp4(tree: Path):
    """sglang.srt.layers.quantization.kvfp4_tensor from the tree, with its one sglang import stubbed."""
    for name in ("sglang", "sglang.srt", "sglang.srt.layers", "sglang.srt.layers.quantization"):
        sys.modules.setdefault(name, types.ModuleType(name))
    context = types.ModuleType("sglang.srt.runtime_context")
    context.get_platform = lambda: types.SimpleNamespace(is_cuda=True, is_hip=False)
    sys.modules["sglang.srt.runtime_context"] = context
    spec = importlib.util.spec_from_file_location("sglang.srt.layers.quantization.kvfp4_tensor", tree / FP4)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)


def _methods(tree: Path, cls: str, names):
    """The named methods of class cls in the tree's memory_pool.py, compiled on their own."""
    source = (tree / POOL).read_text()
    module = ast.parse(source)
    node = next(n for n in module.body if isinstance(n, ast.ClassDef) and n.name == cls)
    found = {}
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name in names:
            namespace = {"torch": torch}
            exec(compile(ast.Module([item], []), str(tree / POOL), "exec"), namespace)  # noqa: S102
            found[item.name] = namespace[item.name]
    return found


def pool_classes(tree: Path):
    base_names = ("get_key_buffer", "get_value_buffer", "get_key_buffer_rows", "get_value_buffer_rows")
    fp4_names = ("_get_key_buffer", "_get_value_buffer", "_get_key_buffer_rows", "_get_value_buffer_rows")
    mha = type("MHATokenToKVPool", (), _methods(tree, "MHATokenToKVPool", base_names))
    mha_fp4 = type("MHATokenToKVPoolFP4", (mha,), _methods(tree, "MHATokenToKVPoolFP4", fp4_names))
    mla_base = {"get_value_buffer": lambda self, layer_id: self.kv_buffer[layer_id - self.start_layer][..., :512]}
    mla = type("MLATokenToKVPool", (), mla_base)
    mla_fp4 = type("MLATokenToKVPoolFP4", (mla,), _methods(tree, "MLATokenToKVPoolFP4",
                                                             ("get_key_buffer", "get_key_buffer_rows")))
    return mha_fp4, mla_fp4


def make_pool(cls, kind: str, tokens: int, heads: int, dim: int, page: int = 64):
    pool = object.__new__(cls)
    pool.size, pool.start_layer, pool.layer_transfer_counter = tokens, 0, None
    pool.dtype, pool.store_dtype = torch.bfloat16, torch.uint8
    m = tokens + page
    gen = torch.Generator(device="cuda").manual_seed(0)

    def packed(shape):
        return torch.randint(0, 256, shape, dtype=torch.uint8, device="cuda", generator=gen)

    def scales(shape):
        return torch.randint(118, 130, shape, dtype=torch.uint8, device="cuda", generator=gen)

    if kind == "mha":
        pool.k_buffer, pool.v_buffer = [packed((m, heads, dim // 2))], [packed((m, heads, dim // 2))]
        pool.k_scale_buffer, pool.v_scale_buffer = [scales((m, heads * dim // 16))], [scales((m, heads * dim // 16))]
    else:
        pool.kv_buffer, pool.kv_scale_buffer = [packed((m, 1, dim // 2))], [scales((m, dim // 16))]
    return pool


def _time(fn, runs: int = 30):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return {"median_ms": statistics.median(times), "p10_ms": times[len(times) // 10],
            "p90_ms": times[(9 * len(times)) // 10]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", required=True, type=Path, help="the fixed sglang package")
    parser.add_argument("--json", required=True, type=Path)
    parser.add_argument("--pool-tokens", type=int, default=495552)
    args = parser.parse_args()
    _install_fp4(args.tree)
    spec = importlib.util.spec_from_file_location("kv_rows_read", args.tree / ROWS)
    rows_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rows_module)
    mha_fp4, mla_fp4 = pool_classes(args.tree)
    cells = []
    # (pool, heads, head dim): an MHA model's 8 KV heads of 128 (Llama-3-70B at TP 1), and
    # the MLA latent (576 = 512 + 64) of DeepSeek/GLM-5
    for kind, cls, heads, dim in (("mha", mha_fp4, 8, 128), ("mla", mla_fp4, 1, 576)):
        pool = make_pool(cls, kind, args.pool_tokens, heads, dim)
        for batch, context in ((1, 4096), (8, 4096), (32, 4096), (64, 4096), (32, 16384)):
            n = batch * context
            gen = torch.Generator(device="cuda").manual_seed(n)
            rows = torch.randperm(args.pool_tokens, device="cuda", generator=gen)[:n] + 1
            whole = rows_module._whole(pool, 0, rows)
            compact = rows_module.read_kv_rows(pool, 0, rows)
            took = compact[2] is not rows
            equal = all(torch.equal(w[rows], c if took else c[rows]) for w, c in zip(whole[:2], compact[:2])) \
                if kind == "mha" else torch.equal(whole[0][rows], compact[0] if took else compact[0][rows])
            cell = {"pool": kind, "heads": heads, "head_dim": dim, "pool_tokens": args.pool_tokens,
                    "batch": batch, "context": context, "rows": n, "compact_read": took, "equal": bool(equal),
                    "whole": _time(lambda: rows_module._whole(pool, 0, rows)),
                    "rows_read": _time(lambda: rows_module.read_kv_rows(pool, 0, rows))}
            cell["speedup"] = cell["whole"]["median_ms"] / cell["rows_read"]["median_ms"]
            cells.append(cell)
            print(f"{kind} bs{batch} ctx{context} rows={n}: whole {cell['whole']['median_ms']:.3f} ms, "
                  f"rows {cell['rows_read']['median_ms']:.3f} ms ({cell['speedup']:.1f}x) "
                  f"compact={took} equal={equal}", flush=True)
        del pool
        torch.cuda.empty_cache()
    args.json.write_text(json.dumps({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                                     "cells": cells}, indent=1))
    return 0 if all(c["equal"] for c in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
