"""Drive the decode step of `castlint validate`'s harness, for tracing it.

`DecodeSession` loads one or more versions of sglang's FlashInfer MLA backend
(the user's bytes, executed under the validate import doubles, see
castlint/validate/loader.py), builds the shared FP8 pool and page table
(harness.World) and one backend per version (harness.SiteDriver), and prepares
the `decode` site: init_forward_metadata -> the updater's plan -> then
`calls[label](save_kv_cache)` runs forward_decode. On CPU the pure-torch
reference stands in for FlashInfer and the module sees an emulated SM90 with
the FlashInfer that the newest sglang release of the tables pins (0.7.2 with
the builtin rules), so the fixed backend's decode plan reads the FP8 pool
natively (`read_modes`: "decode_wrapper=native"); on a GPU the real FlashInfer
runs. The tables (presets, the emulated FlashInfer's contract, the fix) are
the builtin ones plus the extend-rules of the config nearest the backend.

Code objects of the loaded modules are named "<file> (<label>)"; they are
mapped back to the files for every tracer (castlint.trace.runtime.map_path).

As a program, for `castlint trace`:

    castlint trace --threshold 1MiB -- python -m castlint.trace.validate_drive sglang/ --fixed

runs two decode steps of the release's backend, and of `castlint fix`'s
rewrite of it (--fixed; or --patched FILE), through the CPU harness (--device
cuda: the real FlashInfer).
"""

from __future__ import annotations

from typing import Dict, Optional

import torch

from castlint.trace.runtime import map_path
from castlint.validate.doubles import Registry
from castlint.validate.doubles.flashinfer import FlashInferEmulation, make_flashinfer_module
from castlint.validate.harness import HarnessConfig, SiteDriver, World, default_companions, run_tables, runtime_settings
from castlint.validate.loader import load_backend, stubbed_imports

CPU_SHAPES = dict(pool_tokens=2048, batch_size=2, context_len=96)


def harness_config(
    device: str = "cpu", preset: str = "deepseek-r1", tp: int = 8, tables=None, **overrides
) -> HarnessConfig:
    """A HarnessConfig from a preset of the tables (rules/models.toml and extend-rules; None:
    the builtin tables), like `castlint validate` builds it."""
    model = run_tables(tables).presets[preset]
    shapes = dict(CPU_SHAPES) if device == "cpu" else dict(pool_tokens=495552, batch_size=1, context_len=4096)
    shapes.update(overrides)
    return HarnessConfig(
        device=device,
        preset=preset,
        num_heads_total=model.num_heads,
        tp=tp,
        kv_lora_rank=model.kv_lora_rank,
        rope_dim=model.rope_dim,
        sites=("decode",),
        profile=False,
        **shapes,
    )


class DecodeSession:
    """`with DecodeSession({"original": (path, bytes), "patched": (path, bytes)}, cfg) as s: s.calls[label](False)`.

    tables: the run's tables (the emulated FlashInfer's contract); None: the builtin ones."""

    def __init__(self, versions: Dict[str, tuple], cfg: HarnessConfig, tables=None):
        self.versions, self.cfg = versions, cfg
        self.tables = run_tables(tables)
        self.calls: Dict[str, object] = {}
        self.guards: Dict[str, dict] = {}
        self.read_modes: Dict[str, list] = {}  # how each planned wrapper reads the pool (native/gather/cast)
        self.path_map: Dict[str, str] = {}
        self.world: Optional[World] = None
        self._imports = None

    def __enter__(self) -> "DecodeSession":
        cfg = self.cfg
        emu = FlashInferEmulation(self.tables, version=cfg.emulate_flashinfer) if cfg.device == "cpu" else None
        log: set = set()
        registry = Registry(runtime_settings(cfg, emu, log), log)
        self._imports = stubbed_imports(registry, make_flashinfer_module(emu) if emu else None)
        self._imports.__enter__()
        try:
            loaded = {}
            for label, (path, source) in self.versions.items():
                loaded[label] = load_backend(
                    source,
                    label,
                    tables=self.tables,
                    cpu_emulation=emu,
                    force_backend=cfg.force_backend,
                    filename=str(path),
                    companions=default_companions(source, self.tables),
                )
                self.path_map[f"{path} ({label})"] = str(path)
                map_path(f"{path} ({label})", str(path))  # for tracers started elsewhere (castlint trace -- ...)
            torch.manual_seed(cfg.seed)
            self.world = World(cfg, log)
            for label, backend in loaded.items():
                driver = SiteDriver(backend, self.world)
                self.guards[label] = driver.guard()
                self.calls[label] = driver.prepare("decode")
                self.read_modes[label] = driver.read_modes()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._imports is not None:
            self._imports.__exit__(None, None, None)
            self._imports = None

    @property
    def pools(self) -> list:
        """The per-layer KV arenas (to register with the tracer)."""
        return list(self.world.pool.kv_buffer)


def main(argv=None) -> int:
    import argparse
    import os
    import tempfile
    from pathlib import Path

    from castlint.session import Session, SessionError
    from castlint.validate.command import find_backend

    parser = argparse.ArgumentParser(
        prog="python -m castlint.trace.validate_drive",
        description="Run decode steps of sglang's FlashInfer MLA backend through "
        "castlint validate's harness (for castlint trace).",
    )
    parser.add_argument("path", help="an sglang tree or flashinfer_mla_backend.py")
    parser.add_argument("--fixed", action="store_true", help="also run `castlint fix`'s rewrite (needs libcst)")
    parser.add_argument("--patched", default="", help="also run this already-fixed tree or file")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--preset", default="deepseek-r1")
    parser.add_argument("--tp", type=int, default=8)
    parser.add_argument("--pool-tokens", type=int, default=0)
    args = parser.parse_args(argv)
    original = find_backend(Path(args.path))
    if original is None:
        parser.error(f"no flashinfer_mla_backend.py under {args.path}")
    try:  # the builtin tables and the extend-rules of the config nearest the backend
        tables = Session(None, [str(original)]).tables
    except SessionError as exc:
        parser.error(str(exc))
    versions = {"original": (original, original.read_bytes())}
    if args.patched:
        patched = find_backend(Path(args.patched))
        if patched is None:
            parser.error(f"no flashinfer_mla_backend.py under {args.patched}")
        versions["patched"] = (patched, patched.read_bytes())
    scratch = None  # the fixed file's folder: removed when the steps are done (never left in /tmp)
    if not args.patched and args.fixed:
        from castlint.fixes import FixOptions, fix_source

        fixed = fix_source(versions["original"][1], str(original), tables, FixOptions()).new_source
        scratch = tempfile.TemporaryDirectory(prefix=f"castlint-fixed-{os.getpid()}-")
        target = Path(scratch.name) / "flashinfer_mla_backend.py"
        target.write_bytes(fixed)
        versions["patched"] = (target, fixed)
    try:
        return _drive(args, versions, tables)
    finally:
        if scratch is not None:
            scratch.cleanup()


def _drive(args, versions, tables) -> int:
    import sys

    import castlint.trace as ct

    shapes = {"pool_tokens": args.pool_tokens} if args.pool_tokens else {}
    cfg = harness_config(args.device, args.preset, args.tp, tables=tables, **shapes)
    with DecodeSession(versions, cfg, tables) as session:
        for label, call in session.calls.items():
            ct.register_pool(*session.pools)
            for step in range(args.steps):
                ct.step()
                call(step == 0)  # the first step writes the new token, then attends
            modes = ", ".join(session.read_modes.get(label) or []) or "no castlint guard"
            print(f"{label}: {versions[label][0]}: {args.steps} decode steps (pool read: {modes})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
