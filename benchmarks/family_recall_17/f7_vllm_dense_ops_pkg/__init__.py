"""vLLM runner for a device without FP8 attention: the runner module owns kv_caches; the
dense_ops module converts them."""
