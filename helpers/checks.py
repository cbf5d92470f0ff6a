"""Input checks for the package's public entry points, in one place.

Hand-written: edit this file itself; no notebook generates it.

The lessons build each component as short as its idea; the checks that turn bad input into a clear
error live here, and the public entry points (configurations, constructors of public classes,
``Transformer.forward/encode/decode``, decoding, ``translate``, training) call them in one line:

    check_positive_int("n_heads", n_heads)
    check_token_ids("src", src, vocab_size=config.src_vocab_size, max_positions=config.max_positions)

Each check raises ``ValueError`` naming the argument, what was expected and what came, through
``tr`` (so the Chinese edition reads it in Chinese, see ``helpers.language``). Layers called inside
the model trust their callers and do not repeat these checks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from helpers.language import tr


def fail(message: str, **fields: Any) -> None:
    """Raise ValueError(tr(message).format(**fields)): the one way a check reports bad input."""
    raise ValueError(tr(message).format(**fields))


def check_positive_int(name: str, value: Any, *, allow_none: bool = False) -> None:
    """``value`` is an int >= 1 (or None where ``allow_none``); bool is not an int here."""
    if allow_none and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        if allow_none:
            fail("{name}: expected None or a positive int, got {value!r}", name=name, value=value)
        fail("{name}: expected a positive int, got {value!r}", name=name, value=value)


def check_non_negative_int(name: str, value: Any) -> None:
    """``value`` is an int >= 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        fail("{name}: expected an int >= 0, got {value!r}", name=name, value=value)


def check_number(
    name: str, value: Any, *, low: float | None = None, high: float | None = None,
    low_open: bool = False, high_open: bool = True, allow_none: bool = False,
) -> None:  # fmt: skip
    """``value`` is a finite real number in the interval given (``[low, high)`` by default)."""
    if allow_none and value is None:
        return
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        interval = (
            f"{left}{'-inf' if low is None else low}, {'inf' if high is None else high}{right}"
        )
        fail(
            "{name}: expected a number in {interval}, got {value!r}",
            name=name,
            interval=interval,
            value=value,
        )


def check_probability(name: str, value: Any) -> None:
    """``value`` is a probability in [0, 1) (dropout, label smoothing)."""
    check_number(name, value, low=0.0, high=1.0)


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> None:
    """``value`` is one of ``choices``."""
    choices = tuple(choices)
    if value not in choices:
        fail(
            "{name}: expected one of {choices}, got {value!r}",
            name=name,
            choices=", ".join(repr(c) for c in choices),
            value=value,
        )


def check_strings(name: str, texts: Any) -> None:
    """``texts`` is a list (or tuple) of str, not a single str."""
    if isinstance(texts, str):
        fail("{name}: expected a list of strings, got a single str", name=name)
    if not isinstance(texts, list | tuple):
        fail("{name}: expected a list of strings, got {got}", name=name, got=type(texts).__name__)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            fail(
                "{name}: expected a list of strings, got {got} at index {index}",
                name=name,
                got=type(text).__name__,
                index=index,
            )


def check_token_ids(
    name: str, ids: Any, *, vocab_size: int | None = None, max_positions: int | None = None
) -> None:
    """``ids`` is a (batch, seq_len) int64 tensor, both sizes >= 1, ids in [0, vocab_size)."""
    import torch

    if not isinstance(ids, torch.Tensor):
        fail("{name}: expected a tensor of token ids, got {got}", name=name, got=type(ids).__name__)
    if ids.dtype != torch.long:
        fail(
            "{name}: expected dtype torch.int64 (token ids), got {dtype}",
            name=name,
            dtype=ids.dtype,
        )
    if ids.dim() != 2 or ids.shape[0] == 0 or ids.shape[1] == 0:
        fail(
            "{name}: expected shape (batch, seq_len) with batch >= 1 and seq_len >= 1, got {shape}",
            name=name,
            shape=tuple(ids.shape),
        )
    if max_positions is not None and ids.shape[1] > max_positions:
        fail(
            "{name}: length {length} is longer than max_positions={max_positions}",
            name=name,
            length=ids.shape[1],
            max_positions=max_positions,
        )
    if vocab_size is not None:
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= vocab_size:
            fail(
                "{name}: expected ids in [0, {vocab_size}), got values from {low} to {high}",
                name=name,
                vocab_size=vocab_size,
                low=low,
                high=high,
            )


