"""TRT-LLM style: a manager base with a converting dense_layer accessor (base.py, CL004), a subclass (manager.py), users (attention.py)."""
