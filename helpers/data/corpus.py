"""A small German→English corpus generated from a hand-written grammar.

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
"""

from __future__ import annotations

import bisect
import functools
import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeVar

__all__ = [
    "CORPUS_SEED",
    "PATTERNS",
    "SPLITS",
    "UNSEEN_COMBINATIONS",
    "Corpus",
    "UnseenCombination",
    "describe_corpus",
    "generate_corpus",
    "load_corpus",
    "pattern_examples",
    "pattern_of",
    "unseen_combinations_in",
]

CORPUS_SEED = 20170612  # the day "Attention Is All You Need" appeared on arXiv
SPLITS = ("train", "valid", "test", "test_unseen")

TRAIN_SIZE = 30_000
VALID_SIZE = 2_000
TEST_SIZE = 2_000  # including the unseen subset
TEST_UNSEEN_SIZE = 300
MIN_TOKENS = 3
MAX_GERMAN_TOKENS = 18
MAX_ENGLISH_TOKENS = 20

Pair = tuple[str, str]
T = TypeVar("T")

# Grammatical person, used as an index into the six present-tense verb forms:
# ich, du, er/sie/es, wir, ihr, sie (plural).
FIRST_SINGULAR, SECOND_SINGULAR, THIRD_SINGULAR = 0, 1, 2
FIRST_PLURAL, SECOND_PLURAL, THIRD_PLURAL = 3, 4, 5


# ---------------------------------------------------------------------------
# The lexicon
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Noun:
    """A German noun with its English translation and semantic kind."""

    german: str  # nominative singular, e.g. "mann"
    gender: str  # "m", "f" or "n"
    plural: str | None  # nominative plural; None for drinks (not counted)
    english: str
    english_plural: str | None
    kind: str  # semantic class such as "person" or "drink"; decides which verbs fit
    genitive: str  # genitive singular, e.g. "mannes"
    weak_form: str | None = None  # weak nouns: "der junge", "den jungen"

    @property
    def countable(self) -> bool:
        """True if the noun can be used in the plural (with numbers)."""
        return self.plural is not None

    def form(self, case: str, plural: bool) -> str:
        """The German word form for a case ("nominative", ...) and number."""
        if plural:
            assert self.plural is not None, f"{self.german} has no plural"
            if case == "dative" and not self.plural.endswith(("n", "s")):
                return self.plural + "n"  # den kindern, den äpfeln
            return self.plural
        if self.weak_form is not None and case != "nominative":
            return self.weak_form
        if case == "genitive":
            return self.genitive
        return self.german


def _noun(
    singular: str,
    plural: str | None,
    english: str,
    kind: str,
    *,
    english_plural: str | None = None,
    genitive: str | None = None,
    weak: str | None = None,
) -> Noun:
    """Build a Noun from "der mann"-style input; regular English plurals add "s"."""
    article, german = singular.split()
    gender = {"der": "m", "die": "f", "das": "n"}[article]
    if weak is not None:
        genitive = weak
    elif genitive is None:
        genitive = german if gender == "f" else german + "s"
    if plural is not None and english_plural is None:
        english_plural = english + "s"
    return Noun(german, gender, plural, english, english_plural, kind, genitive, weak)


NOUNS: tuple[Noun, ...] = (
    # people
    _noun("der mann", "männer", "man", "person", english_plural="men", genitive="mannes"),
    _noun("die frau", "frauen", "woman", "person", english_plural="women"),
    _noun("das kind", "kinder", "child", "person", english_plural="children", genitive="kindes"),
    _noun("der junge", "jungen", "boy", "person", weak="jungen"),
    _noun("das mädchen", "mädchen", "girl", "person"),
    _noun("der lehrer", "lehrer", "teacher", "person"),
    _noun("die lehrerin", "lehrerinnen", "teacher", "person"),
    _noun("der arzt", "ärzte", "doctor", "person", genitive="arztes"),
    _noun("die ärztin", "ärztinnen", "doctor", "person"),
    _noun("der vater", "väter", "father", "person"),
    _noun("die mutter", "mütter", "mother", "person"),
    _noun("der bruder", "brüder", "brother", "person"),
    _noun("die schwester", "schwestern", "sister", "person"),
    _noun("der freund", "freunde", "friend", "person", genitive="freundes"),
    _noun("die freundin", "freundinnen", "friend", "person"),
    _noun("der student", "studenten", "student", "person", weak="studenten"),
    _noun("der kellner", "kellner", "waiter", "person"),
    # animals
    _noun("der hund", "hunde", "dog", "animal", genitive="hundes"),
    _noun("die katze", "katzen", "cat", "animal"),
    _noun("das pferd", "pferde", "horse", "animal", genitive="pferdes"),
    _noun("der vogel", "vögel", "bird", "animal"),
    _noun("die maus", "mäuse", "mouse", "animal", english_plural="mice"),
    _noun("der fisch", "fische", "fish", "animal", english_plural="fish", genitive="fisches"),
    # food
    _noun("der apfel", "äpfel", "apple", "fruit"),
    _noun("die banane", "bananen", "banana", "fruit"),
    _noun("die birne", "birnen", "pear", "fruit"),
    _noun("die orange", "orangen", "orange", "fruit"),
    _noun("das ei", "eier", "egg", "food"),
    _noun("das brötchen", "brötchen", "roll", "food"),
    _noun("der kuchen", "kuchen", "cake", "food"),
    _noun("die suppe", "suppen", "soup", "food"),
    _noun("die pizza", "pizzen", "pizza", "food"),
    _noun("die wurst", "würste", "sausage", "food"),
    # drinks: ordered by the glass ("ein bier" → "a beer"), never counted
    _noun("das bier", None, "beer", "drink"),
    _noun("der wein", None, "wine", "drink"),
    _noun("der kaffee", None, "coffee", "drink"),
    _noun("der tee", None, "tea", "drink"),
    _noun("der saft", None, "juice", "drink"),
    _noun("das wasser", None, "water", "drink"),
    _noun("die limonade", None, "lemonade", "drink"),
    # things
    _noun("das buch", "bücher", "book", "text"),
    _noun("der brief", "briefe", "letter", "text"),
    _noun("die zeitung", "zeitungen", "newspaper", "text"),
    _noun("die jacke", "jacken", "jacket", "clothing"),
    _noun("der hut", "hüte", "hat", "clothing"),
    _noun("der mantel", "mäntel", "coat", "clothing"),
    _noun("der schuh", "schuhe", "shoe", "clothing"),
    _noun("das kleid", "kleider", "dress", "clothing", english_plural="dresses"),
    _noun("der computer", "computer", "computer", "device"),
    _noun("das telefon", "telefone", "phone", "device"),
    _noun("das radio", "radios", "radio", "device"),
    _noun("die lampe", "lampen", "lamp", "device"),
    _noun("das licht", "lichter", "light", "device"),
    _noun("der tisch", "tische", "table", "furniture"),
    _noun("der stuhl", "stühle", "chair", "furniture"),
    _noun("das auto", "autos", "car", "vehicle"),
    _noun("das fahrrad", "fahrräder", "bike", "vehicle"),
    _noun("der ball", "bälle", "ball", "thing"),
    _noun("die tasche", "taschen", "bag", "thing"),
    _noun("der schlüssel", "schlüssel", "key", "thing"),
    _noun("die uhr", "uhren", "watch", "thing", english_plural="watches"),
    _noun("die blume", "blumen", "flower", "thing"),
    _noun("das bild", "bilder", "picture", "thing"),
    _noun("das geschenk", "geschenke", "gift", "thing"),
    _noun("der regenschirm", "regenschirme", "umbrella", "thing"),
    _noun("die tür", "türen", "door", "opening"),
    _noun("das fenster", "fenster", "window", "opening"),
    _noun("das haus", "häuser", "house", "place"),
    _noun("das zimmer", "zimmer", "room", "place"),
    _noun("die küche", "küchen", "kitchen", "place"),
    _noun("das lied", "lieder", "song", "song"),
)
NOUN_KINDS = tuple(dict.fromkeys(noun.kind for noun in NOUNS))  # ordered, no sets
_NOUN_BY_NAME = {noun.german: noun for noun in NOUNS}


