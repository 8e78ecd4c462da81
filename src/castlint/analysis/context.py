"""What rules and codemods read about one file: its path, its analysis, the tables
and the cost model of the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the rule registry imports this without libcst
    from castlint.analysis.dataflow import ModuleAnalysis
    from castlint.tables import CostModel, Tables


@dataclass
class FileContext:
    path: str
    analysis: ModuleAnalysis
    tables: Tables
    cost_model: CostModel