def check_bool_mask(name: str, mask: Any) -> None:
    """``mask`` is None or a bool tensor (True = may attend)."""
    import torch

    if mask is not None and (not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool):
        fail(
            "{name}: expected a bool tensor (True = may attend), got {got}",
            name=name,
            got=getattr(mask, "dtype", type(mask).__name__),
        )


# ---------------------------------------------------------------- notebook 13 (why self-attention)
# The public entry points of helpers.evaluation.complexity: local_attention, RestrictedSelfAttention,
# max_path_length and log_log_slope.


def check_window(window: Any) -> None:
    """``window`` is an odd positive int: the query's position and as many on each side."""
    if isinstance(window, bool) or not isinstance(window, int) or window < 1 or window % 2 == 0:
        fail(
            "window: expected an odd positive int (the query's position and as many on each "
            "side), got {window!r}",
            window=window,
        )


def check_qkv_window(q: Any, k: Any, v: Any, window: Any) -> None:
    """q, k: (batch, n_heads, n, d_k) of one shape; v: (batch, n_heads, n, d_v); an odd window."""
    check_window(window)
    if q.dim() != 4 or k.shape != q.shape or v.dim() != 4 or v.shape[:3] != q.shape[:3]:
        fail(
            "q, k, v: expected (batch, n_heads, n, d) each, q and k of one shape and v with "
            "the same batch, heads and n, got {q_shape}, {k_shape}, {v_shape}",
            q_shape=tuple(q.shape),
            k_shape=tuple(k.shape),
            v_shape=tuple(v.shape),
        )


def check_path_length(kind: Any, n: Any, size: Any) -> None:
    """A layer kind max_path_length knows, a length n >= 2 and an odd kernel or window >= 3."""
    kinds = ("self-attention", "recurrent", "convolution", "restricted")
    if kind not in kinds:
        fail("kind: expected one of {kinds}, got {kind!r}", kinds=", ".join(kinds), kind=kind)
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        fail("n: expected a sequence length >= 2, got {n!r}", n=n)
    if isinstance(size, bool) or not isinstance(size, int) or size < 3 or size % 2 == 0:
        fail("size: expected an odd kernel or window size >= 3, got {size!r}", size=size)


def check_slope_points(ns: Any, values: Any) -> None:
    """Two sequences of one length >= 2, of positive numbers (their logarithms are fitted)."""
    if len(ns) != len(values) or len(ns) < 2:
        fail(
            "ns, values: expected two sequences of one length >= 2, got {ns_length} and "
            "{values_length}",
            ns_length=len(ns),
            values_length=len(values),
        )
    if min(ns) <= 0 or min(values) <= 0:
        fail("ns, values: expected positive numbers (their logarithms are fitted)")


# --- Notebook 01 (helpers.text.vocab): vocabularies and padded batches -------------------------


def check_vocab_token(token: Any) -> None:
    """A vocabulary token is a non-empty str without spaces (split() could never produce one)."""
    if not isinstance(token, str) or not token or token.split() != [token]:
        fail("tokens: expected non-empty strings without spaces, got {token!r}", token=token)


def check_vocab_ids(ids: list[Any], size: int) -> None:
    """Every id is an int in [0, size): a larger one is a bug upstream (e.g. a too-wide output)."""
    for index in ids:
        if not isinstance(index, int) or not 0 <= index < size:
            fail("ids: expected ints in [0, {size}), got {index!r}", size=size, index=index)


def check_vocab_list(tokens: Sequence[str], specials: Sequence[str]) -> None:
    """A saved vocabulary (``Vocab.to_list``) starts with the special tokens, in their order."""
    if list(tokens[: len(specials)]) != list(specials):
        fail(
            "tokens: expected to start with {specials}, got {got}",
            specials=tuple(specials),
            got=list(tokens[: len(specials)]),
        )


def check_sequences(sequences: Sequence[Any]) -> None:
    """A batch to pad holds at least one sequence."""
    if not sequences:
        fail("sequences: expected at least one sequence, got none")


# ---------------------------------------------------------------- notebook 11 (training)


def check_token_budget(tokens_per_batch: Any, lengths: list[int]) -> None:
    """``tokens_per_batch`` is a positive int that holds every example (``lengths``: one per
    example)."""
    check_positive_int("tokens_per_batch", tokens_per_batch)
    for index, length in enumerate(lengths):
        if length > tokens_per_batch:
            fail(
                "tokens_per_batch: {tokens_per_batch} is smaller than example {index}, "
                "which is {length} tokens long",
                tokens_per_batch=tokens_per_batch,
                index=index,
                length=length,
            )


