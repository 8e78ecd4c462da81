"""`castlint validate PATH`: run the original and the fixed backend, prove equal and faster.

Exit codes: 0 every site within tolerance; 1 a site failed (numerics, an error
in the patched code, or --require-native unmet); 2 nothing could be validated
(no torch, no GPU without --device cpu, no FlashInfer, nothing to rewrite).
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional, Sequence

from rich.console import Console

from castlint.common.exit_codes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from castlint.mla_names import READ_ATTR, READ_CLASS

BACKEND_RELPATH = Path("sglang/srt/layers/attention/flashinfer_mla_backend.py")
GUARD_MARKER = f"{READ_CLASS}(".encode()  # what the FlashInfer MLA fix writes into the backend's __init__
PAGED_MARKER = (
    b"read_kv_pages("  # what the paged-read fix (castlint.checks.whole_pool_cast.fix_paged_read) writes at a site
)

# GPU defaults follow the original report; --device cpu runs the reference MLA
# in Python, so it takes small shapes unless told otherwise.
GPU_DEFAULTS = {"pool_tokens": 495552, "batch_size": 1, "context_len": 4096, "iters": 50, "warmup": 5}
CPU_DEFAULTS = {"pool_tokens": 16384, "batch_size": 2, "context_len": 256, "iters": 3, "warmup": 1}


def find_backend(path: Path) -> Optional[Path]:
    """The FlashInfer MLA backend file in an sglang tree (or the file itself)."""
    if path.is_file():
        return path
    for candidate in (
        path / BACKEND_RELPATH,
        path / "python" / BACKEND_RELPATH,
        path / Path(*BACKEND_RELPATH.parts[1:]),
    ):
        if candidate.is_file():
            return candidate
    found = sorted(path.rglob("flashinfer_mla_backend.py"))
    return found[0] if found else None


def _err(console: Console, message: str) -> int:
    console.print(f"[bold red]error:[/] {message}", highlight=False)
    return EXIT_ERROR


class _Refused(Exception):
    """Nothing can be validated; the message says why (exit 2)."""


def run_validate(
    path: str,
    baseline: Optional[str] = None,
    device: str = "cuda",
    preset: Optional[str] = None,
    tp: int = 1,
    pool_tokens: Optional[int] = None,
    batch_size: Optional[int] = None,
    context_len: Optional[int] = None,
    extend_len: int = 32,
    atol: float = 1e-2,
    rtol: float = 1e-2,
    fmt: str = "text",
    flashinfer_api: str = "auto",
    flashinfer_version: Optional[str] = None,
    sites: Optional[Sequence[str]] = None,
    iters: Optional[int] = None,
    warmup: Optional[int] = None,
    mla_backend: Optional[str] = None,
    emulate_flashinfer: Optional[str] = None,
    layer_k_scale: float = 2.0,
    require_native: bool = False,
    profile: bool = True,
    flush_l2: bool = True,
    output_file: Optional[str] = None,
    json_file: Optional[str] = None,
    patched_source: Optional[bytes] = None,
    sweep: bool = False,
    sweep_pools: Optional[Sequence[int]] = None,
    sweep_svg: Optional[str] = None,
    speed_gate: Optional[bool] = None,
    config_file: Optional[str] = None,
    draft_tokens: int = 4,
    no_native: bool = False,
    fix_profile: str = "full",
) -> int:
    """Validate one backend; print the report; return the exit code.

    emulate_flashinfer (--device cpu): the FlashInfer release the reference follows; None: the one
    the newest sglang release of the tables pins. draft_tokens: queries per request of the
    target-verify and draft-extend sites. no_native: the patched backend runs with
    SGLANG_MLA_KV_READ=compact (never the native FP8-KV kernel). fix_profile: the in-memory fix's
    FixOptions.profile (`castlint fix --profile`)."""
    err = Console(stderr=True, highlight=False)
    try:
        _check_read_options(require_native, no_native, draft_tokens)
        target = _target(path, device, fmt)
        config, tables = _settings(target, config_file)
        model = _model(tables, preset, tp)
        original, patched, label, fixed_companions = _sources(
            target, baseline, patched_source, tables, config, flashinfer_api, flashinfer_version, fix_profile
        )
        module_name, companion = _kv_read_module(target, baseline, tables, fixed_companions)
        _import_torch()
        cfg = _harness_config(
            device,
            model,
            tp,
            sites,
            speed_gate,
            sized=dict(
                pool_tokens=pool_tokens, batch_size=batch_size, context_len=context_len, iters=iters, warmup=warmup
            ),
            extend_len=extend_len,
            atol=atol,
            rtol=rtol,
            force_backend=mla_backend,
            emulate_flashinfer=emulate_flashinfer,
            layer_k_scale=layer_k_scale,
            profile=profile,
            flush_l2=flush_l2,
            draft_tokens=draft_tokens,
            native_read=not no_native,
            model_layers=model.layers,
        )
    except _Refused as exc:
        return _err(err, str(exc))
    from castlint.validate.harness import EnvironmentProblem, run_validation

    progress = (lambda msg: err.print(f"[dim]castlint validate: {msg}[/]")) if fmt == "text" else None
    companions = {module_name: companion, tables.kv_read_module["module"]: companion}
    if PAGED_MARKER in patched and GUARD_MARKER not in patched:
        return _run_paged(
            original,
            patched,
            companion,
            module_name,
            target,
            tables,
            cfg,
            model,
            tp,
            sweep,
            sweep_pools,
            dict(pool_tokens=pool_tokens, batch_size=batch_size, context_len=context_len),
            fmt,
            output_file,
            json_file,
            err,
            progress,
        )
    if sweep:
        return _run_sweep(
            original,
            patched,
            cfg,
            str(target),
            sweep_pools,
            json_file,
            sweep_svg,
            output_file,
            fmt,
            err,
            progress,
            tables,
            sites,
            companions,
        )
    try:
        result = run_validation(
            original,
            patched,
            cfg,
            filename=str(target),
            baseline_label=label,
            progress=progress,
            tables=tables,
            companions=companions,
        )
    except EnvironmentProblem as exc:
        return _err(err, str(exc))
    code = _exit_code(result, require_native)
    _write_report(result, fmt, output_file, json_file)
    return code


def _run_paged(
    original,
    patched,
    companion: bytes,
    name: str,
    target: Path,
    tables,
    cfg,
    model,
    tp: int,
    sweep: bool,
    pools,
    sized: dict,
    fmt: str,
    output_file,
    json_file,
    err,
    progress,
) -> int:
    """The paged-read fix (FA3/FA4, xpu, musa): castlint.validate.paged, one cell or the sweep."""
    import json

    from castlint.validate.paged import (
        SWEEP_SHAPES,
        PagedConfig,
        PagedValidationError,
        Shapes,
        passed,
        render_text,
        run_paged_validation,
        sweep_grid,
    )

    defaults = GPU_DEFAULTS if cfg.device == "cuda" else CPU_DEFAULTS
    shapes = Shapes(heads=max(1, model.num_heads // tp), kv_lora_rank=model.kv_lora_rank, rope=model.rope_dim)
    paged_cfg = PagedConfig(
        device=cfg.device,
        iters=min(cfg.iters, 20),
        warmup=cfg.warmup,
        flush_l2=cfg.flush_l2,
        atol=cfg.atol,
        rtol=cfg.rtol,
        shapes=shapes,
    )
    if sweep:
        grid = sweep_grid(
            pools or ((65536, 495552) if cfg.device == "cuda" else (4096,)),
            (1, 64) if cfg.device == "cuda" else (1, 16),
            SWEEP_SHAPES if cfg.device == "cuda" else ((1, 256), (2, 512)),
        )
    else:
        value = {k: sized[k] if sized[k] is not None else defaults[k] for k in sized}
        grid = [(value["pool_tokens"], 1, value["batch_size"], value["context_len"])]
    try:
        result = run_paged_validation(
            original, patched, companion, name, paged_cfg, grid, filename=str(target), progress=progress
        )
    except PagedValidationError as exc:
        return _err(err, str(exc))
    text = json.dumps(result, indent=1) if fmt == "json" else render_text(result)
    if output_file:
        Path(output_file).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if json_file:
        Path(json_file).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return EXIT_CLEAN if passed(result) else EXIT_FINDINGS


def _kv_read_module(target: Path, baseline, tables, fixed: Optional[dict]):
    """(the name the patched file imports it by, its source): the module the MLA fixes add, as
    the in-memory fix made it, as the patched tree holds it, or (for a patched file given
    alone) as castlint writes it."""
    from castlint.common.paths import module_location

    name = tables.kv_read_module["module"]
    location, import_name = module_location(str(target), name)
    stem = name.rsplit(".", 1)[-1] + ".py"
    for path, data in (fixed or {}).items():
        if Path(path).name == stem:
            return import_name, data
    if baseline and Path(location).is_file():
        return import_name, Path(location).read_bytes()
    try:
        from castlint.fixes.kv_read_module import module_source
    except ImportError as exc:  # libcst missing where only validate was installed
        raise _Refused(
            f"cannot build the module the fix adds here ({exc}); fix elsewhere and pass --baseline"
        ) from None
    return import_name, module_source(tables).encode("utf-8")


def _check_read_options(require_native: bool, no_native: bool, draft_tokens: int) -> None:
    if require_native and no_native:
        raise _Refused(
            "--require-native and --no-native contradict each other: --no-native turns the native FP8-KV read off"
        )
    if draft_tokens < 1:
        raise _Refused(f"--draft-tokens must be at least 1, got {draft_tokens}")


def _target(path: str, device: str, fmt: str) -> Path:
    """The backend file to validate, once the options are known to be sound."""
    if device not in ("cuda", "cpu"):
        raise _Refused(f"--device must be cuda or cpu, got {device!r}")
    if fmt not in ("text", "json"):
        raise _Refused(f"--format must be text or json, got {fmt!r}")
    target = find_backend(Path(path))
    if target is None:
        raise _Refused(f"no flashinfer_mla_backend.py under {path}")
    return target


def _settings(target: Path, config_file: Optional[str]):
    """(config, tables) of the run: builtin tables + the nearest (or given) config's extend-rules."""
    from castlint.session import CommandLine, Session, SessionError

    try:
        return Session(CommandLine(config_file=config_file), [str(target)]).settings()
    except SessionError as exc:
        raise _Refused(str(exc)) from None


