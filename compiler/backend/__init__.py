"""The backend interface (``interface``) and the registry of backends by target (``registry``)."""
