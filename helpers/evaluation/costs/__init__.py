"""Measuring tools (hand-written) the lessons use: ``cost_meter`` counts what a layer costs, ``report`` shows how the costs grow (notebook 13)."""
