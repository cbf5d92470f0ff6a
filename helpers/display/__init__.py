"""Display utilities (hand-written): notebook setup, shape tables and heatmaps; they know nothing of the model."""
