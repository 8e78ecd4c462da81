class Runtime:
    kv_cache_manager = None
    seq_slot_manager = None
