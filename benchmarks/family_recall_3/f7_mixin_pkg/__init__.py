from .backend import MixinMLABackend  # noqa: F401
