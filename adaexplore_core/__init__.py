"""AdaExplore engine: judge, search and proposers for Triton replacements of PyTorch modules."""

__version__ = "0.1.0"
