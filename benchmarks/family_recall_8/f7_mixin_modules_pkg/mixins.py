class TracingMixin:
    def get_key_buffer(self, layer_id):
        self.last_layer = layer_id
        return super().get_key_buffer(layer_id)


class RowsMixin:
    def get_key_buffer(self, layer_id):
        return super().get_key_buffer(layer_id)[self.active_rows]