def check_smoothing_loss(logits: Any, target: Any, label_smoothing: Any, pad_id: int) -> None:
    """``label_smoothing`` is a probability; ``target`` has the shape of ``logits`` without its last
    (vocabulary) dimension, and at least one position that is not ``pad_id``."""
    check_probability("label_smoothing", label_smoothing)
    if logits.shape[:-1] != target.shape:
        fail(
            "target: expected shape {expected} (the logits without the "
            "vocabulary dimension), got {shape}",
            expected=tuple(logits.shape[:-1]),
            shape=tuple(target.shape),
        )
    if not (target != pad_id).any():
        fail("target: every position is padding, there is nothing to learn from")


# ------------------------------------------------------------------------------------------------
# Notebooks 05, 09, 10 and 12 (attention, decoder, Transformer, decoding): checks of one component.


def check_heads(d_model: int, n_heads: Any, d_k: Any = None, d_v: Any = None) -> None:
    """n_heads >= 1 divides d_model, unless d_k and d_v are both given; d_k, d_v None or >= 1."""
    check_positive_int("n_heads", n_heads)
    check_positive_int("d_k", d_k, allow_none=True)
    check_positive_int("d_v", d_v, allow_none=True)
    if (d_k is None or d_v is None) and d_model % n_heads != 0:
        fail(
            "n_heads: expected a positive divisor of d_model={d_model} (or give d_k and d_v), "
            "got {n_heads}",
            d_model=d_model,
            n_heads=n_heads,
        )


def check_vocabularies(config: Any) -> None:
    """A TransformerConfig's share_embeddings needs one vocabulary; its pad_id is an id of both."""
    if config.share_embeddings and config.src_vocab_size != config.tgt_vocab_size:
        fail(
            "share_embeddings: needs one shared vocabulary, got "
            "src_vocab_size={src_vocab_size} and tgt_vocab_size={tgt_vocab_size}",
            src_vocab_size=config.src_vocab_size,
            tgt_vocab_size=config.tgt_vocab_size,
        )
    pad_id = config.pad_id
    if (
        isinstance(pad_id, bool)
        or not isinstance(pad_id, int)
        or not 0 <= pad_id < min(config.src_vocab_size, config.tgt_vocab_size)
    ):
        fail("pad_id: expected an id inside both vocabularies, got {pad_id!r}", pad_id=pad_id)


def check_source_and_target(model: Any, src: Any, tgt: Any) -> None:
    """Transformer.forward: src and tgt are token ids of the model's vocabularies, one batch size."""
    import torch

    config = model.config
    if (
        isinstance(src, torch.Tensor)
        and isinstance(tgt, torch.Tensor)
        and src.dim() == tgt.dim() == 2
        and src.shape[0] != tgt.shape[0]
    ):
        fail(
            "tgt: expected batch size {batch} like src, got {got}",
            batch=src.shape[0],
            got=tgt.shape[0],
        )
    check_token_ids(
        "src", src, vocab_size=config.src_vocab_size, max_positions=config.max_positions
    )
    check_token_ids(
        "tgt", tgt, vocab_size=config.tgt_vocab_size, max_positions=config.max_positions
    )


def check_decode_inputs(
    model: Any, tgt: Any, memory: Any, src: Any, cache: Any, start: Any
) -> None:
    """Transformer.decode: tgt ids (from start 0; later steps feed the model's own tokens), memory
    of encode(src)'s shape, as many rows of tgt per row of src as the cache has beams, and a cache
    of this model holding exactly ``start`` positions."""
    config = model.config
    check_non_negative_int("start", start)
    if start == 0:
        check_token_ids(
            "tgt", tgt, vocab_size=config.tgt_vocab_size, max_positions=config.max_positions
        )
    expected = (*src.shape, config.d_model)
    if tuple(memory.shape) != expected:
        fail(
            "memory: expected (batch, src_len, d_model) = {expected}, got {shape}",
            expected=expected,
            shape=tuple(memory.shape),
        )
    beams = cache[0][1].beams if cache else 1  # rows of tgt per row of src
    if beams == 1 and tgt.shape[0] != src.shape[0]:
        fail(
            "tgt: expected batch size {batch} like src, got {got}",
            batch=src.shape[0],
            got=tgt.shape[0],
        )
    if tgt.shape[0] != beams * src.shape[0]:
        fail(
            "tgt: expected batch size {batch}, {beams} rows (the cache's beams) per row of src, got {got}",
            batch=beams * src.shape[0],
            beams=beams,
            got=tgt.shape[0],
        )
    if cache is None:
        return
    if len(cache) != len(model.decoder.layers):
        fail(
            "cache: expected one (self, cross) pair per layer, {layers} in all (use new_cache()), got {got}",
            layers=len(model.decoder.layers),
            got=len(cache),
        )
    if start != cache[0][0].length:
        fail(
            "start: expected {cached}, the number of positions already in the cache, got {start}",
            cached=cache[0][0].length,
            start=start,
        )


