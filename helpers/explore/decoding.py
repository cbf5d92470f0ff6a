"""Step through greedy decoding and beam search (notebook 12): candidates, scores, survivors.

Hand-written: edit this file itself; no notebook generates it.
"""

from __future__ import annotations

from functools import lru_cache

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure

from helpers.decoding.search import beam_search, length_penalty, source_ids
from helpers.display.plots import plot_heatmap
from helpers.explore.live import Explorer
from helpers.language import tr
from helpers.model.transformer import Transformer
from helpers.text.vocab import Vocab


class DecodingSource:
    """Runs beam search once per (sentence, beam size, alpha) and keeps its step-by-step trace."""

    def __init__(self, model: Transformer, src_vocab: Vocab, tgt_vocab: Vocab):
        self.model, self.src_vocab, self.tgt_vocab = model.eval(), src_vocab, tgt_vocab
        self.search = lru_cache(maxsize=32)(self._search)

    def _search(self, sentence: str, beam_size: int, alpha: float) -> dict:
        ids = source_ids(sentence, self.src_vocab)
        if not ids:
            raise ValueError(
                tr("sentence: expected words the model can read, got {sentence!r}").format(
                    sentence=sentence
                )
            )
        device = next(self.model.parameters()).device
        src = torch.tensor([ids], device=device)
        trace: list = []
        output = beam_search(self.model, src, beam_size=beam_size, alpha=alpha, trace=trace)
        return {"src": src, "src_tokens": self.src_vocab.decode(ids, skip_special=False).split(),
                "trace": trace, "output": [i for i in output[0].tolist() if i != self.model.config.pad_id]}  # fmt: skip

    @torch.no_grad()
    def cross_attention(self, src: torch.Tensor, prefix: list[int]) -> torch.Tensor:
        """The last layer's cross-attention (mean over heads) of the last token of prefix: (src_len,)."""
        tgt = torch.tensor([[self.tgt_vocab.bos_id, *prefix[:-1]]], device=src.device)
        _, weights = self.model.forward_with_weights(src, tgt)
        return weights.decoder_cross[-1][0, :, -1].mean(dim=0).cpu()


def decoding_view(
    source: DecodingSource, sentence: str, beam_size: int, alpha: float, step: int
) -> dict:
    """What the search did at one step: its candidates, the beams kept, and the tree so far.

    candidates: (prefix, token, log P(token), total log P, fate), best total first; scores: for
    each candidate that finished (ended with </s>), its score total / lp(|Y|), else None;
    finished: every hypothesis finished so far and its score, best first (the best one wins
    when the search stops). beam_size=1 with alpha=0 is greedy decoding. step is clipped to the
    last step of the search.
    """
    if not isinstance(step, int) or step < 0:
        raise ValueError(tr("step: expected an int >= 0, got {step!r}").format(step=step))
    search = source.search(sentence, beam_size, float(alpha))
    trace = search["trace"]
    step = min(step, len(trace) - 1)
    record = trace[step]
    chosen = (
        max(record["live"], key=lambda item: item[1])[0] if record["live"] else search["output"]
    )
    words = source.tgt_vocab.id_to_token
    # A finished hypothesis Y (</s> included) is ranked by log P(Y) / lp(|Y|): what alpha changes.
    scores = [
        total / length_penalty(len(prefix) + 1, float(alpha)) if fate == "finished" else None
        for prefix, _, _, total, fate in record["candidates"]
    ]
    return {
        "sentence": sentence, "beam_size": beam_size, "alpha": alpha, "step": step,
        "n_steps": len(trace), "src_tokens": search["src_tokens"],
        "candidates": [(" ".join(words[t] for t in prefix), words[token], log_p, total, fate)
                       for prefix, token, log_p, total, fate in record["candidates"]],
        "scores": scores,
        "finished": sorted(((" ".join(words[t] for t in ids), score)
                            for score, ids in record["finished"]), key=lambda item: -item[1]),
        "trace": trace[: step + 1], "words": words,
        "chosen": " ".join(words[t] for t in chosen),
        "attention": source.cross_attention(search["src"], chosen),
        "translation": source.tgt_vocab.decode(search["output"]),
    }  # fmt: skip


