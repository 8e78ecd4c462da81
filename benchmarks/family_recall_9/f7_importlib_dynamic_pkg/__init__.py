"""Pool module loaded with importlib.import_module(".pool", __package__) by the backend."""
