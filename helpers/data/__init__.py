"""The data the series trains on (hand-written, pure Python): the generated German-English corpus."""
