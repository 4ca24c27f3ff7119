"""Load tests against a real ``mombasa serve`` (issue 52): run by hand or by
``make bench-load``, never by the test suite. See ``benchmarks/load/README.md``."""