def check_model(model: Any) -> None:
    """``model`` is a helpers.Transformer (decoding, translate, the PyTorch reference): checked
    by what it has (a config, encode and decode), so that this module imports no model code."""
    has_parts = hasattr(model, "config") and all(
        callable(getattr(model, method, None)) for method in ("encode", "decode")
    )
    if not has_parts:
        fail("model: expected a helpers.Transformer, got {got}", got=type(model).__name__)


def check_reference_config(config: Any) -> None:
    """The PyTorch reference (notebook 10) can mirror this config: d_k = d_v = d_model / n_heads
    (nn.MultiheadAttention's only head size) and the sinusoidal table."""
    head_size = config.d_model // config.n_heads
    if config.d_model % config.n_heads or {config.d_k, config.d_v} - {None, head_size}:
        fail(
            "config: nn.MultiheadAttention needs d_k = d_v = d_model / n_heads, got "
            "d_model={d_model}, n_heads={n_heads}, d_k={d_k}, d_v={d_v}",
            d_model=config.d_model,
            n_heads=config.n_heads,
            d_k=config.d_k,
            d_v=config.d_v,
        )
    if config.positional != "sinusoidal":
        fail(
            "config: the reference uses the sinusoidal table, got positional={positional!r}",
            positional=config.positional,
        )


def check_search_options(
    model: Any, beam_size: Any, alpha: Any, max_new_tokens: Any, max_extra_len: Any
) -> None:
    """The options of greedy_decode, beam_search and translate."""
    check_model(model)
    check_positive_int("beam_size", beam_size)
    check_number("alpha", alpha, low=0.0)
    limit = model.config.max_positions
    value = max_new_tokens
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit
    ):
        fail(
            "max_new_tokens: expected None or an int in [1, {limit}] (the model's max_positions), "
            "got {max_new_tokens!r}",
            limit=limit,
            max_new_tokens=value,
        )
    check_non_negative_int("max_extra_len", max_extra_len)


def check_decoding(
    model: Any, src: Any, bos_id: Any, eos_id: Any, beam_size: Any, alpha: Any,
    max_new_tokens: Any, max_extra_len: Any,
) -> None:  # fmt: skip
    """greedy_decode and beam_search: the options, the start and end ids, the source ids."""
    check_search_options(model, beam_size, alpha, max_new_tokens, max_extra_len)
    config = model.config
    for name, value in (("bos_id", bos_id), ("eos_id", eos_id)):
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not 0 <= value < config.tgt_vocab_size
            or value == config.pad_id
        ):
            fail(
                "{name}: expected a target id in [0, {vocab_size}) other than pad_id={pad_id}, got {value!r}",
                name=name,
                vocab_size=config.tgt_vocab_size,
                pad_id=config.pad_id,
                value=value,
            )
    if bos_id == eos_id:
        fail(
            "eos_id: expected an id different from bos_id={bos_id}, got {eos_id}",
            bos_id=bos_id,
            eos_id=eos_id,
        )
    check_token_ids(
        "src", src, vocab_size=config.src_vocab_size, max_positions=config.max_positions
    )


def check_vocab_of(name: str, vocab: Any, size: int, pad_id: int) -> None:
    """translate: vocab is the model's vocabulary (a Vocab of that size and padding id), checked
    by what it has, so that this module imports no text code."""
    has_parts = callable(getattr(vocab, "encode", None)) and hasattr(vocab, "__len__")
    if not has_parts or len(vocab) != size or getattr(vocab, "pad_id", None) != pad_id:
        fail(
            "{name}: expected the model's vocabulary ({size} tokens, pad_id={pad_id}), got {vocab!r:.60}",
            name=name,
            size=size,
            pad_id=pad_id,
            vocab=vocab,
        )


