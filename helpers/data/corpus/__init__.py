"""A small German→English corpus generated from a hand-written grammar.

Hand-written: edit this file itself; no notebook generates it.

The corpus is the training data of the series: 34,000 sentence pairs from a
regular grammar with about 540 German and 300 English word forms, meant to be
learned by a small Transformer on a CPU in minutes. It is generated, not
collected, so every pair is correct by construction, the translation of a German
sentence is always the same English sentence, and the data is identical on every
run and every machine (all randomness comes from one ``random.Random(CORPUS_SEED)``,
and no set or hash order is ever iterated).

The grammar is small but it is built so that attention has to do more than copy
word by word along the diagonal:

* articles and cases: der/die/das/den/dem/des → "the", ein/eine/einen/einem → "a"
  or "an" (English picks "an" from the *next* English word: "an old dog");
* verb conjugation: ich trinke / du trinkst / er trinkt / wir trinken →
  i drink / you drink / he drinks / we drink;
* adjectives with German endings: der kleine mann, einen kleinen hund, ein kleines kind;
* numbers with plural nouns: zwei katzen → two cats, drei kinder → three children;
* negation: kein/keine/keinen → "no", nicht → "does not" / "do not";
* word order that differs between the languages: verb second after a fronted
  adverb, verb last in subordinate clauses, the infinitive last after a modal verb,
  the separable prefix last (and it changes the meaning: macht die tür *auf* →
  opens, macht die tür *zu* → closes), the German genitive after its noun and the
  English possessive before it.

Patterns (``PATTERNS``), one example each (these pairs are always in "train"):

* ``simple``: die kleine frau kauft drei grüne äpfel
  → the small woman buys three green apples
* ``ditransitive``: der vater gibt dem kind einen apfel
  → the father gives the child an apple
* ``negation_kein``: der mann hat keinen hund → the man has no dog
* ``negation_nicht``: der mann trinkt das bier nicht
  → the man does not drink the beer
* ``inversion``: heute trinkt der mann ein bier → today the man drinks a beer
* ``question``: trinkt die frau einen kaffee ? → does the woman drink a coffee ?
* ``subordinate_dass``: ich weiß , dass der mann ein bier trinkt
  → i know that the man drinks a beer
* ``subordinate_weil``: das kind lacht , weil der hund den ball findet
  → the child laughs because the dog finds the ball
* ``modal``: ich möchte ein bier trinken → i want to drink a beer
* ``modal_object``: ich möchte ein bier → i want a beer
* ``separable``: der mann ruft die frau an → the man calls the woman
* ``intransitive``: heute kauft sie ein → today she goes shopping
* ``genitive``: die frau sucht den schlüssel des mannes
  → the woman looks for the man 's key

Translation conventions: German present tense → English simple present; "sie"
with a singular verb → "she", with a plural verb → "they" (the polite "Sie" is not
used, and "sie" is never an object, where it could mean "her" or "them"); "du"
and "ihr" → "you"; drinks are ordered by the glass ("ein bier" → "a beer") and
never counted.

Text format: lower case, words separated by single spaces, punctuation as
separate tokens (the comma before "dass"/"weil", a final "?" in questions; plain
statements have no final full stop), the English possessive as the token "'s".
German keeps its umlauts and ß. So ``str.split()`` is the tokeniser.

Splits (``SPLITS``): "train" (30,000 pairs), "valid" (2,000), "test" (2,000) and
"test_unseen", a marked part of "test" (300 pairs). No German sentence occurs in
two splits, and no pair occurs twice in one split. Every word of "valid" and
"test" also occurs in "train".

The unseen subset: before generating, twelve adjective–noun combinations are held
out (``UNSEEN_COMBINATIONS``, for example "roter apfel" / "red apple"). Train,
valid and the rest of test never contain them, although each adjective and each
noun is frequent in train with other partners. The "test_unseen" sentences come
from the same patterns, each contains at least one held-out combination (none
more than 50 times), so the subset measures whether a model combines known words
in a new way. ``unseen_combinations_in(german)`` finds them in a sentence.

Typical use::

    from helpers.data.corpus import load_corpus
    train_pairs = load_corpus("train")   # [(german, english), ...]

Whether an English sentence is one the grammar can write (notebook 16 judges a language model's
samples with it): ``helpers.data.corpus.recognizer.recognize(english)``, the pattern or None.
"""

from helpers.data.corpus.lexicon import (
    ADJECTIVES,
    CORPUS_SEED,
    SPLITS,
    UNSEEN_COMBINATIONS,
    UnseenCombination,
    unseen_combinations_in,
)
from helpers.data.corpus.patterns import (
    PATTERNS,
    pattern_examples,
)
from helpers.data.corpus.splits import (
    Corpus,
    describe_corpus,
    generate_corpus,
    load_corpus,
    pattern_of,
)

__all__ = [
    "ADJECTIVES",
    "CORPUS_SEED",
    "Corpus",
    "PATTERNS",
    "SPLITS",
    "UNSEEN_COMBINATIONS",
    "UnseenCombination",
    "describe_corpus",
    "generate_corpus",
    "load_corpus",
    "pattern_examples",
    "pattern_of",
    "unseen_combinations_in",
]
