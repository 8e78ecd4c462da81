"""sglang-style package: a TRT-LLM MLA backend whose bf16 prefix path calls helpers in mla_fallback."""
