"""Tools that keep the series honest: the exporter, the notebook runner, the freshness checks.

None of them is the subject of a lesson; they are run by `make export`, `make notebooks` and the tests.
"""
