"""Speed benchmarks that ship with the package: ``mombasa bench`` runs them, and the
pytest-benchmark suites of a source checkout (``benchmarks/``, ``make bench``,
``make bench-check``) time the very same workloads.

* :mod:`search.bench.positions`: the reproducible positions and playouts they use;
* :mod:`search.bench.speed`: the regression gate's workloads, the calibration loop the
  gate normalises by, and a runner that times them as pytest-benchmark does;
* :mod:`search.bench.peers`: side by side with catanatron and OpenSpiel (the ``peers``
  extra, imported only when that comparison runs).
"""