def _nouns(spec: str) -> tuple[Noun, ...]:
    """Nouns for a space-separated spec of kinds ("food drink") and/or noun names."""
    chosen: list[Noun] = []
    for word in spec.split():
        if word in NOUN_KINDS:
            chosen.extend(noun for noun in NOUNS if noun.kind == word)
        else:
            chosen.append(_NOUN_BY_NAME[word])
    return tuple(dict.fromkeys(chosen))


@dataclass(frozen=True)
class Adjective:
    """A German adjective; the declined form is stem + ending (klein + en)."""

    german: str
    stem: str  # "teur" for "teuer": ein teures auto
    english: str
    kinds: tuple[str, ...]  # the noun kinds it can describe


def _adjective(german: str, english: str, kinds: str, stem: str | None = None) -> Adjective:
    return Adjective(german, stem or german, english, tuple(kinds.split()))


ADJECTIVES: tuple[Adjective, ...] = (
    _adjective("groß", "big", "person animal fruit thing vehicle furniture place"),
    _adjective("klein", "small", "person animal fruit thing vehicle furniture place clothing"),
    _adjective("alt", "old", "person animal text thing vehicle furniture place clothing device"),
    _adjective("neu", "new", "text thing vehicle furniture place clothing device song"),
    _adjective("schön", "beautiful", "person animal thing place clothing song vehicle"),
    _adjective("teuer", "expensive", "thing vehicle clothing device furniture drink", "teur"),
    _adjective("billig", "cheap", "thing vehicle clothing device furniture drink"),
    _adjective("interessant", "interesting", "text song"),
    _adjective("rot", "red", "fruit thing vehicle clothing opening"),
    _adjective("grün", "green", "fruit thing vehicle clothing opening"),
    _adjective("gelb", "yellow", "fruit thing vehicle clothing"),
    _adjective("blau", "blue", "thing vehicle clothing opening"),
    _adjective("schwarz", "black", "animal thing vehicle clothing furniture"),
    _adjective("kalt", "cold", "drink food"),
    _adjective("warm", "warm", "drink food clothing place"),
    _adjective("frisch", "fresh", "fruit food drink"),
    _adjective("lecker", "tasty", "fruit food drink"),
    _adjective("süß", "sweet", "fruit food drink"),
    _adjective("nett", "nice", "person"),
    _adjective("müde", "tired", "person animal", "müd"),
    _adjective("hungrig", "hungry", "person animal"),
    _adjective("lustig", "funny", "person animal song"),
    _adjective("schnell", "fast", "animal vehicle"),
)
_ADJECTIVE_BY_NAME = {adjective.german: adjective for adjective in ADJECTIVES}


@dataclass(frozen=True)
class Pronoun:
    """A personal pronoun; case forms are None where the corpus does not use them."""

    nominative: str
    accusative: str | None
    dative: str | None
    english_subject: str
    english_object: str | None
    person: int

    def form(self, case: str) -> str:
        """The German form for "nominative", "accusative" or "dative"."""
        word = {
            "nominative": self.nominative,
            "accusative": self.accusative,
            "dative": self.dative,
        }[case]
        assert word is not None, f"{self.nominative} is not used in the {case}"
        return word


# "sie" (she / they) is only a subject: as an object it could mean "her" or "them",
# and the translation must be a function of the German sentence.
PRONOUN_ICH = Pronoun("ich", "mich", "mir", "i", "me", FIRST_SINGULAR)
PRONOUN_DU = Pronoun("du", "dich", "dir", "you", "you", SECOND_SINGULAR)
PRONOUN_ER = Pronoun("er", "ihn", "ihm", "he", "him", THIRD_SINGULAR)
PRONOUN_SIE_SINGULAR = Pronoun("sie", None, None, "she", None, THIRD_SINGULAR)
PRONOUN_WIR = Pronoun("wir", "uns", "uns", "we", "us", FIRST_PLURAL)
PRONOUN_IHR = Pronoun("ihr", "euch", "euch", "you", "you", SECOND_PLURAL)
PRONOUN_SIE_PLURAL = Pronoun("sie", None, None, "they", None, THIRD_PLURAL)
SUBJECT_PRONOUNS = (
    PRONOUN_ICH,
    PRONOUN_DU,
    PRONOUN_ER,
    PRONOUN_SIE_SINGULAR,
    PRONOUN_WIR,
    PRONOUN_IHR,
    PRONOUN_SIE_PLURAL,
)
OBJECT_PRONOUNS = tuple(p for p in SUBJECT_PRONOUNS if p.accusative is not None)


@dataclass(frozen=True)
class Quantity:
    """A number word or "viele", used with a plural noun."""

    german: str
    dative: str
    english: str


QUANTITIES: tuple[Quantity, ...] = (
    *(
        Quantity(german, german, english)
        for german, english in (
            ("zwei", "two"),
            ("drei", "three"),
            ("vier", "four"),
            ("fünf", "five"),
            ("sechs", "six"),
            ("sieben", "seven"),
            ("acht", "eight"),
            ("neun", "nine"),
            ("zehn", "ten"),
        )
    ),
    Quantity("viele", "vielen", "many"),
)


@dataclass(frozen=True)
class Adverb:
    """A time adverb (English keeps its position) or a frequency adverb
    (English puts it before the verb: "the man often sleeps")."""

    german: str
    english: str
    kind: str  # "time" or "frequency"
    can_front: bool = True


ADVERBS: tuple[Adverb, ...] = (
    Adverb("heute", "today", "time"),
    Adverb("jetzt", "now", "time"),
    Adverb("morgens", "in the morning", "time"),
    Adverb("abends", "in the evening", "time"),
    Adverb("manchmal", "sometimes", "time"),
    Adverb("oft", "often", "frequency"),
    Adverb("immer", "always", "frequency", can_front=False),
    Adverb("nie", "never", "frequency", can_front=False),
)
FRONTABLE_ADVERBS = tuple(adverb for adverb in ADVERBS if adverb.can_front)


@dataclass(frozen=True)
class Verb:
    """A German verb with its six present-tense forms and its English translation.

    For separable verbs ``forms`` holds the verb without its prefix ("rufe",
    "rufst", ...) and ``particle`` the prefix ("an"): in main clauses the prefix
    goes to the end (ruft ... an), in subordinate clauses it is joined (anruft).
    """

    infinitive: str  # "anrufen"
    forms: tuple[str, ...]  # ich, du, er, wir, ihr, sie
    particle: str  # separable prefix or ""
    english: str  # base form, may be several words: "look for"
    english_third: str  # "looks for"
    english_particle: str  # "up" in "pick up": after a pronoun ("picks me up")
    subjects: tuple[Noun, ...]
    objects: tuple[Noun, ...]  # empty for intransitive verbs
    recipients: tuple[Noun, ...]  # dative objects of "geben", "zeigen", ...
    pronoun_subjects: bool
    pronoun_objects: bool

    def finite(self, person: int) -> str:
        """Finite form in first or second position (without the prefix)."""
        return self.forms[person]

    def final(self, person: int) -> str:
        """Finite form at the end of a subordinate clause (prefix joined)."""
        return self.particle + self.forms[person]

    def english_form(self, person: int) -> str:
        """English present tense: "drinks" for he/she/it, else "drink"."""
        return self.english_third if person == THIRD_SINGULAR else self.english


