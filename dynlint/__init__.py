"""dynlint: find PyTorch code whose tensor shapes depend on tensor data."""
__version__ = "0.1.0"

__all__ = ["__version__", "scan", "confirm"]


def scan(paths, **kwargs):
    """Static scan of files/directories; see `dynlint.api.scan`."""
    from .api import scan as _scan
    return _scan(paths, **kwargs)


def confirm(*args, **kwargs):
    """Replay a model through a recompilation detector; see `dynlint.confirm`."""
    from .confirm import run_confirm
    return run_confirm(*args, **kwargs)
