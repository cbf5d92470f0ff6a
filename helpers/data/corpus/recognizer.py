"""Is an English sentence one the corpus's grammar can write? A recognizer built from the
generator's own lexicon, noun phrases and sentence patterns (notebook 16 judges samples with it).

Hand-written: edit this file itself; no notebook generates it.

Part of ``helpers.data.corpus`` (see its docstring for the corpus as a whole).

The generator draws each sentence at random; the recognizer walks through the same choices
systematically. For every pattern it lists the clauses that pattern can build (every verb it
picks from, every kind of subject, object and recipient, adverb, modal and negation), and writes
each one with the generator's own ``english_words``. Noun phrases are the one part that is not
spelled out: each clause holds a placeholder for "a noun phrase from this set", and the set
(every noun, determiner, number and adjective the generator could pick for that role, written by
``english_noun_phrase``) is kept apart. The clauses go into a tree of words; a sentence is
recognised by walking the tree, a placeholder consuming any phrase of its set.

So it accepts exactly what the patterns can write with at most ``MAX_ENGLISH_TOKENS`` words,
held-out adjective-noun combinations included (they are grammatical; only "test_unseen" uses
them), and nothing else: a wrong verb form, a missing article, "a" before a vowel, a verb with an
object it never takes ("the man drinks a book"), words in the wrong order.

Typical use::

    from helpers.data.corpus.recognizer import recognize
    recognize("the man drinks a beer")   # "simple", the pattern that writes it
    recognize("the man drink a beer")    # None
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Sequence

from helpers.data.corpus import lexicon
from helpers.data.corpus.grammar import (
    Clause,
    NounPhrase,
    english_noun_phrase,
    english_words,
)
from helpers.data.corpus.lexicon import MAX_ENGLISH_TOKENS, Modal, Noun, Verb
from helpers.data.corpus.patterns import (
    DEFINITE_DETERMINERS,
    NEGATIVE_DETERMINERS,
    OBJECT_DETERMINERS,
    RECIPIENT_DETERMINERS,
    SUBJECT_DETERMINERS,
    determiner_and_number,
)

Phrase = tuple[str, ...]
CONJUNCTIONS = {"that": "subordinate_dass", "because": "subordinate_weil"}


class PhraseSet:
    """Every English noun phrase the generator can write for one role (as word tuples)."""

    def __init__(self, phrases: set[Phrase]):
        self.phrases = phrases
        self.lengths = sorted({len(phrase) for phrase in phrases})

    def ends(self, tokens: Sequence[str], start: int) -> Iterator[int]:
        """The positions where a phrase of this set that starts at ``start`` ends."""
        for length in self.lengths:
            if start + length > len(tokens):
                return
            if tuple(tokens[start : start + length]) in self.phrases:
                yield start + length


class _Node:
    """A node of the tree of clauses: words and phrase sets that may come next."""

    __slots__ = ("words", "sets", "pattern")

    def __init__(self) -> None:
        self.words: dict[str, _Node] = {}
        self.sets: dict[int, _Node] = {}  # id of a PhraseSet in _Grammar.sets -> next node
        self.pattern: str | None = None  # a clause of this pattern may end here


def _adjectives_of(noun: Noun) -> tuple:
    """No adjective, or any the generator may put before the noun (held-out pairs included)."""
    return (
        None,
        *lexicon._TRAINING_ADJECTIVES[noun.german],
        *lexicon._HELD_OUT_ADJECTIVES[noun.german],
    )


def _words_of(phrase: NounPhrase, *, as_subject: bool = True) -> Phrase:
    """The generator's English for a noun phrase, as single words ("look for" is two)."""
    return tuple(" ".join(english_noun_phrase(phrase, as_subject=as_subject)).split())