def _model(tables, preset: Optional[str], tp: int):
    """The model preset (castlint.tables.ModelPreset) whose attention shapes the inputs."""
    preset_name = preset or tables.default_preset
    model = tables.presets.get(preset_name)
    if model is None:
        raise _Refused(f"unknown preset {preset_name!r} (have: {', '.join(sorted(tables.presets))})")
    if tp < 1 or model.num_heads % tp:
        raise _Refused(f"--tp {tp} does not divide the {model.num_heads} heads of {preset_name}")
    return model


def _sources(
    target: Path,
    baseline: Optional[str],
    patched_source: Optional[bytes],
    tables,
    config,
    flashinfer_api: str,
    flashinfer_version: Optional[str],
    fix_profile: str = "full",
):
    """(original bytes, patched bytes, how the two were paired, the modules the in-memory fix adds)."""
    if baseline:
        base_path = find_backend(Path(baseline))
        if base_path is None:
            raise _Refused(f"no flashinfer_mla_backend.py under --baseline {baseline}")
        original = base_path.read_bytes()
        patched = patched_source if patched_source is not None else target.read_bytes()
        label = f"--baseline {base_path} (original) vs {target} (patched)"
        companions = None
    else:
        original = target.read_bytes()
        if GUARD_MARKER in original and patched_source is None:
            raise _Refused(
                f"{target} already carries castlint's rewrite; pass the unpatched file with "
                "--baseline ORIGINAL to validate it"
            )
        companions = None
        if patched_source is not None:
            patched, label = patched_source, "given patched source"
        else:
            patched, companions = _fixed_in_memory(
                original, target, tables, config, flashinfer_api, flashinfer_version, fix_profile
            )
            label = f"`castlint fix` applied in memory (--flashinfer-api {flashinfer_api}, --profile {fix_profile})"
    if patched == original:
        raise _Refused(f"castlint fix makes no change to {target}: nothing to validate")
    return original, patched, label, companions


