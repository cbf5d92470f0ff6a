"""What a layer costs (notebook 13): ``meter`` counts the FLOPs and memory of one forward pass,
``growth`` shows in tables and log-log figures how those costs grow with the sequence length.

Hand-written: edit this file itself; no notebook generates it. A hand-written folder inside the
generated ``helpers.evaluation``: the measuring tools the lessons use but do not build.
"""
