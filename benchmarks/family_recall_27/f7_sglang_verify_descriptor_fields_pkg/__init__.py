from .fields import DenseKeyField, RowKeyField
from .verify_backend import TargetVerifyBackend

__all__ = ["DenseKeyField", "RowKeyField", "TargetVerifyBackend"]
