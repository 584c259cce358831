// Benchmarks: see scripts/bench.
