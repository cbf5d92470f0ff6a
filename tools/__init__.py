"""Maintenance tools of the series (not part of the installed package): exporter, notebook runner, the test session's kernels, freshness checks, benchmark, website, classroom edition."""
