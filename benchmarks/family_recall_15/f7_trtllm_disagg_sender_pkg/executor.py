from .sender import LayerSender


class ContextOnlyExecutor:
    def __init__(self, model_engine, resource_manager, transceiver, num_layers):
        self.model_engine = model_engine
        self.resource_manager = resource_manager
        self.sender = LayerSender(transceiver)
        self.num_layers = num_layers

    def _forward_step(self, scheduled_requests, new_tensors_device=None):
        out = self.model_engine.forward(scheduled_requests, self.resource_manager)
        mgr = self.resource_manager.get_resource_manager("kv_cache_manager")
        for i in range(self.num_layers):
            if scheduled_requests.send_whole:
                self.sender.send_layer(mgr, i)
                self.sender.send_value_plane(mgr, i)
            else:
                self.sender.send_blocks(mgr, i, scheduled_requests.block_ids)
        self.sender.send_scales(mgr, 0)
        return out
