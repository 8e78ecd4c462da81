"""lmdeploy style: a cuda graph runner that densifies caches through a convert module."""
from .graph_runner import CUDAGraphRunner

__all__ = ["CUDAGraphRunner"]


RUNNER_KIND = "cuda"


def make_runner(model, model_config, cache_config, backend_config):
    return CUDAGraphRunner(model, model_config, cache_config, backend_config)


def graph_enabled(backend_config):
    return not backend_config.eager_mode


def kinds():
    return (RUNNER_KIND,)
