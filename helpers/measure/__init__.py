"""Measuring tools (hand-written) the lessons use: ``cost_meter`` counts what a layer costs (notebook 13)."""
