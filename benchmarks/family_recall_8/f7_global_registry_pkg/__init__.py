from . import registry
