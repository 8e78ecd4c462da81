"""sglang's ForwardMode as the validation harness (and the tests' fake torch) needs it.

Torch-free, so that both the harness's doubles and tests/faketorch share one definition.
"""

from __future__ import annotations

import enum


class ForwardModeDouble(enum.IntEnum):
    EXTEND = 1
    DECODE = 2
    MIXED = 3
    IDLE = 4
    TARGET_VERIFY = 5
    DRAFT_EXTEND = 6
    DRAFT_EXTEND_V2 = 7
    SPLIT_PREFILL = 8
    DUMMY_FIRST = 9

    def __getattr__(self, name):
        # is_decode(), is_decode_or_idle(), is_extend(), is_target_verify() ...
        if name.startswith("is_"):
            words = name[3:].upper().split("_OR_")
            me = self.name

            def check(*_a, include_v2=False, include_draft_extend_v2=False, **_k):
                # DRAFT_EXTEND_V2 counts as an extend / a draft extend only when asked, as in
                # sglang >= 0.5.10 (is_extend(include_draft_extend_v2=), is_draft_extend(include_v2=))
                for word in words:
                    if word == me:
                        return True
                    if word == "EXTEND" and (
                        me in ("EXTEND", "MIXED", "DRAFT_EXTEND", "TARGET_VERIFY", "SPLIT_PREFILL")
                        or (me == "DRAFT_EXTEND_V2" and include_draft_extend_v2)
                    ):
                        return True
                    if word == "DRAFT_EXTEND" and me == "DRAFT_EXTEND_V2" and include_v2:
                        return True
                    if word == "CUDA_GRAPH" and me in ("DECODE", "TARGET_VERIFY", "IDLE"):
                        return True
                return False

            return check
        raise AttributeError(name)