def _english_third_person(base: str) -> str:
    """'drink' → 'drinks', 'go shopping' → 'goes shopping', 'tidy' → 'tidies'."""
    first, _, rest = base.partition(" ")
    if first == "have":
        first = "has"
    elif first.endswith(("s", "sh", "ch", "x", "o")):
        first += "es"
    elif first.endswith("y") and first[-2] not in "aeiou":
        first = first[:-1] + "ies"
    else:
        first += "s"
    return f"{first} {rest}".strip()


def _present_forms(infinitive: str, du: str | None, er: str | None) -> tuple[str, ...]:
    """Regular German present tense, with optional vowel-change forms for du/er."""
    stem = infinitive[:-2] if infinitive.endswith("en") else infinitive[:-1]
    if stem.endswith(("d", "t", "ffn")):  # findest, arbeitet, öffnet
        second, third = stem + "est", stem + "et"
    elif stem.endswith(("s", "ß", "z", "x")):  # du tanzt
        second, third = stem + "t", stem + "t"
    else:
        second, third = stem + "st", stem + "t"
    return (stem + "e", du or second, er or third, infinitive, third, infinitive)


def _verb(
    infinitive: str,
    english: str,
    *,
    subjects: str = "person",
    objects: str = "",
    recipients: str = "",
    du: str | None = None,
    er: str | None = None,
    forms: tuple[str, ...] | None = None,
    english_particle: str = "",
    pronoun_objects: bool = False,
) -> Verb:
    """Build a Verb; a separable prefix is marked with "|": "an|rufen"."""
    particle, _, bare = infinitive.rpartition("|")
    return Verb(
        infinitive=particle + bare,
        forms=forms or _present_forms(bare, du, er),
        particle=particle,
        english=english,
        english_third=_english_third_person(english),
        english_particle=english_particle,
        subjects=_nouns(subjects),
        objects=_nouns(objects),
        recipients=_nouns(recipients),
        pronoun_subjects="person" in subjects.split(),
        pronoun_objects=pronoun_objects,
    )


_EVERYDAY_THINGS = "food fruit drink text clothing device furniture vehicle thing"
_FINDABLE = "person animal thing text clothing vehicle device"

TRANSITIVE_VERBS: tuple[Verb, ...] = (
    _verb("trinken", "drink", objects="drink"),
    _verb("essen", "eat", objects="food fruit", du="isst", er="isst"),
    _verb(
        "fressen",
        "eat",
        subjects="animal",
        objects="food fruit fisch maus",
        du="frisst",
        er="frisst",
    ),
    _verb("lesen", "read", objects="text", du="liest", er="liest"),
    _verb("schreiben", "write", objects="brief buch lied"),
    _verb("kaufen", "buy", objects=f"{_EVERYDAY_THINGS} animal haus"),
    _verb(
        "sehen",
        "see",
        subjects="person animal",
        objects="person animal thing vehicle furniture place clothing",
        du="siehst",
        er="sieht",
        pronoun_objects=True,
    ),
    _verb("suchen", "look for", subjects="person animal", objects=_FINDABLE, pronoun_objects=True),
    _verb("finden", "find", subjects="person animal", objects=_FINDABLE, pronoun_objects=True),
    _verb("brauchen", "need", objects=_EVERYDAY_THINGS),
    _verb(
        "haben",
        "have",
        objects="animal text clothing device furniture vehicle thing haus",
        forms=("habe", "hast", "hat", "haben", "habt", "haben"),
    ),
    _verb(
        "mögen",
        "like",
        subjects="person animal",
        objects="person animal food fruit drink text clothing thing vehicle song",
        forms=("mag", "magst", "mag", "mögen", "mögt", "mögen"),
        pronoun_objects=True,
    ),
    _verb(
        "nehmen", "take", objects="food fruit drink thing text clothing", du="nimmst", er="nimmt"
    ),
    _verb("bestellen", "order", objects="food drink"),
    _verb("kochen", "cook", objects="suppe ei wurst pizza"),
    _verb("besuchen", "visit", objects="person", pronoun_objects=True),
    _verb("lieben", "love", objects="person animal", pronoun_objects=True),
    _verb(
        "malen", "paint", objects="person animal fruit thing vehicle place", pronoun_objects=True
    ),
    _verb(
        "waschen", "wash", objects="animal fruit clothing vehicle kind", du="wäschst", er="wäscht"
    ),
    _verb(
        "hören",
        "hear",
        subjects="person animal",
        objects="person animal song radio",
        pronoun_objects=True,
    ),
    _verb("reparieren", "repair", objects="device vehicle furniture uhr"),
)

SEPARABLE_VERBS: tuple[Verb, ...] = (
    _verb("an|rufen", "call", objects="person", pronoun_objects=True),
    _verb("ein|laden", "invite", objects="person", du="lädst", er="lädt", pronoun_objects=True),
    _verb("ab|holen", "pick", english_particle="up", objects="person hund", pronoun_objects=True),
    _verb("auf|machen", "open", objects="tür fenster tasche brief geschenk"),
    _verb("zu|machen", "close", objects="tür fenster tasche"),
    _verb("an|machen", "turn", english_particle="on", objects="computer radio lampe licht"),
    _verb("aus|machen", "turn", english_particle="off", objects="computer radio lampe licht"),
    _verb("an|ziehen", "put", english_particle="on", objects="clothing"),
    _verb("mit|bringen", "bring", objects="food fruit drink thing person"),
    _verb(
        "an|sehen",
        "look at",
        subjects="person animal",
        objects="person animal thing text",
        du="siehst",
        er="sieht",
        pronoun_objects=True,
    ),
)

DITRANSITIVE_VERBS: tuple[Verb, ...] = (
    _verb(
        "geben",
        "give",
        objects="food fruit drink thing text clothing",
        recipients="person",
        du="gibst",
        er="gibt",
    ),
    _verb("zeigen", "show", objects="thing text vehicle animal clothing", recipients="person"),
    _verb("bringen", "bring", objects="food fruit drink thing text", recipients="person"),
    _verb("schicken", "send", objects="brief buch geschenk blume bild", recipients="person"),
)

INTRANSITIVE_VERBS: tuple[Verb, ...] = (
    _verb("schlafen", "sleep", subjects="person animal", du="schläfst", er="schläft"),
    _verb("arbeiten", "work"),
    _verb("lachen", "laugh"),
    _verb("spielen", "play", subjects="person animal"),
    _verb("singen", "sing", subjects="person vogel"),
    _verb("tanzen", "dance"),
    _verb("laufen", "run", subjects="person animal", du="läufst", er="läuft"),
    _verb("warten", "wait", subjects="person animal"),
    _verb("ein|kaufen", "go shopping"),
    _verb("auf|stehen", "get up"),
    _verb("ein|schlafen", "fall asleep", subjects="person animal", du="schläfst", er="schläft"),
    _verb("an|kommen", "arrive"),
)

# Verbs that introduce a "dass" clause: ich weiß , dass ...
SAYING_VERBS: tuple[Verb, ...] = (
    _verb("wissen", "know", forms=("weiß", "weißt", "weiß", "wissen", "wisst", "wissen")),
    _verb("glauben", "believe"),
    _verb("sagen", "say"),
    _verb("hoffen", "hope"),
    _verb("denken", "think"),
)

_MOECHTE_FORMS = ("möchte", "möchtest", "möchte", "möchten", "möchtet", "möchten")

# "möchten" with a noun object and no infinitive: ich möchte ein bier → i want a beer
WANT_VERB = _verb("möchten", "want", forms=_MOECHTE_FORMS, objects=f"{_EVERYDAY_THINGS} animal")


