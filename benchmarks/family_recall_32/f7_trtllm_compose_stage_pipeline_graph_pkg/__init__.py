"""TRT-LLM decode graph: stage functions and a compose() helper in stages.py, applied to each layer in graph_runner.py."""
