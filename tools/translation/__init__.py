"""The Chinese edition: notebooks/zh/, generated from the English notebooks and PO files.

    python -m tools.translation update     # notebooks/zh/locale/*.po follow the English notebooks
    python -m tools.translation generate   # notebooks/zh/*.ipynb written (then run them)
    python -m tools.translation status     # entries, translated, fuzzy, untranslated per file
    python -m tools.translation typography # translations set right by the Chinese typography rules
    python -m tools.translation helpers-messages   # helpers/locale/zh.po follows the tr() calls

The English notebooks are the source. Each one has a gettext PO file (edit it with any PO tool:
Poedit, Lokalize, a text editor) whose entries are its translatable units (``units``): a
paragraph of a Markdown cell, or the whole source of a code cell that has comments or English
text to print. When an English paragraph changes, ``update`` keeps its old translation marked
fuzzy (with the old English as ``#| msgid``), exactly as gettext's msgmerge does; a new
paragraph comes in untranslated. ``generate`` writes each Chinese notebook: the English one with
every unit replaced by its translation; exported cells (``#| export``) are copied unchanged.
What the helpers print (verdicts, tables, figure labels, explorers) is translated once, in
``helpers/locale/zh.po`` (``helpers_messages``), not in the notebooks' files.
"""

LANGUAGE = "zh"
