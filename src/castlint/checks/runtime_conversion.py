"""CL101 runtime-whole-buffer-conversion: made by `castlint trace`, not by a static check."""

from __future__ import annotations

from typing import List

from castlint.checks.base import FileContext, Rule
from castlint.models import Finding


class RuntimeWholeBufferConversion(Rule):
    code = "CL101"
    name = "runtime-whole-buffer-conversion"
    kind = "runtime"  # reported by castlint.trace; the static engine never runs it
    summary = "At runtime, a large long-lived buffer was converted or copied as a whole"
    what_it_does = (
        "`castlint trace` watched the program under a TorchDispatchMode and saw this line convert (or copy into "
        "a new buffer) a buffer above the size threshold that outlives a step: a KV pool, a weight, a cache. "
        "No static finding covers the line: the conversion is hidden from static analysis (getattr dispatch, "
        "a helper outside the checked files, a pool handed in by a caller, a C++ op). Convert only the rows "
        "you read (gather first), or hand the stored dtype to a kernel that reads it natively."
    )
    why_it_matters = (
        "A whole-buffer conversion on every step reads and writes the whole arena, whatever the batch: "
        "on an H200 a 495,552-token FP8 MLA pool costs 0.83 ms per layer to convert, against 0.036 ms "
        "for the attention kernel that reads it natively."
    )
    example = (
        'read = getattr(self.pool, f"get_{kind}_buffer")\n'
        "kv = read(layer.layer_id).to(q.dtype)  # CL101 under castlint trace: the accessor is hidden"
    )
    fix_safety = (
        "No automatic fix: castlint fix rewrites what static analysis sees; change the line by hand, or "
        "teach castlint the accessor or helper in extend-rules so that check reports it."
    )
    # Runtime evidence: tests/test_trace.py runs these as methods under the tracer, with a pool.
    VALID = (
        "def forward(self, layer_id, q, loc):\n"
        "    return self.pool.get_key_buffer(layer_id)[loc].to(q.dtype)  # only the rows read\n",
    )
    INVALID = (
        # an accessor named at run time: no static analysis can tell which method this is
        (
            "def forward(self, layer_id, q, loc):\n"
            "    read = getattr(self.pool, self.accessor_name)\n"
            "    return read(layer_id).to(q.dtype)\n",
            (3,),
        ),
    )

    def check(self, ctx: FileContext) -> List[Finding]:
        return []  # made at runtime by castlint.trace