class _Grammar:
    """The clauses of every pattern, as trees whose placeholders stand for phrase sets."""

    def __init__(self) -> None:
        self.sets: list[PhraseSet] = []
        self._set_ids: dict[tuple, int] = {}
        self._placeholders: dict[tuple, list[NounPhrase]] = {}
        self.markers: dict[str, tuple[int, ...]] = {}  # placeholder word -> phrase sets in a row
        self.trees = {name: _Node() for name in ("clause", "that", "because", "inner")}

    # -- phrase sets and their placeholders ---------------------------------------------------

    def _set_id(self, key: tuple, make) -> int:
        if key not in self._set_ids:
            self._set_ids[key] = len(self.sets)
            self.sets.append(PhraseSet(make()))
        return self._set_ids[key]

    def _placeholder(self, set_ids: tuple[int, ...], plural: bool) -> NounPhrase:
        """A noun phrase the generator writes as "the <marker>": stands for its sets in a row."""
        marker = "\x00" + ",".join(map(str, set_ids))
        self.markers[marker] = set_ids
        noun = Noun(marker, "m", marker, marker, marker, "placeholder", marker)
        return NounPhrase(noun, determiner="the", plural=plural)

    def noun_phrases(self, nouns: Sequence[Noun], determiners: Sequence[str]) -> list[NounPhrase]:
        """Placeholders for what SentenceMaker.noun_phrase can draw: one per grammatical number."""
        key = (tuple(noun.german for noun in nouns), tuple(dict.fromkeys(determiners)))
        if key not in self._placeholders:
            self._placeholders[key] = self._noun_phrases(key, nouns, determiners)
        return self._placeholders[key]

    def _noun_phrases(self, key, nouns, determiners) -> list[NounPhrase]:
        by_number: dict[bool, set[Phrase]] = {}
        for noun in nouns:
            for code in dict.fromkeys(determiners):
                determiner, plural = determiner_and_number(noun, code)
                quantities = lexicon.QUANTITIES if determiner == "quantity" else (None,)
                for quantity in quantities:
                    for adjective in _adjectives_of(noun):
                        phrase = NounPhrase(noun, None, determiner, plural, adjective, quantity)
                        by_number.setdefault(plural, set()).add(_words_of(phrase))
        return [
            self._placeholder((self._set_id((*key, plural), lambda p=phrases: p),), plural)
            for plural, phrases in sorted(by_number.items())
        ]

    def genitive_phrase(self, things: Sequence[Noun]) -> NounPhrase:
        """A placeholder for "the man 's new car": possessor, 's, what is possessed."""
        possessors = self.noun_phrases(lexicon.POSSESSORS, ("the",))
        assert len(possessors) == 1
        possessor_set = self.markers[possessors[0].noun.english][0]
        anyone = NounPhrase(lexicon.POSSESSORS[0])

        def possessed() -> set[Phrase]:
            phrases = set()
            for noun in things:
                for code in DEFINITE_DETERMINERS:
                    _, plural = determiner_and_number(noun, code)
                    for adjective in _adjectives_of(noun):
                        phrase = NounPhrase(noun, None, "the", plural, adjective, None, anyone)
                        words = _words_of(phrase)
                        phrases.add(words[words.index("'s") + 1 :])
            return phrases

        saxon = self._set_id(("'s",), lambda: {("'s",)})
        things_set = self._set_id(("possessed", *(n.german for n in things)), possessed)
        return self._placeholder((possessor_set, saxon, things_set), plural=False)

    # -- the choices of SentenceMaker, all of them --------------------------------------------

    def subjects(self, verb: Verb) -> list[NounPhrase]:
        """SentenceMaker.subject_for: a pronoun (if the verb takes people) or a noun phrase."""
        pronouns = (
            [NounPhrase(pronoun=p) for p in lexicon.SUBJECT_PRONOUNS]
            if verb.pronoun_subjects
            else []
        )
        return pronouns + self.noun_phrases(verb.subjects, SUBJECT_DETERMINERS)

    @staticmethod
    def pronoun_objects(subject: NounPhrase) -> list[NounPhrase]:
        """SentenceMaker.pronoun_object: never reflexive ("i see me")."""
        return [
            NounPhrase(pronoun=pronoun)
            for pronoun in lexicon.OBJECT_PRONOUNS
            if subject.pronoun is None
            or pronoun.person != subject.pronoun.person
            or pronoun.person == lexicon.THIRD_SINGULAR
        ]

    def objects(self, verb, subject, determiners=OBJECT_DETERMINERS, pronouns=False, nouns=None):
        """SentenceMaker.object_for (``pronouns``: whether its pronoun_chance is above 0)."""
        found = self.pronoun_objects(subject) if verb.pronoun_objects and pronouns else []
        return found + self.noun_phrases(nouns or verb.objects, determiners)

    def transitive(self, verbs: Sequence[Verb], object_pronouns: bool) -> Iterator[Clause]:
        for verb in verbs:
            for subject in self.subjects(verb):
                for direct_object in self.objects(verb, subject, pronouns=object_pronouns):
                    yield Clause(subject, verb, direct_object)

    def ditransitive(self) -> Iterator[Clause]:
        for verb in lexicon.DITRANSITIVE_VERBS:
            for subject in self.subjects(verb):
                recipients = self.pronoun_objects(subject) + self.noun_phrases(
                    verb.recipients, RECIPIENT_DETERMINERS
                )
                for recipient in recipients:
                    for direct_object in self.objects(verb, subject):
                        yield Clause(subject, verb, direct_object, recipient)

    def intransitive(self) -> Iterator[Clause]:
        for verb in lexicon.INTRANSITIVE_VERBS:
            for subject in self.subjects(verb):
                yield Clause(subject, verb)

    def kein(self) -> Iterator[Clause]:
        for verb in lexicon.KEIN_VERBS:
            for subject in self.subjects(verb):
                nouns = lexicon._KEIN_OBJECTS[verb.infinitive]
                for direct_object in self.objects(verb, subject, NEGATIVE_DETERMINERS, nouns=nouns):
                    yield Clause(subject, verb, direct_object)

    def nicht(self) -> Iterator[Clause]:
        for verb in lexicon.MONOTRANSITIVE_VERBS:
            for subject in self.subjects(verb):
                for direct_object in self.objects(verb, subject, DEFINITE_DETERMINERS, True):
                    yield Clause(subject, verb, direct_object, negated=True)

    def subordinate(self) -> Iterator[Clause]:
        """SentenceMaker.subordinate_clause: any clause that can follow "dass" or "weil"."""
        yield from self.intransitive()
        yield from self.ditransitive()
        yield from self.kein()
        yield from self.nicht()
        yield from self.transitive(lexicon.MONOTRANSITIVE_VERBS, object_pronouns=True)

    # -- the patterns --------------------------------------------------------------------------

    def add(self, tree: str, pattern: str, clause: Clause, question=False, modal=None) -> None:
        """Write the clause with the generator's english_words and add it to a tree."""
        node = self.trees[tree]
        words = " ".join(english_words(clause, question, modal)).split()
        for index, word in enumerate(words):
            if word == "the" and index + 1 < len(words) and words[index + 1] in self.markers:
                continue  # the placeholder's own article
            if word in self.markers:
                for set_id in self.markers[word]:
                    node = node.sets.setdefault(set_id, _Node())
            else:
                node = node.words.setdefault(word, _Node())
        node.pattern = pattern

    def build(self) -> _Grammar:
        for clause in self.transitive(lexicon.TRANSITIVE_VERBS, object_pronouns=True):
            self.add("clause", "simple", clause)
        for clause in self.ditransitive():
            self.add("clause", "ditransitive", clause)
        for clause in self.kein():
            self.add("clause", "negation_kein", clause)
        for clause in self.nicht():
            self.add("clause", "negation_nicht", clause)
        for clause in self.transitive(lexicon.MONOTRANSITIVE_VERBS, object_pronouns=False):
            self.add("clause", "question", clause, question=True)
            for adverb in lexicon.FRONTABLE_ADVERBS:
                clause.adverb, clause.adverb_fronted = adverb, True
                self.add("clause", "inversion", clause)
        for saying in lexicon.SAYING_VERBS:
            for subject in self.subjects(saying):
                self.add("that", "subordinate_dass", Clause(subject, saying))
        for clause in self.intransitive():
            self.add("because", "subordinate_weil", clause)
        for clause in self.transitive(lexicon.MONOTRANSITIVE_VERBS, object_pronouns=True):
            self.add("because", "subordinate_weil", clause)
        for clause in self.subordinate():
            self.add("inner", "inner", clause)
        for modal in lexicon.MODALS:
            self._modal(modal)
        for subject in self.subjects(lexicon.WANT_VERB):
            for direct_object in self.objects(lexicon.WANT_VERB, subject):
                self.add(
                    "clause", "modal_object", Clause(subject, lexicon.WANT_VERB, direct_object)
                )
        for clause in self.transitive(lexicon.SEPARABLE_VERBS, object_pronouns=True):
            self.add("clause", "separable", clause)
        for clause in self.intransitive():
            for fronted, adverbs in ((True, lexicon.FRONTABLE_ADVERBS), (False, lexicon.ADVERBS)):
                for adverb in adverbs:
                    clause.adverb, clause.adverb_fronted = adverb, fronted
                    self.add("clause", "intransitive", clause)
        for verb in lexicon.GENITIVE_VERBS:
            direct_object = self.genitive_phrase(lexicon._GENITIVE_OBJECTS[verb.infinitive])
            for subject in self.subjects(verb):
                self.add("clause", "genitive", Clause(subject, verb, direct_object))
        return self

    def _modal(self, modal: Modal) -> None:
        clauses = [
            *self.intransitive(),
            *self.ditransitive(),
            *self.transitive(lexicon.MODAL_INFINITIVES, object_pronouns=True),
        ]
        for clause in clauses:
            self.add("clause", "modal", clause, modal=modal)


