"""Pool-size and context-length sweeps of the original vs the castlint-patched backend.

Each point is a full `castlint validate` run of one site (decode by default: the
user's forward_decode and its indices updater, FlashInfer's real kernels; --site
takes any validate site, target-verify and draft-extend included), plus the
bare whole-pool cast timed on its own for reference. It shows that the
original's cost grows with the pool while the patched cost follows only the
active tokens.

    python benchmarks/validate_sweep.py --baseline ORIGINAL.py PATCHED.py \
        --preset deepseek-r1 --tp 8 --json $OUT/sweep.json

(`--device cpu` runs the same points against the reference MLA, for a dry run.)
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

POOLS = (65536, 131072, 495552, 1048576)
CONTEXTS = (1024, 4096, 16384, 65536)
SITES = ("decode", "decode-cuda-graph", "extend-paged", "target-verify", "target-verify-cuda-graph", "draft-extend",
         "draft-extend-cuda-graph")  # castlint.validate.harness.SITES (kept here: --help needs no torch)


def _cast_alone_ms(pool_tokens: int, cfg, torch) -> float:
    """The whole-pool FP8 -> BF16 cast by itself, timed like the sites."""
    from castlint.validate.harness import time_call

    buf = torch.zeros((pool_tokens + 1, 1, cfg.kv_lora_rank + cfg.rope_dim), dtype=torch.uint8, device=cfg.device)
    fp8 = buf.view(torch.float8_e4m3fn)
    timing = time_call(lambda: fp8.to(torch.bfloat16), cfg)
    del buf, fp8
    return timing.median_ms


def run_point(original: bytes, patched: bytes, filename: str, cfg, torch) -> dict:
    from castlint.validate.harness import run_validation

    t0 = time.time()
    result = run_validation(original, patched, cfg, filename=filename, baseline_label="sweep")
    site = result.sites[0]
    point = {
        "pool_tokens": cfg.pool_tokens, "context_len": cfg.context_len, "batch_size": cfg.batch_size,
        "heads": cfg.heads, "site": site.name, "status": site.status, "reasons": site.reasons,
        "original_ms": site.original.timing.median_ms if site.original.timing else None,
        "patched_ms": site.patched.timing.median_ms if site.patched.timing else None,
        "speedup": site.speedup, "max_abs": site.max_abs, "cosine": site.cosine, "read": site.patched.read,
        "saved_ms_per_step": (site.per_step(cfg.model_layers) or {}).get("saved_ms"),
        "guard": result.guard.get("branch"),
        "backend": sorted({p.get("backend") for p in site.patched.plans}),
        "wall_s": round(time.time() - t0, 1),
    }
    point["cast_alone_ms"] = _cast_alone_ms(cfg.pool_tokens, cfg, torch)
    if cfg.device == "cuda":
        torch.cuda.empty_cache()
    return point


def markdown(points, key: str) -> str:
    rows = [f"| {key.replace('_', ' ')} | whole-pool cast alone | original (cast + BF16 MLA) | patched (native FP8 MLA) "
            "| speed-up | max abs diff | status |", "|---|---|---|---|---|---|---|"]
    for p in points:
        fmt = lambda v: "-" if v is None else f"{v:.4f} ms"  # noqa: E731
        rows.append(f"| {p[key]:,} | {fmt(p['cast_alone_ms'])} | {fmt(p['original_ms'])} | {fmt(p['patched_ms'])} | "
                    f"{'-' if p['speedup'] is None else '%.1fx' % p['speedup']} | "
                    f"{'-' if p['max_abs'] is None else '%.3g' % p['max_abs']} | {p['status']} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("patched", help="the patched flashinfer_mla_backend.py")
    ap.add_argument("--baseline", required=True, help="the original flashinfer_mla_backend.py")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--preset", default="deepseek-r1")
    ap.add_argument("--tp", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=1)
    ap.add_argument("--pools", default=",".join(map(str, POOLS)))
    ap.add_argument("--contexts", default=",".join(map(str, CONTEXTS)))
    ap.add_argument("--sweep-pool-context", type=int, default=4096, help="context length for the pool sweep")
    ap.add_argument("--sweep-context-pool", type=int, default=495552, help="pool size for the context sweep")
    ap.add_argument("--site", default="decode", choices=SITES)
    ap.add_argument("--draft-tokens", type=int, default=4, help="target-verify / draft-extend: queries per request")
    ap.add_argument("--no-native", action="store_true", help="the patched backend with SGLANG_MLA_KV_READ=compact")
    ap.add_argument("--mla-backend", default=None, help="force fa2/fa3 instead of the file's 'auto'")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--json", default=None, help="write all points here")
    args = ap.parse_args(argv)

    import torch

    from castlint.tables import load_tables
    from castlint.validate.harness import HarnessConfig

    tables = load_tables()
    model = tables.presets[args.preset]
    original = Path(args.baseline).read_bytes()
    patched = Path(args.patched).read_bytes()

    def cfg(pool, ctx):
        return HarnessConfig(device=args.device, preset=args.preset, num_heads_total=model.num_heads, tp=args.tp,
                             kv_lora_rank=model.kv_lora_rank, rope_dim=model.rope_dim, pool_tokens=pool,
                             batch_size=args.batch_size, context_len=ctx, sites=(args.site,), profile=False,
                             iters=args.iters, warmup=3, force_backend=args.mla_backend, draft_tokens=args.draft_tokens,
                             native_read=not args.no_native, model_layers=model.layers)

    out = {"command": " ".join(sys.argv), "python": platform.python_version(), "torch": torch.__version__}
    if args.device == "cuda":
        import flashinfer

        out.update(gpu=torch.cuda.get_device_name(0), cc=".".join(map(str, torch.cuda.get_device_capability(0))),
                   flashinfer=flashinfer.__version__)
    pools = [int(x) for x in args.pools.split(",") if x]
    contexts = [int(x) for x in args.contexts.split(",") if x]
    out["pool_sweep"] = []
    for pool in pools:
        point = run_point(original, patched, args.patched, cfg(pool, args.sweep_pool_context), torch)
        out["pool_sweep"].append(point)
        print(json.dumps(point), flush=True)
    out["context_sweep"] = []
    for ctx in contexts:
        point = run_point(original, patched, args.patched, cfg(args.sweep_context_pool, ctx), torch)
        out["context_sweep"].append(point)
        print(json.dumps(point), flush=True)
    text = (f"## pool sweep (context {args.sweep_pool_context}, batch {args.batch_size})\n\n"
            + markdown(out["pool_sweep"], "pool_tokens")
            + f"\n\n## context sweep (pool {args.sweep_context_pool:,}, batch {args.batch_size})\n\n"
            + markdown(out["context_sweep"], "context_len") + "\n")
    out["markdown"] = text
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))
    bad = [p for p in out["pool_sweep"] + out["context_sweep"] if p["status"] != "pass"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
