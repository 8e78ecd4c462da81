"""Drive the decode step of `castlint validate`'s harness, for tracing it.

`DecodeSession` loads one or more versions of sglang's FlashInfer MLA backend
(the user's bytes, executed under the validate import doubles, see
castlint/validate/loader.py), builds the shared FP8 pool and page table
(harness.World) and one backend per version (harness.SiteDriver), and prepares
the `decode` site: init_forward_metadata -> the updater's plan -> then
`calls[label](save_kv_cache)` runs forward_decode. On CPU the pure-torch
reference stands in for FlashInfer and the module sees an emulated SM90 with
FlashInfer 0.7.2, so the patched guard takes the native FP8 branch; on a GPU
the real FlashInfer runs.

Code objects of the loaded modules are named "<file> (<label>)";
`path_map` maps them back to the files, for castlint.trace.watch(path_map=...).
"""
from __future__ import annotations

from typing import Dict, Optional

import torch

from castlint.validate.doubles import Registry, RuntimeSettings, real_sglang_classes
from castlint.validate.harness import HarnessConfig, SiteDriver, World
from castlint.validate.loader import load_backend, stubbed_imports
from castlint.validate.reference import FlashInferEmulation, make_flashinfer_module

CPU_SHAPES = dict(pool_tokens=2048, batch_size=2, context_len=96)


def harness_config(device: str = "cpu", preset: str = "deepseek-r1", tp: int = 8, **overrides) -> HarnessConfig:
    """A HarnessConfig from a preset in rules/models.toml, like `castlint validate` builds it."""
    from castlint.tables import load_tables

    model = load_tables().presets[preset]
    shapes = dict(CPU_SHAPES) if device == "cpu" else dict(pool_tokens=495552, batch_size=1, context_len=4096)
    shapes.update(overrides)
    return HarnessConfig(device=device, preset=preset, num_heads_total=model.num_heads, tp=tp,
                         kv_lora_rank=model.kv_lora_rank, rope_dim=model.rope_dim, sites=("decode",),
                         profile=False, **shapes)


class DecodeSession:
    """`with DecodeSession({"original": (path, bytes), "patched": (path, bytes)}, cfg) as s: s.calls[label](False)`."""

    def __init__(self, versions: Dict[str, tuple], cfg: HarnessConfig):
        self.versions, self.cfg = versions, cfg
        self.calls: Dict[str, object] = {}
        self.guards: Dict[str, dict] = {}
        self.path_map: Dict[str, str] = {}
        self.world: Optional[World] = None
        self._ctx = None

    def __enter__(self) -> "DecodeSession":
        cfg = self.cfg
        emu = FlashInferEmulation(version=cfg.emulate_flashinfer) if cfg.device == "cpu" else None
        log: set = set()
        real = real_sglang_classes(log) if cfg.use_sglang else {}
        sm90 = emu.compute_capability[0] == 9 if emu else torch.cuda.get_device_capability(0)[0] == 9
        registry = Registry(RuntimeSettings(tp=cfg.tp, page_size=1, sm90=sm90, real=real), log)
        self._ctx = stubbed_imports(registry, make_flashinfer_module(emu) if emu else None)
        self._ctx.__enter__()
        try:
            loaded = {}
            for label, (path, source) in self.versions.items():
                loaded[label] = load_backend(source, label, cpu_emulation=emu, force_backend=cfg.force_backend,
                                             filename=str(path))
                self.path_map[f"{path} ({label})"] = str(path)
            torch.manual_seed(cfg.seed)
            self.world = World(cfg, log)
            for label, lb in loaded.items():
                driver = SiteDriver(lb, self.world)
                self.guards[label] = driver.guard()
                self.calls[label] = driver.prepare("decode")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._ctx is not None:
            self._ctx.__exit__(None, None, None)
            self._ctx = None

    @property
    def pools(self) -> list:
        """The per-layer KV arenas (to register with the tracer)."""
        return list(self.world.pool.kv_buffer)