def check_translation_pairs(hypotheses: Any, references: Any) -> None:
    """corpus_bleu and exact_match: two equally long, non-empty lists of strings."""
    check_strings("hypotheses", hypotheses)
    check_strings("references", references)
    if not hypotheses:
        fail("hypotheses: expected at least one translation, got an empty list")
    if len(hypotheses) != len(references):
        fail(
            "references: expected one per hypothesis ({expected}), got {got}",
            expected=len(hypotheses),
            got=len(references),
        )


# ---------------------------------------------------------------- notebook 12 (decoding)


def warn_unknown_words(words: Sequence[str]) -> None:
    """translate: a UserWarning, at translate's caller, naming the words that become <unk>."""
    import warnings

    unknown = sorted(set(words))
    if unknown:
        message = tr(
            "translate: {count} word(s) are not in the source vocabulary and become <unk>: {words}"
        )
        warnings.warn(
            message.format(count=len(unknown), words=", ".join(unknown)), UserWarning, stacklevel=3
        )


# ---------------------------------------------------------------- notebook 16 (GPT and sampling)
# The public entry points of helpers.model.gpt (GPTConfig, GPT.forward), helpers.decoding.sampling
# (filter_logits, generate) and helpers.training.language_model (the language-model training).


def check_gpt_config(config: Any) -> None:
    """A GPTConfig's sizes can make a model; pad_id is an id of its vocabulary."""
    for name in ("vocab_size", "d_model", "d_ff", "n_layers", "max_positions"):
        check_positive_int(name, getattr(config, name))
    check_heads(config.d_model, config.n_heads)
    check_probability("dropout", config.dropout)
    pad_id = config.pad_id
    if (
        isinstance(pad_id, bool)
        or not isinstance(pad_id, int)
        or not 0 <= pad_id < config.vocab_size
    ):
        fail(
            "pad_id: expected an id in [0, {vocab_size}), got {pad_id!r}",
            vocab_size=config.vocab_size,
            pad_id=pad_id,
        )


