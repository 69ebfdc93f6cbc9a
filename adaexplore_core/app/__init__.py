"""The application layer: how a search is wired (proposer, judge pool, rule memory, events) and the jobs
built on it: one search (``wiring.run_search``, for ``optimize`` and the server's jobs, which run
``optimize``), a bench of problems (``bench.py``) and failure-driven adaptation (``adapt.py``). The layers
below it (search/, memory/, judge/, proposers/) do not import it or each other's wiring."""
