"""The persistent memory of Triton validity rules (rules.py), learning rules from failures (distill.py),
and the environment namespace rules are kept under (fingerprint.py)."""
