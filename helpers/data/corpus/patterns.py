"""The thirteen sentence patterns: random choices of words (seeded), and the clauses each pattern
builds in both languages.

Hand-written: edit this file itself; no notebook generates it.

Part of ``helpers.data.corpus`` (see its docstring for the corpus as a whole).
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Callable, Sequence

from helpers.data.corpus.grammar import (
    Clause,
    NounPhrase,
    english_words,
    german_words,
)
from helpers.data.corpus.lexicon import (
    _ADJECTIVE_BY_NAME,
    _GENITIVE_OBJECTS,
    _HELD_OUT_ADJECTIVES,
    _KEIN_OBJECTS,
    _NOUN_BY_NAME,
    _TRAINING_ADJECTIVES,
    _VERB_BY_NAME,
    ADVERBS,
    DITRANSITIVE_VERBS,
    FRONTABLE_ADVERBS,
    GENITIVE_VERBS,
    INTRANSITIVE_VERBS,
    KEIN_VERBS,
    MODAL_INFINITIVES,
    MODALS,
    MONOTRANSITIVE_VERBS,
    OBJECT_PRONOUNS,
    POSSESSORS,
    PRONOUN_ICH,
    PRONOUN_SIE_SINGULAR,
    QUANTITIES,
    SAYING_VERBS,
    SEPARABLE_VERBS,
    SUBJECT_PRONOUNS,
    THIRD_SINGULAR,
    TRANSITIVE_VERBS,
    WANT_VERB,
    Adjective,
    Modal,
    Noun,
    T,
    Verb,
)

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


def determiner_and_number(noun: Noun, code: str) -> tuple[str, bool]:
    """What a determiner code makes of a noun: ``NounPhrase.determiner`` and whether it is plural.

    A noun without a plural (drinks) takes the singular of a plural code. The generator draws a
    code and calls this; the recognizer (``recognizer.py``) calls it for every code.
    """
    if not noun.countable:
        code = _SINGULAR_OF.get(code, code)
    return _WITHOUT_PLURAL.get(code, code), code in _SINGULAR_OF


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
        determiner, plural = determiner_and_number(noun, self.pick(determiners))
        quantity = self.pick(QUANTITIES) if determiner == "quantity" else None
        return NounPhrase(
            noun=noun,
            determiner=determiner,
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


def clause_words(clause: Clause, order: str = "main", modal: Modal | None = None) -> Words:
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
    return clause_words(clause)


def _ditransitive(maker: SentenceMaker) -> Words:
    return clause_words(maker.ditransitive_clause())


def _negation_kein(maker: SentenceMaker) -> Words:
    return clause_words(maker.kein_clause(adjective_chance=0.25))


def _negation_nicht(maker: SentenceMaker) -> Words:
    return clause_words(maker.nicht_clause(adjective_chance=0.25))


def _inversion(maker: SentenceMaker) -> Words:
    clause = maker.transitive_clause(MONOTRANSITIVE_VERBS, object_pronoun=0.0)
    clause.adverb, clause.adverb_fronted = maker.pick(FRONTABLE_ADVERBS), True
    return clause_words(clause)


def _question(maker: SentenceMaker) -> Words:
    clause = maker.transitive_clause(MONOTRANSITIVE_VERBS, object_pronoun=0.0)
    return clause_words(clause, "question")


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
    return clause_words(clause, "modal", modal)


def _modal_object(maker: SentenceMaker) -> Words:
    subject = maker.subject_for(WANT_VERB, pronoun_chance=0.4)
    return clause_words(Clause(subject, WANT_VERB, maker.object_for(WANT_VERB, subject)))


def _separable(maker: SentenceMaker) -> Words:
    clause = maker.transitive_clause(SEPARABLE_VERBS, object_pronoun=0.15, adjective_chance=0.3)
    return clause_words(clause)


def _intransitive(maker: SentenceMaker) -> Words:
    clause = maker.intransitive_clause(adjective_chance=0.25)
    clause.adverb_fronted = maker.chance(0.5)
    clause.adverb = maker.pick(FRONTABLE_ADVERBS if clause.adverb_fronted else ADVERBS)
    return clause_words(clause)


def _genitive(maker: SentenceMaker) -> Words:
    verb = maker.pick(GENITIVE_VERBS)
    subject = maker.subject_for(verb, adjective_chance=0.1)
    things = _GENITIVE_OBJECTS[verb.infinitive]
    direct_object = maker.noun_phrase(things, DEFINITE_DETERMINERS, adjective_chance=0.2)
    direct_object.possessor = maker.noun_phrase(POSSESSORS, ("the",), adjective_chance=0.2)
    return clause_words(Clause(subject, verb, direct_object))


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
        "simple": clause_words(Clause(small_woman, verb["kaufen"], three_green_apples)),
        "ditransitive": clause_words(Clause(the("vater"), verb["geben"], a("apfel"), the("kind"))),
        "negation_kein": clause_words(Clause(the("mann"), verb["haben"], no_dog)),
        "negation_nicht": clause_words(
            Clause(the("mann"), verb["trinken"], the("bier"), negated=True)
        ),
        "inversion": clause_words(
            Clause(the("mann"), verb["trinken"], a("bier"), adverb=today, adverb_fronted=True)
        ),
        "question": clause_words(Clause(the("frau"), verb["trinken"], a("kaffee")), "question"),
        "subordinate_dass": with_subordinate(
            Clause(ich, verb["wissen"]), "dass", man_drinks_a_beer
        ),
        "subordinate_weil": with_subordinate(
            Clause(the("kind"), verb["lachen"]),
            "weil",
            Clause(the("hund"), verb["finden"], the("ball")),
        ),
        "modal": clause_words(Clause(ich, verb["trinken"], a("bier")), "modal", MODALS[0]),
        "modal_object": clause_words(Clause(ich, WANT_VERB, a("bier"))),
        "separable": clause_words(Clause(the("mann"), verb["anrufen"], the("frau"))),
        "intransitive": clause_words(
            Clause(sie, verb["einkaufen"], adverb=today, adverb_fronted=True)
        ),
        "genitive": clause_words(Clause(the("frau"), verb["suchen"], key_of_the_man)),
    }
    return tuple(
        (name, " ".join(examples[name][0]), " ".join(examples[name][1])) for name in PATTERNS
    )
