from .fallback import dense_caches, dense_rows  # noqa: F401
