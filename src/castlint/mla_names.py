"""Names the FlashInfer MLA fix adds to an engine's code, shared by the fix and validate.

Kept free of libcst and torch so that `castlint validate` can read a patched
backend where only torch is installed."""

READ_ATTR = "kv_read"  # backend/updater attribute: the backend's MlaKvRead
READ_CLASS = "MlaKvRead"  # defined by the module the fix adds (templates/mla_kv_read.py)
PLAN_METHOD = "call_plan"  # READ_CLASS's method each plan goes through: call_plan(wrapper.plan, ...)
DCP_KEYWORD = "dcp_enabled"  # READ_CLASS's keyword for the file's decode-context-parallel switch
MLA_CODEMOD = "flashinfer-mla-native-fp8"  # Fix.codemod of the findings the MLA fix rewrites
