# TensorRT-LLM package: attention.forward calls host_copy.snapshot through the module object.
