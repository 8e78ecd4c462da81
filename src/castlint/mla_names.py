"""Names the FlashInfer MLA fix adds to an engine's code, shared by the fix and validate.

Kept free of libcst and torch so that `castlint validate` can read a patched
backend where only torch is installed."""

READ_ATTR = "kv_read"  # backend/updater attribute: the backend's MlaKvRead
READ_CLASS = "MlaKvRead"  # defined by the module the fix adds (templates/mla_kv_read.py)
MLA_CODEMOD = "flashinfer-mla-native-fp8"  # Fix.codemod of the findings the MLA fix rewrites
