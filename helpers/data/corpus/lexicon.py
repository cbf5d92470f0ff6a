"""The corpus' words: nouns, adjectives, pronouns, quantities, adverbs, verbs and modals, with their
German and English forms, and the adjective-noun combinations held out for "test_unseen".

Hand-written: edit this file itself; no notebook generates it.

Part of ``helpers.data.corpus`` (see its docstring for the corpus as a whole).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TypeVar

from helpers.language import tr

CORPUS_SEED = 20170612

SPLITS = ("train", "valid", "test", "test_unseen")

# Grammatical person, used as an index into the six present-tense verb forms:
# ich, du, er/sie/es, wir, ihr, sie (plural).
TRAIN_SIZE = 30_000
VALID_SIZE = 2_000
TEST_SIZE = 2_000
TEST_UNSEEN_SIZE = 300
MIN_TOKENS = 3
MAX_GERMAN_TOKENS = 18
MAX_ENGLISH_TOKENS = 20
Pair = tuple[str, str]
T = TypeVar("T")
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
        raise ValueError(
            tr("{combination} can never be generated").format(combination=_combination)
        )

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
