"""The AdaExplore tree search: the pure tree (tree.py), the loop that judges candidates (explore.py), the
events it emits (events.py) and the KernelBench runner (bench.py)."""
