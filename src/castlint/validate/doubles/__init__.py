"""The one double of sglang and FlashInfer, used by `castlint validate` and by castlint's tests.

- `sglang`: what an sglang attention backend imports (the runtime-context getters, envs,
  ForwardMode, KVWriteLoc, the kv-index kernel and translator, placeholders for the rest,
  answered through `StubbedImports`) and receives (the MLA KV pool, recording namespaces);
- `speculative`: the spec_info inputs of the verify and draft-extend sites;
- `flashinfer`: BatchMLAPagedAttentionWrapper as one FlashInfer release has it, from the tables;
- `mla`: the MLA definition its kernels compute (`TorchKernel` on real torch);
- `backend_torch`: the torch they run on. Nothing here imports torch at module level:
  tests/faketorch runs the same doubles on its pure-Python fake torch (adding only that torch
  and a float64 kernel), `castlint validate` on real torch.

The names below are the sglang doubles (`from castlint.validate.doubles import Registry`).
"""

from castlint.validate.doubles.sglang import (
    WORKSPACE_BYTES,
    EnvsDouble,
    KVIndexTranslatorDouble,
    KVWriteLocDouble,
    MLAPoolDouble,
    Namespace,
    Placeholder,
    Registry,
    RuntimeSettings,
    StubbedImports,
    StubModule,
    cuda_graph_decode_metadata,
    filter_kwargs,
    import_environment,
    kv_indices_from_page_table,
    mla_backend_class,
    real_sglang_classes,
)

__all__ = [
    "WORKSPACE_BYTES",
    "EnvsDouble",
    "KVIndexTranslatorDouble",
    "KVWriteLocDouble",
    "MLAPoolDouble",
    "Namespace",
    "Placeholder",
    "Registry",
    "RuntimeSettings",
    "StubbedImports",
    "StubModule",
    "cuda_graph_decode_metadata",
    "filter_kwargs",
    "import_environment",
    "kv_indices_from_page_table",
    "mla_backend_class",
    "real_sglang_classes",
]