def _walk(grammar: _Grammar, node: _Node, tokens: Sequence[str], start: int) -> str | None:
    """The pattern of a clause of this tree that is exactly tokens[start:], or None."""
    if start == len(tokens):
        return node.pattern
    following = node.words.get(tokens[start])
    if following is not None:
        found = _walk(grammar, following, tokens, start + 1)
        if found is not None:
            return found
    for set_id, following in node.sets.items():
        for end in grammar.sets[set_id].ends(tokens, start):
            found = _walk(grammar, following, tokens, end)
            if found is not None:
                return found
    return None


@functools.cache
def _grammar() -> _Grammar:
    return _Grammar().build()


def recognize(english: str) -> str | None:
    """The pattern whose grammar writes this English sentence (words split on spaces), or None
    when no pattern can: a sentence of the corpus's English grammar, corpus or not."""
    tokens = english.split()
    if not 1 <= len(tokens) <= MAX_ENGLISH_TOKENS:
        return None
    grammar = _grammar()
    for conjunction, pattern in CONJUNCTIONS.items():
        if conjunction in tokens:
            split = tokens.index(conjunction)
            main, inner = tokens[:split], tokens[split + 1 :]
            if _walk(grammar, grammar.trees[conjunction], main, 0) is None:
                return None
            return pattern if _walk(grammar, grammar.trees["inner"], inner, 0) else None
    return _walk(grammar, grammar.trees["clause"], tokens, 0)