@dataclass(frozen=True)
class Modal:
    """A modal verb; the main verb goes to the end as an infinitive."""

    forms: tuple[str, ...]
    english: str
    english_third: str

    def english_form(self, person: int) -> str:
        """ "wants to" for he/she/it, else "want to" ("can" never changes)."""
        return self.english_third if person == THIRD_SINGULAR else self.english


MODALS: tuple[Modal, ...] = (
    Modal(_MOECHTE_FORMS, "want to", "wants to"),
    Modal(("kann", "kannst", "kann", "können", "könnt", "können"), "can", "can"),
    Modal(("muss", "musst", "muss", "müssen", "müsst", "müssen"), "must", "must"),
    Modal(("soll", "sollst", "soll", "sollen", "sollt", "sollen"), "should", "should"),
    Modal(("darf", "darfst", "darf", "dürfen", "dürft", "dürfen"), "may", "may"),
)

_ALL_VERBS = (
    *TRANSITIVE_VERBS,
    *SEPARABLE_VERBS,
    *DITRANSITIVE_VERBS,
    *INTRANSITIVE_VERBS,
    *SAYING_VERBS,
)
_VERB_BY_NAME = {verb.infinitive: verb for verb in _ALL_VERBS}
MONOTRANSITIVE_VERBS = (*TRANSITIVE_VERBS, *SEPARABLE_VERBS)
# After a modal verb, "mögen" sounds odd ("er kann den hund mögen").
MODAL_INFINITIVES = tuple(verb for verb in MONOTRANSITIVE_VERBS if verb.infinitive != "mögen")

# "kein" negation, with verbs where English "no" sounds natural: "der mann trinkt
# kein bier" → "the man drinks no beer" (but not "looks for no ...").
KEIN_VERBS = tuple(
    _VERB_BY_NAME[name]
    for name in (
        "trinken",
        "essen",
        "fressen",
        "lesen",
        "schreiben",
        "kaufen",
        "sehen",
        "finden",
        "brauchen",
        "haben",
        "nehmen",
        "bestellen",
    )
)
_KEIN_OBJECTS = {
    verb.infinitive: tuple(noun for noun in verb.objects if noun.kind != "person")
    for verb in KEIN_VERBS
}

# The genitive pattern: "den schlüssel des mannes" → "the man 's key".
POSSESSORS = _nouns("person")
_POSSESSABLE = _nouns("text clothing device furniture vehicle thing opening place")
_GENITIVE_OBJECTS = {
    verb.infinitive: tuple(noun for noun in verb.objects if noun in _POSSESSABLE)
    for verb in MONOTRANSITIVE_VERBS
}
GENITIVE_VERBS = tuple(verb for verb in MONOTRANSITIVE_VERBS if _GENITIVE_OBJECTS[verb.infinitive])


# ---------------------------------------------------------------------------
# Held-out adjective-noun combinations (the "test_unseen" subset)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class UnseenCombination:
    """An adjective-noun pair that occurs only in "test_unseen"."""

    adjective: Adjective
    noun: Noun

    def german_bigrams(self) -> tuple[str, ...]:
        """Every German "adjective noun" word pair of this combination."""
        adjectives = [self.adjective.stem + ending for ending in ("e", "en", "er", "es")]
        nouns = [
            self.noun.form(case, plural)
            for plural in ((False, True) if self.noun.countable else (False,))
            for case in ("nominative", "accusative", "dative", "genitive")
        ]
        return tuple(dict.fromkeys(f"{a} {n}" for a in adjectives for n in nouns))

    def english_bigrams(self) -> tuple[str, ...]:
        """The English "adjective noun" word pairs: "red apple", "red apples"."""
        nouns = [self.noun.english]
        if self.noun.english_plural is not None:
            nouns.append(self.noun.english_plural)
        return tuple(f"{self.adjective.english} {noun}" for noun in nouns)


UNSEEN_COMBINATIONS: tuple[UnseenCombination, ...] = tuple(
    UnseenCombination(_ADJECTIVE_BY_NAME[adjective], _NOUN_BY_NAME[noun])
    for adjective, noun in (
        ("rot", "apfel"),
        ("alt", "hund"),
        ("klein", "katze"),
        ("neu", "fahrrad"),
        ("kalt", "bier"),
        ("schön", "blume"),
        ("teuer", "uhr"),
        ("nett", "schwester"),
        ("schwarz", "auto"),
        ("lecker", "kuchen"),
        ("müde", "kind"),
        ("warm", "jacke"),
    )
)
for _combination in UNSEEN_COMBINATIONS:
    if _combination.noun.kind not in _combination.adjective.kinds:
        raise ValueError(f"{_combination} can never be generated")

_UNSEEN_BY_BIGRAM = {
    tuple(bigram.split()): combination
    for combination in UNSEEN_COMBINATIONS
    for bigram in combination.german_bigrams()
}
# Adjectives a noun may take in train/valid, and the held-out ones per noun.
_TRAINING_ADJECTIVES = {
    noun.german: tuple(
        adjective
        for adjective in ADJECTIVES
        if noun.kind in adjective.kinds
        and UnseenCombination(adjective, noun) not in UNSEEN_COMBINATIONS
    )
    for noun in NOUNS
}
_HELD_OUT_ADJECTIVES = {
    noun.german: tuple(c.adjective for c in UNSEEN_COMBINATIONS if c.noun == noun) for noun in NOUNS
}


def unseen_combinations_in(german: str) -> tuple[UnseenCombination, ...]:
    """The held-out combinations that occur in a German sentence (in order)."""
    tokens = german.split()
    found: list[UnseenCombination] = []
    for bigram in itertools.pairwise(tokens):
        combination = _UNSEEN_BY_BIGRAM.get(bigram)
        if combination is not None and combination not in found:
            found.append(combination)
    return tuple(found)


# ---------------------------------------------------------------------------
# Noun phrases and clauses, and how each language writes them
# ---------------------------------------------------------------------------

DEFINITE_ARTICLES = {
    "nominative": {"m": "der", "f": "die", "n": "das", "plural": "die"},
    "accusative": {"m": "den", "f": "die", "n": "das", "plural": "die"},
    "dative": {"m": "dem", "f": "der", "n": "dem", "plural": "den"},
    "genitive": {"m": "des", "f": "der", "n": "des", "plural": "der"},
}
INDEFINITE_ARTICLES = {
    "nominative": {"m": "ein", "f": "eine", "n": "ein"},
    "accusative": {"m": "einen", "f": "eine", "n": "ein"},
    "dative": {"m": "einem", "f": "einer", "n": "einem"},
    "genitive": {"m": "eines", "f": "einer", "n": "eines"},
}
NEGATIVE_ARTICLES = {
    "nominative": {"m": "kein", "f": "keine", "n": "kein", "plural": "keine"},
    "accusative": {"m": "keinen", "f": "keine", "n": "kein", "plural": "keine"},
    "dative": {"m": "keinem", "f": "keiner", "n": "keinem", "plural": "keinen"},
    "genitive": {"m": "keines", "f": "keiner", "n": "keines", "plural": "keiner"},
}
# Adjective endings after der/die/das ("weak"), after ein/kein ("mixed") and
# with no article, as after numbers ("strong"; only plurals occur here).
WEAK_ENDINGS = {
    "nominative": {"m": "e", "f": "e", "n": "e", "plural": "en"},
    "accusative": {"m": "en", "f": "e", "n": "e", "plural": "en"},
    "dative": {"m": "en", "f": "en", "n": "en", "plural": "en"},
    "genitive": {"m": "en", "f": "en", "n": "en", "plural": "en"},
}
MIXED_ENDINGS = {
    "nominative": {"m": "er", "f": "e", "n": "es", "plural": "en"},
    "accusative": {"m": "en", "f": "e", "n": "es", "plural": "en"},
    "dative": {"m": "en", "f": "en", "n": "en", "plural": "en"},
    "genitive": {"m": "en", "f": "en", "n": "en", "plural": "en"},
}
STRONG_PLURAL_ENDINGS = {"nominative": "e", "accusative": "e", "dative": "en", "genitive": "er"}


