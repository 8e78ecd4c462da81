"""TRT-LLM EAGLE3: eagle3_worker.iter_target_layers delegates with `yield from` to kv_io.dense_each, which widens each target layer."""
from .eagle3_worker import Eagle3TargetReader

__all__ = ["Eagle3TargetReader"]
