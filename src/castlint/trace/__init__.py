"""castlint trace: catch whole-buffer dtype conversions at runtime and tie them to the static findings.

    import castlint.trace
    with castlint.trace.watch(threshold="256MiB") as tracer:
        for _ in range(3):
            castlint.trace.step()          # optional: marks decode steps
            engine.decode_step()
    print(tracer.report())                 # castlint's text report; tracer.findings() for Findings

Importing castlint.trace does not import torch; watch() does. Off unless
entered: nothing is installed in torch until then (zero cost when off).
See docs/trace.md.
"""

from __future__ import annotations

from typing import Iterable, Optional

__all__ = ["watch", "register_pool", "step", "Watch"]


class Watch:
    """The context manager watch() returns: a Tracer plus report helpers."""

    def __init__(
        self,
        threshold=None,
        *,
        path_map: Optional[dict] = None,
        pools: Iterable = (),
        extra_rules: Iterable = (),
        skip: Iterable[str] = (),
        static: bool = True,
        all_threads: bool = False,
    ):
        from castlint.trace.runtime import Tracer  # imports torch

        self.tracer = Tracer(
            threshold, path_map=path_map, pools=pools, extra_rules=extra_rules, skip=skip, all_threads=all_threads
        )
        self.static = static

    def __enter__(self) -> "Watch":
        self.tracer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.tracer.stop()

    def step(self) -> None:
        self.tracer.step()

    def register_pool(self, *tensors) -> None:
        self.tracer.register_pool(*tensors)

    @property
    def sites(self) -> list:
        return self.tracer.site_list()

    def findings(self, jobs: int = 1) -> list:
        return self.tracer.findings(static=self.static, jobs=jobs)[0]

    def report(self, fmt: str = "text", jobs: int = 1) -> str:
        from castlint.trace.report import render

        findings, errors, meta = self.tracer.findings(static=self.static, jobs=jobs)
        return render(fmt, findings, errors, meta)


def watch(threshold=None, **options) -> Watch:
    """Record whole-buffer conversions in the block (see castlint.trace.runtime for what counts).

    threshold: bytes or a size string ("64MiB", the default from rules/trace.toml); path_map: maps a code
    object's filename to the file to report (for code compiled from bytes); pools: tensors that are pools;
    static: correlate with castlint's static findings when reporting."""
    return Watch(threshold, **options)


def register_pool(*tensors) -> None:
    """Mark tensors as long-lived pools (converting one is always recorded)."""
    from castlint.trace.runtime import register_pool as _register

    _register(*tensors)


def step() -> None:
    """Mark a step boundary in the active tracer (no-op when none is active, and torch is not imported)."""
    import sys

    runtime = sys.modules.get("castlint.trace.runtime")
    if runtime is not None:
        tracer = runtime.active()
        if tracer is not None:
            tracer.step()