# NounPhrase and Clause are made tens of thousands of times: plain (not frozen)
# dataclasses are faster to create. Only the sentence patterns change them.
@dataclass(slots=True)
class NounPhrase:
    """A pronoun, or a noun with a determiner and an optional adjective.

    ``determiner`` is "the", "a", "no" (kein) or "quantity" (zwei, viele, ...).
    ``possessor`` is a genitive attribute: das auto des mannes.
    """

    noun: Noun | None = None
    pronoun: Pronoun | None = None
    determiner: str = "the"
    plural: bool = False
    adjective: Adjective | None = None
    quantity: Quantity | None = None
    possessor: NounPhrase | None = None

    @property
    def person(self) -> int:
        """Grammatical person, for verb agreement."""
        if self.pronoun is not None:
            return self.pronoun.person
        return THIRD_PLURAL if self.plural else THIRD_SINGULAR


def german_noun_phrase(phrase: NounPhrase, case: str) -> list[str]:
    """German words of a noun phrase in the given case."""
    if phrase.pronoun is not None:
        return [phrase.pronoun.form(case)]
    noun = phrase.noun
    assert noun is not None
    slot = "plural" if phrase.plural else noun.gender
    if phrase.determiner == "the":
        words, ending = [DEFINITE_ARTICLES[case][slot]], WEAK_ENDINGS[case][slot]
    elif phrase.determiner == "a":
        words, ending = [INDEFINITE_ARTICLES[case][slot]], MIXED_ENDINGS[case][slot]
    elif phrase.determiner == "no":
        words, ending = [NEGATIVE_ARTICLES[case][slot]], MIXED_ENDINGS[case][slot]
    else:  # a quantity, always with a plural noun
        assert phrase.quantity is not None and phrase.plural
        quantity = phrase.quantity.dative if case == "dative" else phrase.quantity.german
        words, ending = [quantity], STRONG_PLURAL_ENDINGS[case]
    if phrase.adjective is not None:
        words.append(phrase.adjective.stem + ending)
    words.append(noun.form(case, phrase.plural))
    if phrase.possessor is not None:
        words += german_noun_phrase(phrase.possessor, "genitive")
    return words


def english_indefinite_article(next_word: str) -> str:
    """ "an" before a vowel letter (an apple, an old dog), otherwise "a"."""
    return "an" if next_word[0] in "aeiou" else "a"


def english_noun_phrase(phrase: NounPhrase, *, as_subject: bool = True) -> list[str]:
    """English words of a noun phrase."""
    if phrase.pronoun is not None:
        word = phrase.pronoun.english_subject if as_subject else phrase.pronoun.english_object
        assert word is not None
        return [word]
    noun = phrase.noun
    assert noun is not None
    noun_word = noun.english_plural if phrase.plural else noun.english
    assert noun_word is not None
    modifier = [phrase.adjective.english] if phrase.adjective is not None else []
    if phrase.possessor is not None:  # the man 's new car
        return [*english_noun_phrase(phrase.possessor), "'s", *modifier, noun_word]
    if phrase.determiner == "a":
        determiner = english_indefinite_article((modifier or [noun_word])[0])
    elif phrase.determiner == "quantity":
        assert phrase.quantity is not None
        determiner = phrase.quantity.english
    else:
        determiner = phrase.determiner  # "the" or "no"
    return [determiner, *modifier, noun_word]


@dataclass(slots=True)
class Clause:
    """Subject, verb and objects, before any word order is chosen."""

    subject: NounPhrase
    verb: Verb
    direct_object: NounPhrase | None = None
    recipient: NounPhrase | None = None  # dative object
    negated: bool = False  # with "nicht"; "kein" is a determiner of the object
    adverb: Adverb | None = None
    adverb_fronted: bool = False  # "heute trinkt der mann ..." (verb second)


def german_words(clause: Clause, order: str = "main", modal: Modal | None = None) -> list[str]:
    """German words of a clause.

    ``order`` is "main" (verb second, prefix last), "question" (verb first),
    "final" (subordinate clause: verb last, prefix joined) or "modal" (modal verb
    second, infinitive last).
    """
    verb, person = clause.verb, clause.subject.person
    subject = german_noun_phrase(clause.subject, "nominative")
    middle: list[str] = []
    if clause.adverb is not None and not clause.adverb_fronted:
        middle.append(clause.adverb.german)
    if clause.recipient is not None:
        middle += german_noun_phrase(clause.recipient, "dative")
    if clause.direct_object is not None:
        middle += german_noun_phrase(clause.direct_object, "accusative")
    if clause.negated:
        middle.append("nicht")
    particle = [verb.particle] if verb.particle else []
    if order == "main":
        if clause.adverb is not None and clause.adverb_fronted:
            return [clause.adverb.german, verb.finite(person), *subject, *middle, *particle]
        return [*subject, verb.finite(person), *middle, *particle]
    if order == "question":
        return [verb.finite(person), *subject, *middle, *particle, "?"]
    if order == "final":
        return [*subject, *middle, verb.final(person)]
    if order == "modal":
        assert modal is not None
        return [*subject, modal.forms[person], *middle, verb.infinitive]
    raise ValueError(f"unknown order {order!r}")


def english_words(clause: Clause, question: bool = False, modal: Modal | None = None) -> list[str]:
    """English words of a clause: always subject-verb-object, with "do"-support
    for questions and "nicht", and the adverb where English wants it."""
    verb, person = clause.verb, clause.subject.person
    do = "does" if person == THIRD_SINGULAR else "do"
    subject = english_noun_phrase(clause.subject)
    adverb = clause.adverb
    frequency = [adverb.english] if adverb is not None and adverb.kind == "frequency" else []
    if question:
        words = [do, *subject, verb.english]
    elif modal is not None:
        words = [*subject, *frequency, modal.english_form(person), verb.english]
    elif clause.negated:
        words = [*subject, *frequency, do, "not", verb.english]
    else:
        words = [*subject, *frequency, verb.english_form(person)]
    if clause.recipient is not None:
        words += english_noun_phrase(clause.recipient, as_subject=False)
    particle = [verb.english_particle] if verb.english_particle else []
    if clause.direct_object is not None:
        obj = english_noun_phrase(clause.direct_object, as_subject=False)
        if clause.direct_object.pronoun is not None:
            words += [*obj, *particle]  # picks me up
        else:
            words += [*particle, *obj]  # picks up the child
    else:
        words += particle
    if adverb is not None and adverb.kind == "time":
        words = [adverb.english, *words] if clause.adverb_fronted else [*words, adverb.english]
    if question:
        words.append("?")
    return words


# ---------------------------------------------------------------------------
# Random choices
# ---------------------------------------------------------------------------

# Determiner codes with their relative weights (repeats = more likely).
SUBJECT_DETERMINERS = ("the",) * 6 + ("the_plural",) * 2 + ("a", "quantity")
OBJECT_DETERMINERS = ("the",) * 4 + ("a",) * 4 + ("the_plural",) + ("quantity",) * 2
RECIPIENT_DETERMINERS = ("the",) * 6 + ("the_plural",) * 2 + ("a",) * 2
DEFINITE_DETERMINERS = ("the",) * 4 + ("the_plural",)
NEGATIVE_DETERMINERS = ("no",) * 3 + ("no_plural",)
# A plural code, and what it becomes for nouns without a plural (drinks).
_SINGULAR_OF = {"the_plural": "the", "no_plural": "no", "quantity": "a"}
_WITHOUT_PLURAL = {"the_plural": "the", "no_plural": "no"}  # NounPhrase.determiner


