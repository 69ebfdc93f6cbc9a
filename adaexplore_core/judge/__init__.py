"""The judge: static guard, isolated workers, correctness trials and timing. See ``pool.JudgePool``."""
