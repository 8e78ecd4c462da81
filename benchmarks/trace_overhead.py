"""What `castlint trace` costs: per dispatched op, and on the decode step of `castlint validate`'s harness.

    python benchmarks/trace_overhead.py --json out.json                 # CUDA if available, else CPU
    python benchmarks/trace_overhead.py --device cpu --json cpu.json

On CUDA it runs sglang's FlashInfer MLA backend (the original file and the
fixed one) on the real FlashInfer, through the same decode site as
`castlint validate` (init_forward_metadata -> plan -> forward_decode; see
castlint/validate/harness.py), with the tracer off and on: the median host
time to issue one forward_decode, and the median wall time of one call
(synchronised), over --repeats calls after --warmup. It also reports what the
tracer saw on each file. On CPU the pure-torch reference MLA stands in for
FlashInfer (small shapes); the same numbers are measured.

Per-op: --ops calls of a tiny op (the fast path every op takes) and of
`torch.empty_like(pool)` with a pool above the threshold (the slow path: an
input above the threshold, so the tracer looks for a conversion helper on the
innermost Python frames, and a new storage above it, which it records), off,
on, and under an empty TorchDispatchMode (what torch itself charges for any
Python dispatch mode); per aten op.

Needs torch (and FlashInfer on CUDA); not libcst when --patched is given.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import torch  # noqa: E402

import castlint.trace as ct  # noqa: E402
from castlint.trace.table import parse_threshold  # noqa: E402

DEFAULT_ORIGINAL = Path.home() / ".cache" / "castlint" / "src" / "0.5.23" / "sglang"


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def per_op(device: str, n: int, threshold: int, repeats: int = 5) -> dict:
    """Microseconds per op: off, on, and the difference, for the fast and the slow path."""
    small = torch.zeros(16, device=device)
    pool = torch.zeros(max(threshold, 1 << 20) + 4096, dtype=torch.uint8, device=device)

    def fast():
        for _ in range(n):
            small.add_(1)

    def slow():
        for _ in range(n):
            torch.empty_like(pool)

    from torch.utils._python_dispatch import TorchDispatchMode

    class Empty(TorchDispatchMode):  # torch's own cost of a Python dispatch mode, for reference
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    out = {}
    for name, fn in (("fast_path_add_", fast), ("slow_path_empty_like_pool", slow)):
        times = {"off": [], "on": [], "empty": []}
        for _ in range(repeats):
            for mode in ("off", "on", "empty"):
                _sync(device)
                if mode != "off":
                    with (ct.watch(threshold, static=False) if mode == "on" else Empty()):
                        t0 = time.perf_counter()
                        fn()
                        _sync(device)
                        dt = time.perf_counter() - t0
                else:
                    t0 = time.perf_counter()
                    fn()
                    _sync(device)
                    dt = time.perf_counter() - t0
                times[mode].append(dt / n * 1e6)
        counter = ct.watch(threshold, static=False)
        with counter:
            fn()
        per_call = counter.tracer.ops_seen / n  # aten ops one Python call dispatches
        off, on, empty = (statistics.median(times[k]) / per_call for k in ("off", "on", "empty"))
        out[name] = {"off_us_per_op": round(off, 3), "on_us_per_op": round(on, 3),
                     "overhead_us_per_op": round(on - off, 3), "empty_mode_us_per_op": round(empty, 3),
                     "castlint_share_us_per_op": round(on - empty, 3), "aten_ops_per_call": per_call,
                     "calls": n, "repeats": repeats}
    return out


def _source(path: str) -> tuple:
    from castlint.validate.command import find_backend

    found = find_backend(Path(path))
    if found is None:
        raise SystemExit(f"no flashinfer_mla_backend.py under {path}")
    return found, found.read_bytes()


def _patched(original_path: Path, original: bytes, given: str) -> tuple:
    if given:
        return _source(given)
    from castlint.fixes import FixOptions, fix_source  # needs libcst
    from castlint.tables import load_tables

    fixed = fix_source(original, str(original_path), load_tables(), FixOptions()).new_source
    target = Path(os.environ.get("TMPDIR", "/tmp")) / "castlint-trace-fixed-flashinfer_mla_backend.py"
    target.write_bytes(fixed)
    return target, fixed


def _time_calls(call, device: str, repeats: int, warmup: int, watcher=None) -> dict:
    for _ in range(warmup):
        call(False)
    _sync(device)
    host, wall = [], []
    for _ in range(repeats):
        if watcher is not None:
            watcher.step()
        _sync(device)
        t0 = time.perf_counter()
        call(False)
        t1 = time.perf_counter()
        _sync(device)
        t2 = time.perf_counter()
        host.append((t1 - t0) * 1e3)
        wall.append((t2 - t0) * 1e3)
    return {"host_ms_median": round(statistics.median(host), 4), "wall_ms_median": round(statistics.median(wall), 4),
            "wall_ms_p10": round(sorted(wall)[len(wall) // 10], 4), "wall_ms_p90": round(sorted(wall)[(9 * len(wall)) // 10], 4),
            "n": repeats}


def decode(args, device: str, threshold: int) -> dict:
    from castlint.trace.validate_drive import DecodeSession, harness_config

    original_path, original = _source(args.original)
    patched_path, patched = _patched(original_path, original, args.patched)
    shapes = {k: v for k, v in (("pool_tokens", args.pool_tokens), ("batch_size", args.batch_size),
                                ("context_len", args.context_len)) if v}
    if device == "cpu" and not shapes:
        shapes = dict(pool_tokens=16384, batch_size=2, context_len=256)  # `validate --device cpu`'s defaults
    cfg = harness_config(device, args.preset, args.tp, **shapes)
    if args.mla_backend:
        cfg.force_backend = args.mla_backend
    out = {"config": {"preset": args.preset, "tp": args.tp, "heads": cfg.heads, "pool_tokens": cfg.pool_tokens,
                      "batch_size": cfg.batch_size, "context_len": cfg.context_len,
                      "arena_bytes": (cfg.pool_tokens + 1) * (cfg.kv_lora_rank + cfg.rope_dim),
                      "original": str(original_path), "patched": str(patched_path)}}
    with DecodeSession({"original": (original_path, original), "patched": (patched_path, patched)}, cfg) as s:
        out["guard"] = json.loads(json.dumps(s.guards["patched"], default=repr))
        out["read_modes"] = s.read_modes
        for label in ("original", "patched"):
            call = s.calls[label]
            call(True)  # the real step: write the new token, then attend
            _sync(device)
            row = {}
            # alternate off/on blocks so that drift (clocks, other load) hits both
            offs, ons = [], []
            watcher = None
            for block in range(args.blocks):
                offs.append(_time_calls(call, device, args.repeats, args.warmup))
                watcher = ct.watch(threshold, path_map=s.path_map, pools=s.pools, static=False)
                with watcher:
                    ons.append(_time_calls(call, device, args.repeats, args.warmup, watcher))
            for name, runs in (("off", offs), ("on", ons)):
                row[name] = {key: round(statistics.median(r[key] for r in runs), 4)
                             for key in ("host_ms_median", "wall_ms_median", "wall_ms_p10", "wall_ms_p90")}
                row[name]["n"] = sum(r["n"] for r in runs)
            row["overhead_host_ms"] = round(row["on"]["host_ms_median"] - row["off"]["host_ms_median"], 4)
            row["overhead_wall_ms"] = round(row["on"]["wall_ms_median"] - row["off"]["wall_ms_median"], 4)
            counter = ct.watch(threshold, path_map=s.path_map, pools=s.pools, static=False)
            with counter:
                counter.step()
                call(False)
                _sync(device)
            row["ops_per_call"] = counter.tracer.ops_seen
            row["sites"] = counter.sites
            out[label] = row
    return out


def environment(device: str) -> dict:
    env = {"python": platform.python_version(), "torch": torch.__version__, "device": device,
           "cpu": platform.processor() or platform.machine(), "cpu_count": os.cpu_count()}
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name(0)
        env["cuda"] = torch.version.cuda
        try:
            import flashinfer

            env["flashinfer"] = getattr(flashinfer, "__version__", "?")
        except Exception as exc:  # noqa: BLE001
            env["flashinfer"] = f"not importable: {exc}"
    return env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto")
    parser.add_argument("--original", default=str(DEFAULT_ORIGINAL),
                        help="sglang tree or flashinfer_mla_backend.py (default: the 0.5.23 test cache)")
    parser.add_argument("--patched", default="", help="the fixed tree/file (default: castlint fix in memory; needs libcst)")
    parser.add_argument("--preset", default="deepseek-r1")
    parser.add_argument("--tp", type=int, default=8)
    parser.add_argument("--pool-tokens", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=0)
    parser.add_argument("--context-len", type=int, default=0)
    parser.add_argument("--mla-backend", default="", help="force fa2/fa3 (default: the file's 'auto')")
    parser.add_argument("--threshold", default="", help="default 64MiB on CUDA, 1MiB on CPU (small pools)")
    parser.add_argument("--repeats", type=int, default=50, help="timed calls per block")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--blocks", type=int, default=3, help="alternating off/on blocks")
    parser.add_argument("--ops", type=int, default=20000, help="calls per per-op measurement")
    parser.add_argument("--no-decode", action="store_true", help="only the per-op numbers")
    parser.add_argument("--json", default="", help="write the results here")
    args = parser.parse_args(argv)
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    threshold = parse_threshold(args.threshold or ("64MiB" if device == "cuda" else "1MiB"))
    result = {"environment": environment(device), "threshold": threshold}
    result["per_op"] = per_op(device, args.ops, threshold)
    if not args.no_decode:
        result["decode"] = decode(args, device, threshold)
    text = json.dumps(result, indent=2)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
