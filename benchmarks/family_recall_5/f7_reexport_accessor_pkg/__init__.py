"""Re-exports the access helpers under public names."""

from ._access import index_table
from ._access import latent_plane as plane_of
from ._access import step_rows

__all__ = ["plane_of", "step_rows", "index_table"]
