"""Where a value comes from: a whole pool, a gather of one, or something else."""
from castlint.analysis.dataflow import ModuleAnalysis, Origin

__all__ = ["ModuleAnalysis", "Origin"]
