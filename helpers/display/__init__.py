"""Display utilities: notebook setup, shape tables and heatmaps; they know nothing of the model.

Hand-written: edit this file itself; no notebook generates it.
"""