def _fixed_in_memory(
    original: bytes,
    target: Path,
    tables,
    config,
    flashinfer_api: str,
    flashinfer_version: Optional[str],
    fix_profile: str = "full",
):
    """`castlint fix` applied to the original's bytes, and the modules it adds (nothing is written)."""
    try:
        from castlint.fixes import FixError, FixOptions, fix_source
    except ImportError as exc:  # libcst missing where only validate was installed
        raise _Refused(f"cannot run castlint fix here ({exc}); fix elsewhere and pass --baseline") from None
    try:
        fixed = fix_source(
            original,
            str(target),
            tables,
            FixOptions(flashinfer_api=flashinfer_api, flashinfer_version=flashinfer_version, profile=fix_profile),
            config=config,
        )
    except FixError as exc:
        raise _Refused(f"castlint fix failed on {target}: {exc}") from None
    return fixed.new_source, fixed.companions


def _import_torch() -> None:
    os.environ.setdefault("KINETO_LOG_LEVEL", "5")  # torch.profiler: no banner lines on stderr
    try:
        import torch  # noqa: F401
    except ImportError:
        raise _Refused(
            "castlint validate needs PyTorch: pip install 'castlint[validate]' "
            "(on a machine without a GPU, the CPU build: pip install torch --index-url "
            "https://download.pytorch.org/whl/cpu)"
        ) from None


