"""SGLang-style MLA fallback: backend.py calls module-level callable instances defined in ops.py."""
