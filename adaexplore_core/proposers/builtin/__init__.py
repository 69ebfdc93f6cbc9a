"""The built-in, offline proposer: capture (fx) -> rewrite (exact algebra) -> plan (fusion) -> codegen
(pointwise, reduction and GEMM kernel writers) -> proposer (large and small steps)."""