def count_sentences() -> int:
    """How many ways the grammar has to write a sentence of at most ``MAX_ENGLISH_TOKENS`` words:
    the paths through its trees, each phrase set counted phrase by phrase (a sentence that two
    paths spell would count twice)."""
    grammar = _grammar()
    lengths = [Counter(len(phrase) for phrase in phrase_set.phrases) for phrase_set in grammar.sets]

    @functools.cache
    def paths(node: _Node, room: int) -> tuple[int, ...]:
        """counts[n]: the paths from node that add exactly n words, n <= room."""
        counts = [0] * (room + 1)
        counts[0] = node.pattern is not None
        for following in node.words.values():
            if room >= 1:
                for n, count in enumerate(paths(following, room - 1)):
                    counts[n + 1] += count
        for set_id, following in node.sets.items():
            for length, phrases in lengths[set_id].items():
                if length <= room:
                    for n, count in enumerate(paths(following, room - length)):
                        counts[n + length] += phrases * count
        return tuple(counts)

    total = sum(paths(grammar.trees["clause"], MAX_ENGLISH_TOKENS))
    for conjunction in CONJUNCTIONS:  # main clause, the conjunction, the inner clause
        main = paths(grammar.trees[conjunction], MAX_ENGLISH_TOKENS - 1)
        inner = paths(grammar.trees["inner"], MAX_ENGLISH_TOKENS - 1)
        total += sum(
            a * b
            for m, a in enumerate(main)
            for n, b in enumerate(inner)
            if m + n < MAX_ENGLISH_TOKENS
        )
    return total


def is_grammatical(english: str) -> bool:
    """True when the corpus's English grammar can write this sentence (see ``recognize``)."""
    return recognize(english) is not None
