from . import pools


class EagleWorker:
    def __init__(self, target_runner, draft_runner):
        pools.install(target_runner.token_to_kv_pool, draft_runner.token_to_kv_pool)
