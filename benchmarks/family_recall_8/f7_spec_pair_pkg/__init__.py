from .draft import DraftBackend
from .target import TargetRunner
