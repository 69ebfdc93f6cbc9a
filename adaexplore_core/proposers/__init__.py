"""Proposers turn a task (and, in a search, a parent and a pool) into candidate source. See base.py."""
