"""vLLM connector that packs layers with a layout class from a sibling module."""
