"""Graph bodies built by a factory module; the graph runner module runs them on replay."""