class SentenceMaker:
    """Draws the parts of random sentences; all randomness goes through ``rng``.

    With ``prefer_unseen`` (used to build "test_unseen") the maker often picks a
    noun that has a held-out adjective, and then mostly uses that adjective;
    otherwise it never uses a held-out combination.
    """

    def __init__(self, rng: random.Random, prefer_unseen: bool = False) -> None:
        self.rng = rng
        self.random = rng.random  # a float in [0, 1); every choice below uses it
        self.prefer_unseen = prefer_unseen

    def pick(self, options: Sequence[T]) -> T:
        """One element of a sequence, uniformly (like rng.choice, but faster)."""
        return options[int(self.random() * len(options))]

    def pick_pattern(self) -> str:
        """A pattern name, drawn with the weights of _PATTERN_MAKERS."""
        position = self.random() * _CUMULATIVE_WEIGHTS[-1]
        return PATTERNS[bisect.bisect(_CUMULATIVE_WEIGHTS, position)]

    def chance(self, probability: float) -> bool:
        """True with the given probability."""
        return self.random() < probability

    def adjective_for(self, noun: Noun, probability: float) -> Adjective | None:
        """An adjective that fits the noun, or None."""
        held_out = _HELD_OUT_ADJECTIVES[noun.german]
        if self.prefer_unseen and held_out and self.chance(0.7):
            return self.pick(held_out)
        options = _TRAINING_ADJECTIVES[noun.german]
        if options and self.chance(probability):
            return self.pick(options)
        return None

    def noun_phrase(
        self, nouns: Sequence[Noun], determiners: Sequence[str], adjective_chance: float = 0.25
    ) -> NounPhrase:
        """A noun phrase with a random noun, determiner and maybe an adjective."""
        noun = self.pick(nouns)
        if self.prefer_unseen and self.chance(0.5):
            held_out_nouns = [option for option in nouns if _HELD_OUT_ADJECTIVES[option.german]]
            if held_out_nouns:
                noun = self.pick(held_out_nouns)
        determiner = self.pick(determiners)
        if not noun.countable:
            determiner = _SINGULAR_OF.get(determiner, determiner)
        plural = determiner in _SINGULAR_OF
        quantity = self.pick(QUANTITIES) if determiner == "quantity" else None
        return NounPhrase(
            noun=noun,
            determiner=_WITHOUT_PLURAL.get(determiner, determiner),
            plural=plural,
            adjective=self.adjective_for(noun, adjective_chance),
            quantity=quantity,
        )

    def subject_for(
        self, verb: Verb, pronoun_chance: float = 0.3, adjective_chance: float = 0.2
    ) -> NounPhrase:
        """A subject the verb fits: a pronoun or a noun phrase."""
        if verb.pronoun_subjects and self.chance(pronoun_chance):
            return NounPhrase(pronoun=self.pick(SUBJECT_PRONOUNS))
        return self.noun_phrase(verb.subjects, SUBJECT_DETERMINERS, adjective_chance)

    def pronoun_object(self, subject: NounPhrase) -> NounPhrase:
        """An object pronoun that is not reflexive ("ich sehe mich" is excluded)."""
        options = [
            pronoun
            for pronoun in OBJECT_PRONOUNS
            if subject.pronoun is None
            or pronoun.person != subject.pronoun.person
            or pronoun.person == THIRD_SINGULAR
        ]
        return NounPhrase(pronoun=self.pick(options))

    def object_for(
        self,
        verb: Verb,
        subject: NounPhrase,
        determiners: Sequence[str] = OBJECT_DETERMINERS,
        pronoun_chance: float = 0.0,
        adjective_chance: float = 0.25,
        nouns: Sequence[Noun] | None = None,
    ) -> NounPhrase:
        """A direct object the verb fits."""
        if verb.pronoun_objects and self.chance(pronoun_chance):
            return self.pronoun_object(subject)
        return self.noun_phrase(nouns or verb.objects, determiners, adjective_chance)

    def recipient_for(self, verb: Verb, subject: NounPhrase) -> NounPhrase:
        """A dative object: dem kind, den kindern, mir, ..."""
        if self.chance(0.15):
            return self.pronoun_object(subject)
        return self.noun_phrase(verb.recipients, RECIPIENT_DETERMINERS, 0.15)

    # Whole clauses ---------------------------------------------------------

    def transitive_clause(
        self,
        verbs: Sequence[Verb],
        *,
        subject_pronoun: float = 0.3,
        object_pronoun: float = 0.1,
        adjective_chance: float = 0.25,
    ) -> Clause:
        """Subject, verb, direct object (the numbers are probabilities)."""
        verb = self.pick(verbs)
        subject = self.subject_for(verb, subject_pronoun, adjective_chance * 0.8)
        direct_object = self.object_for(
            verb, subject, pronoun_chance=object_pronoun, adjective_chance=adjective_chance
        )
        return Clause(subject, verb, direct_object)

    def ditransitive_clause(
        self, *, subject_pronoun: float = 0.3, adjective_chance: float = 0.2
    ) -> Clause:
        """Subject, verb, dative object, accusative object."""
        verb = self.pick(DITRANSITIVE_VERBS)
        subject = self.subject_for(verb, subject_pronoun, adjective_chance)
        recipient = self.recipient_for(verb, subject)
        direct_object = self.object_for(verb, subject, adjective_chance=adjective_chance)
        return Clause(subject, verb, direct_object, recipient)

    def intransitive_clause(
        self, *, subject_pronoun: float = 0.3, adjective_chance: float = 0.2
    ) -> Clause:
        """Subject and verb only."""
        verb = self.pick(INTRANSITIVE_VERBS)
        return Clause(self.subject_for(verb, subject_pronoun, adjective_chance), verb)

    def kein_clause(self, *, subject_pronoun: float = 0.3, adjective_chance: float = 0.2) -> Clause:
        """A clause whose object is negated with kein/keine/keinen."""
        verb = self.pick(KEIN_VERBS)
        subject = self.subject_for(verb, subject_pronoun, adjective_chance)
        direct_object = self.object_for(
            verb,
            subject,
            NEGATIVE_DETERMINERS,
            adjective_chance=adjective_chance,
            nouns=_KEIN_OBJECTS[verb.infinitive],
        )
        return Clause(subject, verb, direct_object)

    def nicht_clause(
        self, *, subject_pronoun: float = 0.3, adjective_chance: float = 0.2
    ) -> Clause:
        """A clause negated with "nicht"; the object is definite or a pronoun."""
        verb = self.pick(MONOTRANSITIVE_VERBS)
        subject = self.subject_for(verb, subject_pronoun, adjective_chance)
        direct_object = self.object_for(
            verb,
            subject,
            DEFINITE_DETERMINERS,
            pronoun_chance=0.25,
            adjective_chance=adjective_chance,
        )
        return Clause(subject, verb, direct_object, negated=True)

    def subordinate_clause(self) -> Clause:
        """Any clause that can follow "dass" or "weil" (short: few adjectives).

        Pronoun subjects are a bit more frequent here, so that joined forms such
        as "anrufst" (dass du ... anrufst) occur often enough to be learned.
        """
        options = {"subject_pronoun": 0.45, "adjective_chance": 0.15}
        roll = self.random()
        if roll < 0.2:
            return self.intransitive_clause(**options)
        if roll < 0.35:
            return self.ditransitive_clause(subject_pronoun=0.45, adjective_chance=0.1)
        if roll < 0.45:
            return self.kein_clause(**options)
        if roll < 0.55:
            return self.nicht_clause(**options)
        return self.transitive_clause(MONOTRANSITIVE_VERBS, object_pronoun=0.15, **options)