def _harness_config(
    device: str, model, tp: int, sites: Optional[Sequence[str]], speed_gate: Optional[bool], sized: dict, **options
):
    """The HarnessConfig: `sized` options left None take the device's defaults; `options` pass as they are."""
    from castlint.validate.harness import SITES, HarnessConfig

    defaults = GPU_DEFAULTS if device == "cuda" else CPU_DEFAULTS
    chosen = tuple(sites) if sites else SITES
    unknown = [s for s in chosen if s not in SITES]
    if unknown:
        raise _Refused(f"unknown site(s) {', '.join(unknown)} (have: {', '.join(SITES)})")
    cfg = HarnessConfig(
        device=device,
        preset=model.name,
        num_heads_total=model.num_heads,
        tp=tp,
        kv_lora_rank=model.kv_lora_rank,
        rope_dim=model.rope_dim,
        **{key: value or defaults[key] for key, value in sized.items()},
        **options,
        sites=chosen,
        speed_gate=(device == "cuda") if speed_gate is None else speed_gate,
    )
    if cfg.extend_len >= cfg.context_len:
        raise _Refused(f"--extend-len {cfg.extend_len} must be below --context-len {cfg.context_len}")
    return cfg


def _exit_code(result, require_native: bool) -> int:
    """1 when a site failed or --require-native is unmet (which the result then records)."""
    code = EXIT_CLEAN if result.passed else EXIT_FINDINGS
    decided = result.guard.get(READ_ATTR)
    # the guard's answer: None (the original cast), or a dict, whose "native" (where it says) tells
    # whether this machine's FlashInfer has the FP8-KV kernel at all
    if require_native and not (isinstance(decided, dict) and decided.get("native", True) is not False):
        code = EXIT_FINDINGS
        result.guard["require_native"] = "unmet: the patched code cannot read the pool natively on this machine"
    if require_native:
        for site in result.sites:
            if site.patched.proof and site.patched.proof.moves_whole_pool:
                code = EXIT_FINDINGS
                site.reasons.append("--require-native: the patched path still materialises the whole pool")
    return code


def _write_report(result, fmt: str, output_file: Optional[str], json_file: Optional[str]) -> None:
    from castlint.validate.report import render_json, render_text

    if json_file:
        Path(json_file).write_text(render_json(result), encoding="utf-8")
    if fmt == "json":
        text = render_json(result)
        if output_file:
            Path(output_file).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
    elif output_file:
        with open(output_file, "w", encoding="utf-8") as fh:
            render_text(result, Console(file=fh, width=160, highlight=False))
    else:
        console = Console(highlight=False)
        if not console.is_terminal and not os.environ.get("COLUMNS", "").strip().isdigit():
            console = Console(highlight=False, width=160)  # a pipe: wide, unless COLUMNS says otherwise
        render_text(result, console)


def _run_sweep(
    original,
    patched,
    cfg,
    filename,
    pools,
    json_file,
    svg_file,
    output_file,
    fmt,
    err,
    progress,
    tables,
    sites=None,
    companions=None,
) -> int:
    """--sweep: every cell of the grid (the given sites only); exit 1 if any cell is slower beyond its
    margin or off tolerance."""
    from castlint.validate.harness import EnvironmentProblem, environment
    from castlint.validate.sweep import grid, heatmap_svg, markdown, passed, run_sweep, to_json, verdict

    cells = grid(cfg.device, pools, sites, native=cfg.native_read)
    if not cells:
        return _err(err, "the sweep has no cell that fits the given pools")
    if cfg.device == "cuda":
        cfg = replace(cfg, iters=min(cfg.iters, 20))
    try:
        done = run_sweep(
            original,
            patched,
            cfg,
            filename=filename,
            cells=cells,
            say=progress or (lambda m: None),
            tables=tables,
            companions=companions,
        )
    except EnvironmentProblem as exc:
        return _err(err, str(exc))
    env = environment(cfg, None) if cfg.device == "cuda" else {"device": "cpu"}
    text = to_json(done, env) if fmt == "json" else f"{markdown(done)}\n\n{verdict(done)}\n"
    if output_file:
        Path(output_file).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if json_file:
        Path(json_file).write_text(to_json(done, env), encoding="utf-8")
    if svg_file:
        title = f"{Path(filename).name}: FlashInfer {env.get('flashinfer', '-')}, {env.get('gpu', cfg.device)}"
        Path(svg_file).write_text(heatmap_svg(done, title), encoding="utf-8")
    return EXIT_CLEAN if passed(done) else EXIT_FINDINGS
