from . import local


class PyExecutorLike:
    def __init__(self, resource_manager):
        self.kv_cache_manager = resource_manager.get_resource_manager("kv_cache_manager")
        local.set_manager(self.kv_cache_manager)

    def _executable_step(self, scheduled_batch, model_engine):
        return model_engine.forward(scheduled_batch, self.kv_cache_manager)
