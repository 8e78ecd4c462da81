"""The compact conversion kernel of the module the MLA fixes add, against the whole-pool cast.

One kernel serves both reads (castlint/fixes/templates/mla_kv_read.py `_convert_kernel`):
the FlashInfer MLA fix converts the rows a plan reads at their own positions (a row list
with a device-side count), the paged read (FA3/FA4, xpu, musa) converts the pages a page
table lists into compact slots. This times both on the GPU, side by side with
`pool.to(bf16)`, over row counts from 1K to the whole pool, checks the converted rows
bit for bit, and fits fixed + per-row ms for rules/costs_h200.toml [compact_kv_read].

    python benchmarks/compact_convert.py PATH/TO/mla_kv_read.py --json out.json

PATH is the module as a fixed tree holds it (its sglang imports are doubled here).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import types


def load(path):
    import os

    for name in ("sglang", "sglang.srt"):
        sys.modules.setdefault(name, types.ModuleType(name))
    variable = types.SimpleNamespace(get=lambda: os.environ.get("SGLANG_MLA_KV_READ"))
    environ = types.ModuleType("sglang.srt.environ")
    environ.envs = types.SimpleNamespace(SGLANG_MLA_KV_READ=variable)
    sys.modules.setdefault("sglang.srt.environ", environ)
    spec = importlib.util.spec_from_file_location("mla_kv_read_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(fn, iters=30, warmup=5):
    import torch

    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return {"median_ms": statistics.median(times), "p10_ms": times[len(times) // 10],
            "p90_ms": times[(9 * len(times)) // 10]}


def main():
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--pool", type=int, default=495552)
    ap.add_argument("--json")
    args = ap.parse_args()
    kv = load(args.module)
    assert kv._CONVERT is not None, "Triton is needed"
    g = torch.Generator(device="cuda").manual_seed(0)
    pool = (torch.randn(args.pool, 1, 576, device="cuda", generator=g) * 0.5).to(torch.float8_e4m3fn)
    cells = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "pool": args.pool,
             "cast": timed(lambda: pool.to(torch.bfloat16)), "rows": [], "pages": []}
    lut = kv._lut(pool, torch.bfloat16)
    for n in (1024, 4096, 16384, 65536, 262144, args.pool):
        rows = torch.randperm(args.pool, device="cuda", generator=g)[:n].to(torch.int32)
        buffer = torch.zeros(args.pool, dtype=torch.int32, device="cuda")
        buffer[:n] = rows
        count = torch.full((1,), n, dtype=torch.int32, device="cuda")
        read = kv.KvRead("compact", buffer, count, n, lut)
        out = read.convert(pool, torch.bfloat16)
        exact = torch.equal(out[rows.long()].view(torch.int16), pool[rows.long()].to(torch.bfloat16).view(torch.int16))
        cells["rows"].append({"rows": n, "exact": exact, **timed(lambda: read.convert(pool, torch.bfloat16))})
        print(f"rows {n:>7}: {cells['rows'][-1]['median_ms']:.4f} ms (cast {cells['cast']['median_ms']:.4f}) "
              f"exact={exact}", flush=True)
    for page_size, batch, context in ((1, 1, 4096), (16, 1, 4096), (64, 32, 4096), (1, 64, 4096), (128, 8, 32768)):
        pages = args.pool // page_size
        width = (context + page_size - 1) // page_size
        table = torch.randint(0, pages, (batch, width), device="cuda", generator=g, dtype=torch.int32)
        seqlens = torch.full((batch,), context, dtype=torch.int32, device="cuda")
        paged = pool[: pages * page_size]
        got, remapped = kv.read_kv_pages(paged, torch.bfloat16, table, seqlens, page_size)
        view, whole = got.view(-1, page_size, 1, 576), paged.to(torch.bfloat16).view(-1, page_size, 1, 576)
        exact = torch.equal(view[remapped.long()].view(torch.int16), whole[table.long()].view(torch.int16))
        cell = {"page_size": page_size, "batch": batch, "context": context, "exact": exact,
                **timed(lambda: kv.read_kv_pages(paged, torch.bfloat16, table, seqlens, page_size))}
        cells["pages"].append(cell)
        print(f"pages ps{page_size} bs{batch} ctx{context}: {cell['median_ms']:.4f} ms exact={exact}", flush=True)
    small = [c for c in cells["rows"] if c["rows"] <= 262144]
    xs, ys = [c["rows"] for c in small], [c["median_ms"] for c in small]
    mean_x, mean_y = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
    cells["fit"] = {"ms": max(0.0, mean_y - slope * mean_x), "ms_per_row": slope,
                    "cast_ms_per_pool_row": cells["cast"]["median_ms"] / args.pool}
    print(json.dumps(cells["fit"]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(cells, fh, indent=1)


if __name__ == "__main__":
    main()