# ---------------------------------------------------------------------------
# Sentence patterns
# ---------------------------------------------------------------------------

Words = tuple[list[str], list[str]]  # German words, English words


def translate(clause: Clause, order: str = "main", modal: Modal | None = None) -> Words:
    """German words (in the given order, see german_words) and English words of a clause."""
    question = order == "question"
    return german_words(clause, order, modal), english_words(clause, question, modal)


def with_subordinate(main: Clause, conjunction: str, inner: Clause) -> Words:
    """ "main , dass/weil inner" with the verb of the inner clause last."""
    english_conjunction = {"dass": "that", "weil": "because"}[conjunction]
    german = [*german_words(main), ",", conjunction, *german_words(inner, "final")]
    return german, [*english_words(main), english_conjunction, *english_words(inner)]


def _simple(maker: SentenceMaker) -> Words:
    clause = maker.transitive_clause(TRANSITIVE_VERBS, object_pronoun=0.15, adjective_chance=0.35)
    return translate(clause)


def _ditransitive(maker: SentenceMaker) -> Words:
    return translate(maker.ditransitive_clause())


def _negation_kein(maker: SentenceMaker) -> Words:
    return translate(maker.kein_clause(adjective_chance=0.25))


def _negation_nicht(maker: SentenceMaker) -> Words:
    return translate(maker.nicht_clause(adjective_chance=0.25))


def _inversion(maker: SentenceMaker) -> Words:
    clause = maker.transitive_clause(MONOTRANSITIVE_VERBS, object_pronoun=0.0)
    clause.adverb, clause.adverb_fronted = maker.pick(FRONTABLE_ADVERBS), True
    return translate(clause)


def _question(maker: SentenceMaker) -> Words:
    clause = maker.transitive_clause(MONOTRANSITIVE_VERBS, object_pronoun=0.0)
    return translate(clause, "question")


def _subordinate_dass(maker: SentenceMaker) -> Words:
    saying = maker.pick(SAYING_VERBS)
    main = Clause(maker.subject_for(saying, pronoun_chance=0.5, adjective_chance=0.1), saying)
    return with_subordinate(main, "dass", maker.subordinate_clause())


def _subordinate_weil(maker: SentenceMaker) -> Words:
    if maker.chance(0.4):
        main = maker.intransitive_clause(adjective_chance=0.1)
    else:
        main = maker.transitive_clause(MONOTRANSITIVE_VERBS, adjective_chance=0.1)
    return with_subordinate(main, "weil", maker.subordinate_clause())


def _modal(maker: SentenceMaker) -> Words:
    modal = maker.pick(MODALS)
    roll = maker.random()
    if roll < 0.2:
        clause = maker.intransitive_clause()
    elif roll < 0.35:
        clause = maker.ditransitive_clause()
    else:
        clause = maker.transitive_clause(MODAL_INFINITIVES)
    return translate(clause, "modal", modal)


def _modal_object(maker: SentenceMaker) -> Words:
    subject = maker.subject_for(WANT_VERB, pronoun_chance=0.4)
    return translate(Clause(subject, WANT_VERB, maker.object_for(WANT_VERB, subject)))


def _separable(maker: SentenceMaker) -> Words:
    clause = maker.transitive_clause(SEPARABLE_VERBS, object_pronoun=0.15, adjective_chance=0.3)
    return translate(clause)


def _intransitive(maker: SentenceMaker) -> Words:
    clause = maker.intransitive_clause(adjective_chance=0.25)
    clause.adverb_fronted = maker.chance(0.5)
    clause.adverb = maker.pick(FRONTABLE_ADVERBS if clause.adverb_fronted else ADVERBS)
    return translate(clause)


def _genitive(maker: SentenceMaker) -> Words:
    verb = maker.pick(GENITIVE_VERBS)
    subject = maker.subject_for(verb, adjective_chance=0.1)
    things = _GENITIVE_OBJECTS[verb.infinitive]
    direct_object = maker.noun_phrase(things, DEFINITE_DETERMINERS, adjective_chance=0.2)
    direct_object.possessor = maker.noun_phrase(POSSESSORS, ("the",), adjective_chance=0.2)
    return translate(Clause(subject, verb, direct_object))


# name → (function, relative weight); the order is the order of PATTERNS.
_PATTERN_MAKERS: dict[str, tuple[Callable[[SentenceMaker], Words], int]] = {
    "simple": (_simple, 12),
    "ditransitive": (_ditransitive, 7),
    "negation_kein": (_negation_kein, 7),
    "negation_nicht": (_negation_nicht, 8),
    "inversion": (_inversion, 9),
    "question": (_question, 7),
    "subordinate_dass": (_subordinate_dass, 9),
    "subordinate_weil": (_subordinate_weil, 7),
    "modal": (_modal, 10),
    "modal_object": (_modal_object, 5),
    "separable": (_separable, 8),
    "intransitive": (_intransitive, 6),
    "genitive": (_genitive, 5),
}
PATTERNS: tuple[str, ...] = tuple(_PATTERN_MAKERS)
_CUMULATIVE_WEIGHTS = list(itertools.accumulate(weight for _, weight in _PATTERN_MAKERS.values()))


def pattern_examples() -> tuple[tuple[str, str, str], ...]:
    """One hand-built (pattern, german, english) example per pattern.

    They are made with the same grammar functions as the random sentences and
    are always part of "train" (they include the toy pair
    "ich möchte ein bier" → "i want a beer").
    """
    noun, adjective, verb = _NOUN_BY_NAME, _ADJECTIVE_BY_NAME, _VERB_BY_NAME

    def the(name: str) -> NounPhrase:
        return NounPhrase(noun[name])

    def a(name: str) -> NounPhrase:
        return NounPhrase(noun[name], determiner="a")

    ich, sie = NounPhrase(pronoun=PRONOUN_ICH), NounPhrase(pronoun=PRONOUN_SIE_SINGULAR)
    small_woman = NounPhrase(noun["frau"], adjective=adjective["klein"])
    three_green_apples = NounPhrase(
        noun["apfel"],
        determiner="quantity",
        plural=True,
        adjective=adjective["grün"],
        quantity=QUANTITIES[1],
    )
    no_dog = NounPhrase(noun["hund"], determiner="no")
    key_of_the_man = NounPhrase(noun["schlüssel"], possessor=the("mann"))
    man_drinks_a_beer = Clause(the("mann"), verb["trinken"], a("bier"))
    today = ADVERBS[0]
    examples: dict[str, Words] = {
        "simple": translate(Clause(small_woman, verb["kaufen"], three_green_apples)),
        "ditransitive": translate(Clause(the("vater"), verb["geben"], a("apfel"), the("kind"))),
        "negation_kein": translate(Clause(the("mann"), verb["haben"], no_dog)),
        "negation_nicht": translate(
            Clause(the("mann"), verb["trinken"], the("bier"), negated=True)
        ),
        "inversion": translate(
            Clause(the("mann"), verb["trinken"], a("bier"), adverb=today, adverb_fronted=True)
        ),
        "question": translate(Clause(the("frau"), verb["trinken"], a("kaffee")), "question"),
        "subordinate_dass": with_subordinate(
            Clause(ich, verb["wissen"]), "dass", man_drinks_a_beer
        ),
        "subordinate_weil": with_subordinate(
            Clause(the("kind"), verb["lachen"]),
            "weil",
            Clause(the("hund"), verb["finden"], the("ball")),
        ),
        "modal": translate(Clause(ich, verb["trinken"], a("bier")), "modal", MODALS[0]),
        "modal_object": translate(Clause(ich, WANT_VERB, a("bier"))),
        "separable": translate(Clause(the("mann"), verb["anrufen"], the("frau"))),
        "intransitive": translate(
            Clause(sie, verb["einkaufen"], adverb=today, adverb_fronted=True)
        ),
        "genitive": translate(Clause(the("frau"), verb["suchen"], key_of_the_man)),
    }
    return tuple(
        (name, " ".join(examples[name][0]), " ".join(examples[name][1])) for name in PATTERNS
    )


