import torch

from f7_registry_pkg.registry import register


class RegisteringRunner:
    def __init__(self, model_runner):
        register("kv_pool", model_runner.token_to_kv_pool)
        register("req_lens", torch.zeros(model_runner.server_args.max_running_requests, dtype=torch.int64))
        self.warm = model_runner.token_to_kv_pool.get_key_buffer(0).float()  # negative: __init__-time conversion
