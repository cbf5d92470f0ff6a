"""Live explorers: sliders and text boxes that redraw a notebook's figures.

Hand-written: edit this file itself; no notebook generates it.

Each explorer is three layers, so that each can be used and tested alone:

- a *view* function: plain Python, settings in, the numbers behind the figure out (unit-tested);
- a *draw* function: the view's numbers in, a matplotlib figure out, built with the same plotting
  functions as the notebooks' static figures;
- an ``explore_*`` function: ipywidgets controls that call the two on every change.

In a notebook, ``explore_positions()`` shows the controls and the first view as an ordinary PNG
output; moving a control replaces that PNG in place. Without a kernel (the website, a rendered
notebook) the first view is still there as a picture.
"""
