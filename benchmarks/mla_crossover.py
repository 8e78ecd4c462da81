"""Where does each way of reading an FP8 MLA KV pool win?  Kernel-level crossover grid.

For every shape of a grid (decode, speculative verify, extend) and every pool size it
times, side by side in one process, with the L2 flushed before each call:

- `original`: the whole-pool FP8 -> BF16 cast, then FlashInfer's BF16 MLA kernel
  (what sglang's FlashInfer MLA backend does today);
- `native`: FlashInfer's mixed-precision kernel reading the FP8 pool as stored
  (plan(q_data_type=bf16, kv_data_type=e4m3), run(..., ckv_scale=, kpe_scale=));
- `gather`: gather the rows the plan reads (kv_indices), cast only those, and run
  the BF16 kernel on that compact buffer with kv_indices = arange;
- `compact`: the fix's fused gather-and-convert kernel (castlint/fixes/templates/
  mla_kv_read.py) converts the rows read into a buffer shared by every layer, at
  their own positions, and the BF16 kernel reads it with the plan's own indices;
  `convert` times that conversion alone and `bf16` the BF16 kernel alone.

The pool is allocated once at the largest size; smaller pools are its prefixes, so
the cast of a pool of N tokens is the cast of the first N rows.

    # FlashInfer from wheels, on the H200 (see docs/validation-h200.md):
    python3 benchmarks/mla_crossover.py --heads 64 --json $OUT/crossover-fi0618.json

It prints one line per cell and writes JSON: per cell the median and p10/p90 of each
path in ms. `benchmarks/crossover_table.py` turns that JSON into the rows of
rules/costs_h200.toml.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

CKV, KPE = 512, 64
POOLS = (65536, 131072, 495552, 1048576)
DECODE = [(bs, ctx) for bs in (1, 4, 16, 64, 256) for ctx in (1024, 4096, 16384, 32768)]
VERIFY = [(bs, q, ctx) for bs in (1, 8, 16, 32, 64) for q in (1, 2, 4, 8) for ctx in (2048, 4096, 16384)]
EXTEND = [(bs, new, ctx) for bs in (1, 4, 16, 64) for new in (32, 128, 512, 2048, 8192)
          for ctx in (2048, 8192) if new <= ctx]


def percentile(values, q):
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def load_template():
    """The engine code the fix emits, imported by path (the GPU machine has no libcst)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "castlint", "fixes", "templates",
                        "mla_kv_read.py")
    spec = importlib.util.spec_from_file_location("mla_kv_read_template", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compact_read(engine, torch, kv_indices, pool_rows):
    """The fix's compact read of these rows, as its plan() would set it up."""
    lut = torch.arange(256, dtype=torch.uint8, device=kv_indices.device).view(torch.float8_e4m3fn)
    rows = torch.zeros(pool_rows, dtype=torch.int32, device=kv_indices.device)
    rows[: kv_indices.shape[0]] = kv_indices
    count = torch.full((1,), kv_indices.shape[0], dtype=torch.int32, device=kv_indices.device)
    return engine.KvRead("compact", rows, count, kv_indices.shape[0], lut.to(torch.bfloat16))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--heads", type=int, default=64)
    ap.add_argument("--iters", type=int, default=15)
    ap.add_argument("--json", required=True)
    ap.add_argument("--budget-s", type=float, default=420, help="stop measuring new cells after this")
    ap.add_argument("--kinds", default="decode,verify,extend")
    ap.add_argument("--pools", default=",".join(map(str, POOLS)))
    args = ap.parse_args(argv)

    import torch
    import flashinfer
    from flashinfer.mla import BatchMLAPagedAttentionWrapper

    engine = load_template()

    t_start = time.time()
    dev = "cuda"
    H = args.heads
    pools = [int(p) for p in args.pools.split(",")]
    max_pool = max(pools)
    torch.manual_seed(0)
    pool_fp8 = (torch.randn(max_pool, 1, CKV + KPE, device=dev) * 0.5).to(torch.float8_e4m3fn)
    flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device=dev)
    ws = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=dev)
    sm_scale = 1.0 / ((128 + 64) ** 0.5)
    meta = {"gpu": torch.cuda.get_device_name(0), "capability": list(torch.cuda.get_device_capability(0)),
            "torch": torch.__version__, "flashinfer": flashinfer.__version__, "heads": H,
            "head_dim_ckv": CKV, "head_dim_kpe": KPE, "page_size": 1, "iters": args.iters, "l2_flushed": True}
    print(json.dumps(meta), flush=True)

    def timed(fn):
        fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.iters):
            flush.zero_()
            st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            st.record()
            fn()
            en.record()
            torch.cuda.synchronize()
            times.append(st.elapsed_time(en))
        return {"median": statistics.median(times), "p10": percentile(times, 0.1), "p90": percentile(times, 0.9)}

    cast_ms = {}
    for pool in pools:
        view = pool_fp8[:pool]
        cast_ms[pool] = timed(lambda: view.to(torch.bfloat16))
        print(f"cast pool={pool} {cast_ms[pool]['median']:.4f} ms", flush=True)

    wrappers = {}

    def wrapper(kind, dtype):
        key = (kind, dtype)
        if key not in wrappers:
            wrappers[key] = BatchMLAPagedAttentionWrapper(ws, backend="auto")
        return wrappers[key]

    cells = []
    kinds = args.kinds.split(",")
    grid = ([("decode", bs, 1, ctx) for bs, ctx in DECODE] if "decode" in kinds else []) + \
           ([("verify", bs, q, ctx) for bs, q, ctx in VERIFY] if "verify" in kinds else []) + \
           ([("extend", bs, new, ctx) for bs, new, ctx in EXTEND] if "extend" in kinds else [])
    for kind, bs, q_per_req, ctx in grid:
        active = bs * ctx
        if active > max_pool:
            continue
        if time.time() - t_start > args.budget_s:
            print(f"budget reached, {kind} bs={bs} q={q_per_req} ctx={ctx} and later cells skipped", flush=True)
            break
        q_tokens = bs * q_per_req
        causal = kind != "decode"
        qo_indptr = torch.arange(bs + 1, device=dev, dtype=torch.int32) * q_per_req
        kv_indptr = torch.arange(bs + 1, device=dev, dtype=torch.int32) * ctx
        kv_lens = torch.full((bs,), ctx, device=dev, dtype=torch.int32)
        q_nope = torch.randn(q_tokens, H, CKV, device=dev, dtype=torch.bfloat16)
        q_pe = torch.randn(q_tokens, H, KPE, device=dev, dtype=torch.bfloat16)
        result = {"kind": kind, "batch": bs, "q_per_request": q_per_req, "context": ctx, "q_tokens": q_tokens,
                  "kv_tokens": active}
        try:
            home = min(p for p in pools if p >= active)
            kv_indices = torch.randperm(home, device=dev)[:active].to(torch.int32)
            w16 = wrapper("bf16", torch.bfloat16)
            w16.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, H, CKV, KPE, 1, causal, sm_scale,
                     torch.bfloat16, torch.bfloat16)
            w8 = wrapper("fp8", torch.float8_e4m3fn)
            w8.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, H, CKV, KPE, 1, causal, sm_scale,
                    torch.bfloat16, torch.float8_e4m3fn)
            compact = torch.arange(active, device=dev, dtype=torch.int32)
            wg = wrapper("gather", torch.bfloat16)
            wg.plan(qo_indptr, kv_indptr, compact, kv_lens, H, CKV, KPE, 1, causal, sm_scale,
                    torch.bfloat16, torch.bfloat16)
            view = pool_fp8[:home]

            def original_at(buf):
                def original():
                    kb = buf.to(torch.bfloat16)
                    return w16.run(q_nope, q_pe, kb[:, :, :CKV], kb[:, :, CKV:])
                return original

            def native():
                return w8.run(q_nope, q_pe, view[:, :, :CKV], view[:, :, CKV:], ckv_scale=1.0, kpe_scale=1.0)

            def gather():
                kb = view[kv_indices].to(torch.bfloat16)
                return wg.run(q_nope, q_pe, kb[:, :, :CKV], kb[:, :, CKV:])

            read = compact_read(engine, torch, kv_indices, home)

            def convert():
                return read.convert(view, torch.bfloat16)

            def compact_run():
                kb = read.convert(view, torch.bfloat16)
                return w16.run(q_nope, q_pe, kb[:, :, :CKV], kb[:, :, CKV:])

            kb16 = view.to(torch.bfloat16)

            def bf16():
                return w16.run(q_nope, q_pe, kb16[:, :, :CKV], kb16[:, :, CKV:])

            o_ref, o_nat, o_gat, o_cmp = original_at(view)(), native(), gather(), compact_run()
            result.update(native=timed(native), gather=timed(gather), compact=timed(compact_run),
                          convert=timed(convert), bf16=timed(bf16),
                          max_abs_native=(o_nat.float() - o_ref.float()).abs().max().item(),
                          max_abs_gather=(o_gat.float() - o_ref.float()).abs().max().item(),
                          max_abs_compact=(o_cmp.float() - o_ref.float()).abs().max().item(),
                          original={})
            del kb16
            for pool in pools:
                if pool >= active:
                    result["original"][pool] = timed(original_at(pool_fp8[:pool]))
            cells.append(result)
            origs = " ".join(f"{p}:{t['median']:.4f}" for p, t in result["original"].items())
            print(f"{kind:6} bs={bs:3} q/req={q_per_req:5} ctx={ctx:6} native={result['native']['median']:.4f} "
                  f"gather={result['gather']['median']:.4f} compact={result['compact']['median']:.4f} "
                  f"convert={result['convert']['median']:.4f} bf16={result['bf16']['median']:.4f} "
                  f"orig[{origs}] dN={result['max_abs_native']:.2e} dC={result['max_abs_compact']:.2e}", flush=True)
            del kv_indices, compact
        except Exception as exc:  # keep the grid going; record the failure
            cells.append(dict(result, error=repr(exc)[:300]))
            print(f"{kind} bs={bs} q={q_per_req} ctx={ctx}: {exc!r}"[:300], flush=True)
        with open(args.json, "w") as fh:
            json.dump({"meta": meta, "cast": cast_ms, "cells": cells, "wall_s": time.time() - t_start}, fh, indent=1)
    print(f"wall {time.time() - t_start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
