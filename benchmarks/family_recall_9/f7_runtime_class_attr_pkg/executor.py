from .state import Runtime


class LitePyExecutor:
    def __init__(self, resource_manager):
        Runtime.kv_cache_manager = resource_manager.get_resource_manager("kv_cache_manager")
        Runtime.seq_slot_manager = resource_manager.get_resource_manager("seq_slot_manager")
