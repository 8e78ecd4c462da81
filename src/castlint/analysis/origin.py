"""Where a value comes from, as the flow model answers it (castlint.analysis.dataflow)."""

from enum import IntEnum


class Origin(IntEnum):
    """Ordered so that max() over several reaching assignments picks the worst."""

    OTHER = 0
    GATHERED = 1  # some slots of a pool: batch-sized
    PREFIX = 2  # an active prefix of a pool (`buf[:num_tokens]`): batch-sized, but a slice
    POOL_TUPLE = 3  # several whole pools at once: get_kv_buffer, a per-layer list, split views
    POOL = 4  # a whole pool, or a view of one
