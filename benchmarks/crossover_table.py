"""Fit the read-path cost model of rules/costs_h200.toml from a crossover grid, and check it.

    python benchmarks/crossover_table.py benchmarks/results/h200/crossover/crossover-fi0.6.18.json

Fits, by least squares over the grid of benchmarks/mla_crossover.py (H200, L2 flushed):
  cast(P)      = cast_ms_per_pool_token * P                  (the whole-pool cast)
  gather(N)    = gather_ms + gather_ms_per_token * N         (gather + cast of the N rows read)
  native(N, Q) = native_ms + native_ms_per_token_query * N*Q (the FP8-KV kernel, fitted where Q <= 8)
  bf16(N, Q)   = bf16_ms_per_token_query * N*Q               (the BF16 kernel after either conversion)
  convert(N)   = compact_ms + compact_ms_per_row * N         (the fused conversion, [compact_kv_read])
then replays the decision rule the fix emits on every measured cell and pool, and
prints each cell where the chosen path is slower than the original beyond 5 %.
"""
import json
import sys


def fit(points):
    """Least squares y = a + b*x."""
    n = len(points)
    sx = sum(x for x, _ in points); sy = sum(y for _, y in points)
    sxx = sum(x * x for x, _ in points); sxy = sum(x * y for x, y in points)
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return (sy - b * sx) / n, b


def model(data):
    cast = {int(k): v["median"] for k, v in data["cast"].items()}
    cells = [c for c in data["cells"] if "error" not in c]
    per_token = max(cast[p] / p for p in cast)
    gather, native = [], []
    for c in cells:
        n, q = c["kv_tokens"], c["q_per_request"]
        pool = min(int(p) for p in c["original"])
        bf16 = c["original"][str(pool)]["median"] - cast[pool]
        gather.append((n, c["gather"]["median"] - bf16))
        if q <= 8:  # the small-query regime where the FP8-KV kernel can win
            native.append((n * q, c["native"]["median"]))
    g0, g1 = fit(gather)
    n0, n1 = fit(native)
    bf16 = [(c["kv_tokens"] * c["q_per_request"], c["original"][str(min(int(p) for p in c["original"]))]["median"]
             - cast[min(int(p) for p in c["original"])]) for c in cells]
    result = {"cast_ms_per_pool_token": per_token, "gather_ms": max(g0, 0.0), "gather_ms_per_token": g1,
              "native_ms": max(n0, 0.0), "native_ms_per_token_query": n1,
              "bf16_ms_per_token_query": fit(bf16)[1]}
    if all("convert" in c for c in cells):  # the fused conversion ([compact_kv_read])
        c0, c1 = fit([(c["kv_tokens"], c["convert"]["median"]) for c in cells])
        result.update(compact_ms=max(c0, 0.0), compact_ms_per_row=c1)
    return result


def choose(m, decode, pool, n, q, margin=0.8):
    """The eager rule the fix emits (fixes/templates/mla_kv_read.py: _mla_kv_read_kind), with the
    fused conversion where the grid measured it, else the torch gather."""
    original = m["cast_ms_per_pool_token"] * pool
    if "compact_ms" in m:
        converted, compact = m["compact_ms"] + m["compact_ms_per_row"] * n, "compact"
    else:
        converted, compact = m["gather_ms"] + m["gather_ms_per_token"] * n, "gather"
    attention = m["bf16_ms_per_token_query"] * n * q
    if m["native_ms"] + m["native_ms_per_token_query"] * n * q < margin * (min(original, converted) + attention):
        return "native"
    return compact if converted < margin * original else "cast"


def main(path):
    data = json.load(open(path))
    m = model(data)
    print(json.dumps({"flashinfer": data["meta"]["flashinfer"], "gpu": data["meta"]["gpu"], **m}, indent=1))
    worst = 1.0
    for c in data["cells"]:
        if "error" in c:
            continue
        for pool, orig in c["original"].items():
            mode = choose(m, c["kind"] == "decode", int(pool), c["kv_tokens"], c["q_per_request"])
            t = {"native": c["native"], "gather": c["gather"], "compact": c.get("compact"), "cast": orig}[mode]["median"]
            ratio = orig["median"] / t
            worst = min(worst, ratio)
            if ratio < 0.95:
                print(f"LOSS {c['kind']} bs={c['batch']} q={c['q_per_request']} ctx={c['context']} pool={pool}: "
                      f"{mode} {t:.4f} vs original {orig['median']:.4f}")
    print(f"worst speed-up of the chosen path over the original: {worst:.3f}x")


if __name__ == "__main__":
    main(sys.argv[1])
