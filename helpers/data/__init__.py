"""The data the series trains on (pure Python): the generated German-English corpus.

Hand-written: edit this file itself; no notebook generates it.
"""
