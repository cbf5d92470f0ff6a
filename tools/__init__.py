"""Maintenance tools of the series (not part of the installed package): exporter, notebook runner, freshness checks, benchmark, website, classroom edition."""