def draw_decoding(view: dict) -> Figure:
    """Left: the beam tree up to this step (kept beams dark, finished ones red). Right: where the
    best live beam's newest token looks in the source."""
    fig, (tree, attention) = plt.subplots(1, 2, figsize=(13.0, 4.2), width_ratios=(2.2, 1.0))
    words, places = view["words"], {(): (0.0, 0.0)}
    tree.text(0, 0, "<s>", ha="center", va="center", fontsize=8, bbox={"fc": "white", "ec": "grey"})
    for record in view["trace"]:
        x = record["step"] + 1
        kept = [(tuple(prefix), score, "live") for prefix, score in record["live"]]
        done = [
            (tuple(ids), score, "finished") for score, ids in record["finished"] if len(ids) == x
        ]
        for rank, (prefix, _, fate) in enumerate(kept + done):
            y = -rank
            places[prefix] = (x, y)
            parent = places.get(prefix[:-1])
            color = "C3" if fate == "finished" else "black"
            if parent is not None:
                tree.plot([parent[0], x], [parent[1], y], color=color, linewidth=0.8, alpha=0.6)
            tree.text(x, y, words[prefix[-1]], ha="center", va="center", fontsize=8, color=color,
                      bbox={"fc": "white", "ec": color, "alpha": 0.9})  # fmt: skip
    tree.set_xlim(-0.5, view["step"] + 1.5)
    tree.set_ylim(-(2 * view["beam_size"]) + 0.5, 0.8)
    tree.set_axis_off()
    tree.set_title(
        tr("beam {beam_size}, alpha {alpha:g}: step {step} of {last}").format(
            beam_size=view["beam_size"], alpha=view["alpha"], step=view["step"],
            last=view["n_steps"] - 1,
        )
    )  # fmt: skip
    plot_heatmap(view["attention"][None], view["src_tokens"], [view["chosen"].split()[-1]],
                 title=tr("cross-attention of the newest token"), ax=attention, vmin=0.0, vmax=1.0)  # fmt: skip
    fig.tight_layout()
    return fig


def _fate_label(fate: str) -> str:
    """What became of a candidate ("live", "finished", "dropped"), in the notebook's language."""
    return {"live": tr("live"), "finished": tr("finished"), "dropped": tr("dropped")}[fate]


def describe_decoding(view: dict) -> str:
    lines = [
        tr("step {step}: the {count} best extensions").format(
            step=view["step"], count=len(view["candidates"])
        )
    ]
    for (prefix, token, log_p, total, fate), score in zip(
        view["candidates"], view["scores"], strict=True
    ):
        line = tr("{candidate:<40} log p {log_p:7.3f}  total {total:7.3f}  {fate}").format(
            candidate=(prefix + " " + token).strip(),
            log_p=log_p,
            total=total,
            fate=_fate_label(fate),
        )
        if score is not None:  # what decides among finished hypotheses, and what alpha moves
            line += tr(", score = total / lp({length}) = {score:.3f}").format(
                length=len((prefix + " " + token).split()), score=score
            )
        lines.append("  " + line)
    if view["finished"]:
        shown = [f"{text} ({score:.3f})" for text, score in view["finished"][:3]]
        more = len(view["finished"]) - len(shown)
        lines.append(
            tr("finished so far, best score first: {hypotheses}").format(
                hypotheses=", ".join(shown)
            )
            + (tr(", ... ({count} more)").format(count=more) if more else "")
        )
    lines.append(tr("final translation: {translation}").format(translation=view["translation"]))
    return "\n".join(lines)


def explore_decoding(
    model: Transformer,
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    sentence: str = "ihr kauft ein , weil wir aufstehen",
    show: bool = True,
    step: int = 3,
) -> Explorer:
    """Step through beam search (beam size 1 and alpha 0: greedy decoding) on your sentence.

    step: the step shown first (3: the tree already branches, and a hypothesis has been dropped).
    """
    import ipywidgets as widgets

    source = DecodingSource(model, src_vocab, tgt_vocab)
    style = {"description_width": "70px"}
    controls = {
        "sentence": widgets.Text(
            sentence,
            description=tr("German"),
            continuous_update=False,
            layout=widgets.Layout(width="520px"),
            style=style,
        ),  # fmt: skip
        "beam_size": widgets.IntSlider(4, min=1, max=8, description=tr("beam size"), style=style),
        "alpha": widgets.FloatSlider(
            0.6, min=0.0, max=2.0, step=0.1, description="alpha", style=style
        ),
        "step": widgets.IntSlider(step, min=0, max=40, description=tr("step"), style=style),
    }

    def view(**settings) -> dict:
        data = decoding_view(source, **settings)
        controls["step"].max = data["n_steps"] - 1
        return data

    explorer = Explorer(
        controls, view, draw_decoding, describe_decoding, tr("Decoding, step by step")
    )
    if show:
        explorer.show()
    return explorer