# ---------------------------------------------------------------------------
# Building the corpus
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """All splits as tuples of (german, english) pairs, plus each sentence's pattern."""

    train: tuple[Pair, ...]
    valid: tuple[Pair, ...]
    test: tuple[Pair, ...]
    test_unseen: tuple[Pair, ...]
    patterns: Mapping[str, str]  # German sentence → pattern name (read-only)

    def split(self, name: str) -> tuple[Pair, ...]:
        """The pairs of one split (see SPLITS)."""
        _check_split(name)
        return getattr(self, name)


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(map(repr, SPLITS))}; got {split!r}")


class _SentenceStore:
    """German sentence → English sentence and pattern, in the order they were made."""

    def __init__(self) -> None:
        self.english: dict[str, str] = {}
        self.pattern: dict[str, str] = {}

    def add(self, pattern: str, german: str, english: str) -> bool:
        """Store a new pair; False if the German sentence is already there."""
        known = self.english.get(german)
        if known is not None:
            if known != english:  # would make the translation ambiguous: a grammar bug
                raise AssertionError(f"{german!r} → {known!r} and {english!r}")
            return False
        self.english[german] = english
        self.pattern[german] = pattern
        return True

    def draw(
        self,
        maker: SentenceMaker,
        count: int,
        accept: Callable[[str, str], bool] | None = None,
    ) -> list[str]:
        """Make ``count`` new German sentences (that ``accept(german, english)`` lets through)."""
        found: list[str] = []
        for _ in range(50 * count):
            if len(found) == count:
                return found
            pattern = maker.pick_pattern()
            german_list, english_list = _PATTERN_MAKERS[pattern][0](maker)
            german, english = " ".join(german_list), " ".join(english_list)
            english_length = english.count(" ") + 1  # English items may be several words
            if not (
                MIN_TOKENS <= len(german_list) <= MAX_GERMAN_TOKENS
                and english_length <= MAX_ENGLISH_TOKENS
            ):
                continue
            if german in self.english:
                self.add(pattern, german, english)  # only checks the translation agrees
                continue
            if accept is None or accept(german, english):
                self.add(pattern, german, english)
                found.append(german)
        if len(found) < count:
            raise RuntimeError(f"the grammar produced only {len(found)} of {count} sentences")
        return found


def _vocabulary(sentences: Sequence[str]) -> set[str]:
    return {token for sentence in sentences for token in sentence.split()}


def generate_corpus(seed: int = CORPUS_SEED) -> Corpus:
    """Generate all splits from scratch (deterministic for a given seed; not cached)."""
    rng = random.Random(seed)
    store = _SentenceStore()
    showcase = [
        german for name, german, english in pattern_examples() if store.add(name, german, english)
    ]
    spare = 500  # some valid/test candidates are dropped for words unseen in train
    regular_count = TRAIN_SIZE - len(showcase) + VALID_SIZE + TEST_SIZE - TEST_UNSEEN_SIZE
    # A SentenceMaker without prefer_unseen never uses a held-out combination.
    regular = store.draw(SentenceMaker(rng), regular_count + spare)
    rng.shuffle(regular)
    train = showcase + regular[: TRAIN_SIZE - len(showcase)]
    rng.shuffle(train)

    german_words_in_train = _vocabulary(train)
    english_words_in_train = _vocabulary([store.english[german] for german in train])

    def known_words_only(german: str, english: str) -> bool:
        return all(token in german_words_in_train for token in german.split()) and all(
            token in english_words_in_train for token in english.split()
        )

    rest = [
        german
        for german in regular[TRAIN_SIZE - len(showcase) :]
        if known_words_only(german, store.english[german])
    ]
    test_regular_count = TEST_SIZE - TEST_UNSEEN_SIZE
    if len(rest) < VALID_SIZE + test_regular_count:
        raise RuntimeError("not enough valid/test sentences; raise `spare`")
    valid = rest[:VALID_SIZE]
    test_regular = rest[VALID_SIZE : VALID_SIZE + test_regular_count]

    # Each held-out combination may fill at most twice its fair share of the subset.
    quota = 2 * TEST_UNSEEN_SIZE // len(UNSEEN_COMBINATIONS)
    unseen_counts = dict.fromkeys(UNSEEN_COMBINATIONS, 0)

    def unseen_and_known(german: str, english: str) -> bool:
        combinations = unseen_combinations_in(german)
        if not combinations or not known_words_only(german, english):
            return False
        if any(unseen_counts[combination] >= quota for combination in combinations):
            return False
        for combination in combinations:
            unseen_counts[combination] += 1
        return True

    unseen = store.draw(
        SentenceMaker(rng, prefer_unseen=True), TEST_UNSEEN_SIZE, accept=unseen_and_known
    )
    test = test_regular + unseen
    rng.shuffle(test)
    unseen_set = set(unseen)  # used for membership only, never iterated
    test_unseen = [german for german in test if german in unseen_set]

    def pairs(sentences: list[str]) -> tuple[Pair, ...]:
        return tuple((german, store.english[german]) for german in sentences)

    used = train + valid + test
    return Corpus(
        train=pairs(train),
        valid=pairs(valid),
        test=pairs(test),
        test_unseen=pairs(test_unseen),
        patterns=MappingProxyType({german: store.pattern[german] for german in used}),
    )


@functools.lru_cache(maxsize=1)
def _cached_corpus() -> Corpus:
    return generate_corpus(CORPUS_SEED)


def load_corpus(split: str) -> list[tuple[str, str]]:
    """The (german, english) pairs of a split: "train", "valid", "test" or
    "test_unseen" (the held-out-combination part of "test").

    Generated once per process and cached; each call returns a new list.
    """
    _check_split(split)
    return list(_cached_corpus().split(split))


def pattern_of(german: str) -> str:
    """The pattern name (one of PATTERNS) of a German sentence of the corpus."""
    try:
        return _cached_corpus().patterns[german]
    except KeyError:
        raise ValueError(f"not a sentence of the corpus: {german!r}") from None


def describe_corpus() -> dict[str, object]:
    """Counts for a quick look: split sizes, word forms, patterns in train, lengths."""
    corpus = _cached_corpus()
    everything = corpus.train + corpus.valid + corpus.test
    pattern_counts = dict.fromkeys(PATTERNS, 0)
    for german, _ in corpus.train:
        pattern_counts[corpus.patterns[german]] += 1
    german_lengths = [len(german.split()) for german, _ in everything]
    english_lengths = [len(english.split()) for _, english in everything]
    return {
        "seed": CORPUS_SEED,
        "sizes": {split: len(corpus.split(split)) for split in SPLITS},
        "german_word_forms": len(_vocabulary([german for german, _ in everything])),
        "english_word_forms": len(_vocabulary([english for _, english in everything])),
        "train_patterns": pattern_counts,
        "german_length": {
            "min": min(german_lengths),
            "max": max(german_lengths),
            "mean": round(sum(german_lengths) / len(german_lengths), 2),
        },
        "english_length": {
            "min": min(english_lengths),
            "max": max(english_lengths),
            "mean": round(sum(english_lengths) / len(english_lengths), 2),
        },
        "unseen_combinations": [
            f"{c.adjective.german} {c.noun.german}" for c in UNSEEN_COMBINATIONS
        ],
    }
