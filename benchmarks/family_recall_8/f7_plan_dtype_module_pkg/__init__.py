from .backend import PlannedMLABackend
