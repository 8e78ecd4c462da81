from .resource_manager import DenseViewManager
from .attention import ResourceAttention
