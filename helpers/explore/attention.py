"""Explore a trained model's attention (notebook 12): type a sentence, pick a kind, layer and head.

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

import re
from functools import lru_cache

import torch
from matplotlib.figure import Figure

from helpers.decoding.search import source_ids, tokenize, translate
from helpers.display.plots import plot_heatmap, plot_heatmap_grid
from helpers.explore.live import Explorer, kind_label
from helpers.language import tr
from helpers.model.transformer import Transformer
from helpers.text.vocab import Vocab

KINDS = ("encoder self", "decoder self", "cross")


class AttentionSource:
    """One model and its vocabularies; translates a sentence once and keeps its weights.

    ``weights(sentence)`` returns the source tokens, the decoder's input tokens, the token the
    model predicts at each decoder position, the translation, the unknown words and every layer's
    weights: {kind: (n_layers, n_heads, len_q, len_k)}.
    """

    def __init__(self, model: Transformer, src_vocab: Vocab, tgt_vocab: Vocab):
        self.model, self.src_vocab, self.tgt_vocab = model.eval(), src_vocab, tgt_vocab
        self.weights = lru_cache(maxsize=32)(self._weights)

    def _weights(self, sentence: str) -> dict:
        if not isinstance(sentence, str) or not sentence.strip():
            raise ValueError(
                tr("sentence: expected a German sentence, got {sentence!r}").format(
                    sentence=sentence
                )
            )
        words = [w for w in tokenize(sentence) if re.fullmatch(r"\w+", w)]
        unknown = [w for w in words if w not in self.src_vocab.token_to_id]
        ids = source_ids(sentence, self.src_vocab)
        import warnings

        with warnings.catch_warnings():  # the explorer shows unknown words itself
            warnings.simplefilter("ignore", UserWarning)
            translation = translate(
                self.model, [sentence], self.src_vocab, self.tgt_vocab, beam_size=1
            )[0]
        out_tokens = translation.split()
        tgt_ids = [self.tgt_vocab.bos_id, *self.tgt_vocab.encode(out_tokens)]
        device = next(self.model.parameters()).device
        src = torch.tensor([ids], device=device)
        tgt = torch.tensor([tgt_ids], device=device)
        with torch.no_grad():
            logits, attention = self.model.forward_with_weights(src, tgt)
        predicted = logits[0].argmax(dim=-1).tolist()  # the translation's tokens, then </s>
        stack = {
            "encoder self": attention.encoder_self,
            "decoder self": attention.decoder_self,
            "cross": attention.decoder_cross,
        }
        return {
            "sentence": sentence,
            "src_tokens": self.src_vocab.decode(ids, skip_special=False).split(),
            "tgt_tokens": ["<s>", *out_tokens],
            "predicted": self.tgt_vocab.decode(predicted, skip_special=False).split(),
            "translation": translation,
            "unknown": unknown,
            "weights": {k: torch.stack([w[0] for w in v]).cpu() for k, v in stack.items()},
        }


def attention_view(
    source: AttentionSource, sentence: str, kind: str, layer: int, head: int | str
) -> dict:
    """The weights to draw: one head, or all heads of the layer (head="all").

    A decoder row is labelled by the token the model predicts there (as in notebook 12, section 7):
    the row of "teacher" is the step that wrote "teacher", reading "<s> the".
    """
    if kind not in KINDS:
        raise ValueError(
            tr("kind: expected one of {kinds}, got {kind!r}").format(kinds=KINDS, kind=kind)
        )
    data = source.weights(sentence)
    weights = data["weights"][kind]
    n_layers, n_heads = weights.shape[:2]
    if not isinstance(layer, int) or not 0 <= layer < n_layers:
        raise ValueError(
            tr("layer: expected an int in [0, {last}], got {layer!r}").format(
                last=n_layers - 1, layer=layer
            )
        )
    if head != "all" and (not isinstance(head, int) or not 0 <= head < n_heads):
        raise ValueError(
            tr("head: expected 'all' or an int in [0, {last}], got {head!r}").format(
                last=n_heads - 1, head=head
            )
        )
    queries = data["src_tokens"] if kind == "encoder self" else data["predicted"]
    keys = data["tgt_tokens"] if kind == "decoder self" else data["src_tokens"]
    chosen = weights[layer] if head == "all" else weights[layer, head]
    return {
        **data,
        "kind": kind,
        "layer": layer,
        "head": head,
        "queries": queries,
        "keys": keys,
        "chosen": chosen,
    }


def draw_attention(view: dict) -> Figure:
    title = tr("{kind}, layer {layer}").format(kind=kind_label(view["kind"]), layer=view["layer"])
    ylabel = tr("query") if view["kind"] == "encoder self" else tr("token predicted")
    if view["head"] == "all":
        fig = plot_heatmap_grid(view["chosen"][None], view["keys"], view["queries"], title=title)
        # The grid's one row is the chosen layer: label it "query", not "layer 0".
        fig.axes[0].set_ylabel(ylabel, fontsize=10)
        return fig
    fig = plot_heatmap(view["chosen"], view["keys"], view["queries"],
                       title=tr("{title}, head {head}").format(title=title, head=view["head"]),
                       xlabel=tr("key"), ylabel=ylabel, vmin=0.0, vmax=1.0)  # fmt: skip
    return fig


def describe_attention(view: dict, max_rows: int = 12) -> str:
    """The translation, the unknown words, and the column each row looks at most.

    For one head, its own weights; for all heads, their mean. At most max_rows rows are listed.
    """
    unknown = ", ".join(view["unknown"]) if view["unknown"] else tr("none")
    chosen = view["chosen"] if view["head"] != "all" else view["chosen"].mean(dim=0)
    strongest = chosen.argmax(dim=-1).tolist()
    pairs = [f"{q}→{view['keys'][k]}" for q, k in zip(view["queries"], strongest, strict=True)]
    more = (
        tr(", ... ({count} more)").format(count=len(pairs) - max_rows)
        if len(pairs) > max_rows
        else ""
    )
    which = (
        tr("mean of all heads")
        if view["head"] == "all"
        else tr("head {head}").format(head=view["head"])
    )
    return tr(
        "translation: {translation}\nwords the model does not know: {unknown}\n"
        "each row looks most at ({which}): {pairs}{more}"
    ).format(
        translation=view["translation"],
        unknown=unknown,
        which=which,
        pairs=", ".join(pairs[:max_rows]),
        more=more,
    )


def explore_attention(
    model: Transformer,
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    sentence: str = "die lehrerin kann ein wasser trinken",
    show: bool = True,
) -> Explorer:
    """A text box for a German sentence, and the kind, layer and head of attention to draw.

    The translation is the model's own (greedy); every weight shown is what the model computes
    reading that sentence and writing that translation. Words it does not know are named.
    """
    import ipywidgets as widgets

    source = AttentionSource(model, src_vocab, tgt_vocab)
    n_layers, n_heads = model.config.n_layers, model.config.n_heads
    style = {"description_width": "70px"}
    controls = {
        "sentence": widgets.Text(sentence, description=tr("German"), continuous_update=False,
                                 layout=widgets.Layout(width="520px"), style=style),  # fmt: skip
        "kind": widgets.ToggleButtons(options=[(kind_label(kind), kind) for kind in KINDS], value="cross",
                                      description=tr("kind"), style=style),
        "layer": widgets.IntSlider(n_layers - 1, min=0, max=n_layers - 1, description=tr("layer"), style=style),
        "head": widgets.Dropdown(options=[(tr("all"), "all"), *((str(h), h) for h in range(n_heads))],
                                 value="all", description=tr("head"), style=style),
    }  # fmt: skip

    def view(**settings) -> dict:
        return attention_view(source, **settings)

    explorer = Explorer(
        controls, view, draw_attention, describe_attention, tr("Attention of the trained model")
    )
    if show:
        explorer.show()
    return explorer