def check_llama_config(config: Any) -> None:
    """A LlamaConfig's sizes can make a model: GPTConfig's sizes, n_kv_heads dividing n_heads,
    an even head width for the rotary pairs, a rope_base > 1."""
    for name in ("vocab_size", "d_model", "d_ff", "n_layers", "max_positions"):
        check_positive_int(name, getattr(config, name))
    check_heads(config.d_model, config.n_heads)
    check_non_negative_int("pad_id", config.pad_id)
    check_positive_int("n_kv_heads", config.n_kv_heads, allow_none=True)
    if config.n_kv_heads is not None and config.n_heads % config.n_kv_heads != 0:
        fail(
            "n_kv_heads: expected a positive divisor of n_heads={n_heads}, got {n_kv_heads}",
            n_heads=config.n_heads,
            n_kv_heads=config.n_kv_heads,
        )
    if config.rotary and (config.d_model // config.n_heads) % 2 != 0:
        fail(
            "n_heads: rotary positions turn pairs of numbers: d_model / n_heads must be even, got "
            "{d_k}",
            d_k=config.d_model // config.n_heads,
        )
    check_number("rope_base", config.rope_base, low=1.0, low_open=True)


def check_gpt_inputs(model: Any, ids: Any, cache: Any, start: Any) -> None:
    """GPT.forward: token ids of the model's vocabulary that fit max_positions after ``start`` cached
    positions; a cache of this model holding exactly ``start`` positions."""
    config = model.config
    check_non_negative_int("start", start)
    check_token_ids("ids", ids, vocab_size=config.vocab_size)
    if start + ids.shape[1] > config.max_positions:
        fail(
            "ids: positions {start} to {end} go past max_positions={max_positions}",
            start=start,
            end=start + ids.shape[1] - 1,
            max_positions=config.max_positions,
        )
    if cache is None:
        if start != 0:
            fail("start: expected 0 without a cache, got {start}", start=start)
        return
    if len(cache) != len(model.blocks):
        fail(
            "cache: expected one KVCache per block, {blocks} in all (use new_cache()), got {got}",
            blocks=len(model.blocks),
            got=len(cache),
        )
    if start != cache[0].length:
        fail(
            "start: expected {cached}, the number of positions already in the cache, got {start}",
            cached=cache[0].length,
            start=start,
        )


def check_filter_options(logits: Any, top_k: Any, top_p: Any) -> None:
    """filter_logits: a float tensor of scores over the vocabulary, top_k a positive int or None,
    top_p in (0, 1] or None."""
    import torch

    if not isinstance(logits, torch.Tensor) or not logits.is_floating_point() or logits.dim() < 1:
        fail(
            "logits: expected a float tensor (..., vocab_size), got {got}",
            got=getattr(logits, "dtype", type(logits).__name__),
        )
    check_positive_int("top_k", top_k, allow_none=True)
    check_number("top_p", top_p, low=0.0, high=1.0, low_open=True, high_open=False, allow_none=True)


def check_generate_options(
    model: Any, ids: Any, max_new_tokens: Any, temperature: Any, top_k: Any, top_p: Any,
    generator: Any,
) -> None:  # fmt: skip
    """generate: a language model with a config, prompt ids without padding that leave room for
    max_new_tokens within max_positions, a temperature >= 0, filters as filter_logits takes them, and a
    torch.Generator or None."""
    import torch

    check_positive_int("top_k", top_k, allow_none=True)
    check_number("top_p", top_p, low=0.0, high=1.0, low_open=True, high_open=False, allow_none=True)
    if not hasattr(model, "config") or not callable(getattr(model, "new_cache", None)):
        fail("model: expected a helpers.GPT, got {got}", got=type(model).__name__)
    check_positive_int("max_new_tokens", max_new_tokens)
    check_number("temperature", temperature, low=0.0)
    check_token_ids("ids", ids, vocab_size=model.config.vocab_size)
    padding = int((ids == model.config.pad_id).sum())
    if padding:  # a padded prompt would attend to its padding through the cache
        fail(
            "ids: expected prompts without padding (batch prompts of one length together), got "
            "{padding} padding token(s)",
            padding=padding,
        )
    if ids.shape[1] + max_new_tokens > model.config.max_positions:
        fail(
            "max_new_tokens: the prompt's {length} tokens and {max_new_tokens} new ones go past "
            "max_positions={max_positions}",
            length=ids.shape[1],
            max_new_tokens=max_new_tokens,
            max_positions=model.config.max_positions,
        )
    if generator is not None and not isinstance(generator, torch.Generator):
        fail(
            "generator: expected a torch.Generator or None, got {got}", got=type(generator).__name__
        )


def check_samples(samples: Any) -> None:
    """measure_samples: a non-empty list of sentences."""
    check_strings("samples", samples)
    if not samples:
        fail("samples: expected at least one sentence, got none")


# ---------------------------------------------------------------- notebook 14 (sub-words, BPE)
# The public entry points of helpers.text.bpe: word_frequencies, train_bpe, BPETokenizer.encode,
# BPETokenizer.decode and BPETokenizer.load.


def check_some_words(frequencies: Any) -> None:
    """word_frequencies: the texts held at least one word."""
    if not frequencies:
        fail("texts: expected at least one word, got none")


def check_bpe_training(
    vocab_size: Any, min_frequency: Any, starting: Sequence[str], tie_order: Any
) -> None:
    """train_bpe: vocab_size an int no smaller than the starting pieces (``starting``),
    min_frequency a positive int, tie_order None or the starting pieces in some order."""
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        fail("vocab_size: expected an int, got {vocab_size!r}", vocab_size=vocab_size)
    check_positive_int("min_frequency", min_frequency)
    if tie_order is not None and (
        isinstance(tie_order, str) or sorted(tie_order) != sorted(starting)
    ):
        fail(
            "tie_order: expected the {count} starting pieces in some order, got {tie_order!r}",
            count=len(starting),
            tie_order=tie_order,
        )
    if vocab_size < len(starting):
        fail(
            "vocab_size: expected at least {count} (the characters of texts, with and without {end_of_word}), got {vocab_size}",  # noqa: E501
            count=len(starting),
            end_of_word="</w>",
            vocab_size=vocab_size,
        )


def check_text(text: Any) -> None:
    """BPETokenizer.encode: one str."""
    if not isinstance(text, str):
        fail("text: expected a str, got {type}", type=type(text).__name__)


def check_pieces(pieces: Any) -> None:
    """BPETokenizer.decode: a list of str pieces, not a single str."""
    if isinstance(pieces, str):
        fail("pieces: expected a list of pieces, got a single str")
    for piece in pieces:
        if not isinstance(piece, str):
            fail("pieces: expected strings, got {type}", type=type(piece).__name__)


def check_bpe_file(lines: list[str], headers: Sequence[str], path: Any) -> None:
    """BPETokenizer.load: the file starts with the two header lines and holds the merges' line."""
    if lines[:2] != list(headers[:2]) or headers[2] not in lines:
        fail("path: {path} is not a file written by BPETokenizer.save", path=path)
