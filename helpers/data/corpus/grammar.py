"""How each language writes a noun phrase and a clause: articles, adjective endings, cases, and
the German word orders (main clause, subordinate clause, question, after a modal).

Hand-written: edit this file itself; no notebook generates it.

Part of ``helpers.data.corpus`` (see its docstring for the corpus as a whole).
"""

from __future__ import annotations

from dataclasses import dataclass

from helpers.data.corpus.lexicon import (
    THIRD_PLURAL,
    THIRD_SINGULAR,
    Adjective,
    Adverb,
    Modal,
    Noun,
    Pronoun,
    Quantity,
    Verb,
)
from helpers.language import tr

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
    raise ValueError(tr("unknown order {order!r}").format(order=order))


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
