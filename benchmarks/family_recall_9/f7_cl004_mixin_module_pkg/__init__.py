"""CL004: a converting accessor defined in a mixin module and mixed into the pool class elsewhere."""
