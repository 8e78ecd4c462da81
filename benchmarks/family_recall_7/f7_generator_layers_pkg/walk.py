def iter_layers(kv_caches):
    for name in sorted(kv_caches):
        yield name, kv_caches[name]


def iter_slots(kv_caches, slot_mapping):
    for name, cache in kv_caches.items():
        yield name, cache.view(-1, cache.shape[-1])[slot_mapping]
