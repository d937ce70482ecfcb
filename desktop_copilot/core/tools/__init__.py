"""Tools the model can call, and the registry that enables them by configured keys."""
