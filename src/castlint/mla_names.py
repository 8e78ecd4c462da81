"""Names the FlashInfer MLA fix adds to an engine's code, shared by the fix and validate.

Kept free of libcst and torch so that `castlint validate` can read a patched
backend where only torch is installed."""

READ_ATTR = "fp8_kv_read"        # backend/updater attribute: the init-time guard's answer
WRAPPER_ATTR = "mla_kv_read"     # set on each planned wrapper: how its run() reads the pool
GUARD_FUNCTION = "_flashinfer_mla_fp8_kv_read"
MLA_CODEMOD = "flashinfer-mla-native-fp8"  # Fix.codemod of the findings the MLA fix rewrites
