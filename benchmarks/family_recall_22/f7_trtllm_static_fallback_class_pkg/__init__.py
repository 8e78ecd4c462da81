"""TRT-LLM attention calling a staticmethod of a class defined in a sibling module."""
