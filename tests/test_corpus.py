"""The generated German→English corpus: deterministic, well split, and grammatical."""

import hashlib
import itertools
import os
import re
import subprocess
import sys
import time
from collections import Counter

import pytest

from helpers.data import corpus
from helpers.data.corpus import CORPUS_SEED, PATTERNS, SPLITS, load_corpus
from helpers.data.corpus import splits as splits_module

# Words that can start a German subject (used to check verb positions).
SUBJECT_STARTS = {
    "der", "die", "das", "ein", "eine", "ich", "du", "er", "sie", "wir", "ihr",
    "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "viele",
}  # fmt: skip
NUMBERS = {
    "zwei": "two", "drei": "three", "vier": "four", "fünf": "five", "sechs": "six",
    "sieben": "seven", "acht": "eight", "neun": "nine", "zehn": "ten",
}  # fmt: skip


def fingerprint(parts) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


@pytest.fixture(scope="module")
def splits() -> dict[str, list[tuple[str, str]]]:
    return {split: load_corpus(split) for split in SPLITS}


@pytest.fixture(scope="module")
def all_pairs(splits) -> list[tuple[str, str]]:
    return splits["train"] + splits["valid"] + splits["test"]


def first_clause(german: str) -> list[str]:
    """The words before ", dass" / ", weil" (the whole sentence if there is none), no "?"."""
    return [word for word in german.split(" , ")[0].split() if word != "?"]


# --- determinism -------------------------------------------------------------------------------


# The corpus is generated once per test run (load_corpus caches it for every test file); these
# tests add one generation with another seed and one child process with another hash seed.

# The SHA-256 of every split's pairs, written down when the corpus was first frozen.
CORPUS_DIGEST = "15cb6fc23225fd5636a43271dcfa880f83883860bcdb2ad5d6acbbf99fcedc79"
DIGEST_CODE = (
    "import hashlib\n"
    "from helpers.data.corpus import SPLITS, load_corpus\n"
    "digest = hashlib.sha256()\n"
    "for split in SPLITS:\n"
    "    for german, english in load_corpus(split):\n"
    "        digest.update(f'{split}\\t{german}\\t{english}\\n'.encode())\n"
)
NUMERICAL_LIBRARIES = "{'torch', 'numpy', 'matplotlib', 'seaborn', 'pandas'}"


def test_generation_is_deterministic():
    namespace: dict = {}
    exec(DIGEST_CODE, namespace)
    assert namespace["digest"].hexdigest() == CORPUS_DIGEST


@pytest.fixture(scope="module")
def child_process() -> list[str]:
    """One fresh interpreter with another hash seed generates the corpus: its digest, then the
    numerical libraries that importing and generating the corpus loaded."""
    # Set and dict iteration order must not matter: string hashing changes with PYTHONHASHSEED
    # (make test fixes it at 0, so the child takes another one).
    hash_seed = "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "1"
    code = (
        DIGEST_CODE
        + "print(digest.hexdigest())\n"
        + f"import sys\nprint(sorted({NUMERICAL_LIBRARIES} & set(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.split("\n")


def test_a_process_with_another_hash_seed_gives_the_same_corpus(child_process):
    assert child_process[0] == CORPUS_DIGEST


def test_importing_the_corpus_imports_no_numerical_library(child_process):
    assert child_process[1] == "[]"


def test_another_seed_gives_another_corpus_fast():
    # CPU time, not wall time, so that other jobs on the machine do not count. It is
    # about 0.9 s on a 2-core laptop-class CPU; the bound leaves room for slower machines.
    start = time.process_time()
    other = corpus.generate_corpus(CORPUS_SEED + 1)
    elapsed = time.process_time() - start
    assert elapsed < 3.0, f"generation took {elapsed:.2f} s of CPU time"
    assert list(other.train) != load_corpus("train")


def test_loading_is_cached():
    load_corpus("train")
    start = time.perf_counter()
    for split in SPLITS:
        load_corpus(split)
    assert time.perf_counter() - start < 0.1
    assert splits_module._cached_corpus.cache_info().hits >= len(SPLITS)


def test_returned_lists_cannot_corrupt_the_cache():
    pairs = load_corpus("valid")
    original = list(pairs)
    pairs.clear()
    assert load_corpus("valid") == original


# --- splits ------------------------------------------------------------------------------------


def test_split_sizes(splits):
    assert 25_000 <= len(splits["train"]) <= 40_000
    assert 1_500 <= len(splits["valid"]) <= 3_000
    assert 1_000 <= len(splits["test"]) <= 3_000
    assert 200 <= len(splits["test_unseen"]) < len(splits["test"])


def test_no_german_sentence_in_two_splits(splits):
    german = {split: {de for de, _ in splits[split]} for split in ("train", "valid", "test")}
    assert not german["train"] & german["valid"]
    assert not german["train"] & german["test"]
    assert not german["valid"] & german["test"]


@pytest.mark.parametrize("split", SPLITS)
def test_no_duplicates_within_a_split(splits, split):
    german_sentences = [de for de, _ in splits[split]]
    assert len(set(german_sentences)) == len(german_sentences)
    assert len(set(splits[split])) == len(splits[split])


def test_test_unseen_is_a_marked_sublist_of_test(splits):
    unseen = set(splits["test_unseen"])
    assert [pair for pair in splits["test"] if pair in unseen] == splits["test_unseen"]


def test_translation_is_a_function_of_the_german_sentence(all_pairs):
    english_of: dict[str, str] = {}
    for german, english in all_pairs:
        assert english_of.setdefault(german, english) == english, german


def test_every_word_of_valid_and_test_occurs_in_train(splits):
    german_words = {w for de, _ in splits["train"] for w in de.split()}
    english_words = {w for _, en in splits["train"] for w in en.split()}
    for split in ("valid", "test"):
        for german, english in splits[split]:
            assert set(german.split()) <= german_words, german
            assert set(english.split()) <= english_words, english


# --- the unseen combinations -------------------------------------------------------------------


def combination_patterns(combination) -> tuple[re.Pattern, re.Pattern]:
    """Regexes for a held-out adjective-noun pair, written independently of the generator."""
    noun = combination.noun
    nouns = {noun.german, noun.genitive}
    if noun.plural is not None:
        nouns |= {noun.plural, noun.plural + "n"}
    german = re.compile(
        rf"\b{combination.adjective.stem}(e|en|er|es) ({'|'.join(sorted(nouns))})\b"
    )
    english_nouns = [noun.english] + ([noun.english_plural] if noun.english_plural else [])
    english = re.compile(rf"\b{combination.adjective.english} ({'|'.join(english_nouns)})\b")
    return german, english


def test_unseen_detector_finds_handwritten_examples():
    def names(german):
        found = corpus.unseen_combinations_in(german)
        return [(c.adjective.german, c.noun.german) for c in found]

    assert names("der mann kauft einen roten apfel") == [("rot", "apfel")]
    assert names("die roten äpfel und ein kaltes bier") == [("rot", "apfel"), ("kalt", "bier")]
    assert names("das spielzeug des alten hundes") == [("alt", "hund")]
    assert names("sie zeigt den müden kindern ein bild") == [("müde", "kind")]
    assert names("der rote ball und der alte apfel") == []


def test_test_unseen_sentences_all_contain_a_held_out_combination(splits):
    assert len(corpus.UNSEEN_COMBINATIONS) >= 5
    for german, english in splits["test_unseen"]:
        found = corpus.unseen_combinations_in(german)
        assert found, german
        for combination in found:
            german_pattern, english_pattern = combination_patterns(combination)
            assert german_pattern.search(german), german
            assert english_pattern.search(english), english


def test_every_held_out_combination_is_tested(splits):
    counts = Counter(
        combination
        for german, _ in splits["test_unseen"]
        for combination in corpus.unseen_combinations_in(german)
    )
    assert set(counts) == set(corpus.UNSEEN_COMBINATIONS)
    assert min(counts.values()) >= 10


def test_held_out_combinations_never_occur_outside_test_unseen(splits):
    unseen = set(splits["test_unseen"])
    others = [
        pair for split in ("train", "valid", "test") for pair in splits[split] if pair not in unseen
    ]
    assert len(others) > 30_000
    for combination in corpus.UNSEEN_COMBINATIONS:
        german_pattern, english_pattern = combination_patterns(combination)
        for german, english in others:
            assert not german_pattern.search(german), german
            assert not english_pattern.search(english), english
            assert combination not in corpus.unseen_combinations_in(german)


def test_held_out_words_are_frequent_in_train_on_their_own(splits):
    german_counts = Counter(w for de, _ in splits["train"] for w in de.split())
    english_counts = Counter(w for _, en in splits["train"] for w in en.split())
    for combination in corpus.UNSEEN_COMBINATIONS:
        adjective, noun = combination.adjective, combination.noun
        adjective_forms = [adjective.stem + ending for ending in ("e", "en", "er", "es")]
        assert sum(german_counts[form] for form in adjective_forms) >= 50, adjective.german
        assert german_counts[noun.german] >= 50, noun.german
        assert english_counts[adjective.english] >= 50, adjective.english
        assert english_counts[noun.english] >= 50, noun.english


# --- vocabulary, patterns, lengths -------------------------------------------------------------


def test_vocabulary_size(all_pairs):
    german_forms = {w for de, _ in all_pairs for w in de.split()}
    english_forms = {w for _, en in all_pairs for w in en.split()}
    assert 300 <= len(german_forms) <= 650
    assert len(english_forms) < len(german_forms)


def test_text_format(all_pairs):
    for german, english in all_pairs:
        for sentence in (german, english):
            assert sentence == sentence.lower()
            assert sentence == " ".join(sentence.split())  # single spaces, no edges
            assert not re.search(r"\w[,.?]|[,.?]\w", sentence), sentence


def test_all_patterns_occur_in_train(splits):
    counts = Counter(corpus.pattern_of(de) for de, _ in splits["train"])
    assert len(PATTERNS) >= 8
    assert set(counts) == set(PATTERNS)
    assert min(counts.values()) >= 0.02 * len(splits["train"])


def test_sentence_lengths(all_pairs):
    german_lengths = [len(de.split()) for de, _ in all_pairs]
    english_lengths = [len(en.split()) for _, en in all_pairs]
    assert max(german_lengths) <= 20
    for lengths in (german_lengths, english_lengths):
        typical = sum(4 <= n <= 16 for n in lengths)
        assert typical >= 0.9 * len(lengths)


def test_toy_vocabulary_is_present(splits):
    assert ("ich möchte ein bier", "i want a beer") in splits["train"]
    german_words = {w for de, _ in splits["train"] for w in de.split()}
    english_words = {w for _, en in splits["train"] for w in en.split()}
    assert {"ich", "möchte", "ein", "bier"} <= german_words
    assert {"i", "want", "a", "beer"} <= english_words


def test_pattern_examples_are_in_train_and_in_the_module_docstring(splits):
    examples = corpus.pattern_examples()
    assert [name for name, _, _ in examples] == list(PATTERNS)
    docstring = " ".join(corpus.__doc__.split())
    for name, german, english in examples:
        assert (german, english) in splits["train"]
        assert corpus.pattern_of(german) == name
        assert f"``{name}``: {german} → {english}" in docstring


@pytest.mark.parametrize(
    ("german", "english"),
    [
        ("ich möchte ein bier", "i want a beer"),
        ("ich möchte ein bier trinken", "i want to drink a beer"),
        ("heute trinkt der mann ein bier", "today the man drinks a beer"),
        ("ich weiß , dass der mann ein bier trinkt", "i know that the man drinks a beer"),
        ("der mann ruft die frau an", "the man calls the woman"),
        ("heute kauft sie ein", "today she goes shopping"),
        ("der mann trinkt das bier nicht", "the man does not drink the beer"),
        ("der mann hat keinen hund", "the man has no dog"),
        ("der vater gibt dem kind einen apfel", "the father gives the child an apple"),
        ("die frau sucht den schlüssel des mannes", "the woman looks for the man 's key"),
    ],
)
def test_examples_from_the_issue_are_in_train(splits, german, english):
    assert (german, english) in splits["train"]


# --- grammar: each phenomenon is translated correctly ------------------------------------------


@pytest.mark.parametrize(
    ("german_start", "english_start"),
    [
        ("ich trinke", "i drink"),
        ("du trinkst", "you drink"),
        ("er trinkt", "he drinks"),
        ("sie trinkt", "she drinks"),
        ("wir trinken", "we drink"),
        ("ihr trinkt", "you drink"),
        ("sie trinken", "they drink"),
        ("du isst", "you eat"),
        ("er liest", "he reads"),
        ("sie hat", "she has"),
        ("ich mag", "i like"),
    ],
)
def test_verb_conjugation(all_pairs, german_start, english_start):
    matches = [
        (de, en)
        for de, en in all_pairs
        if de.startswith(german_start + " ") and "nicht" not in first_clause(de)
    ]
    assert matches, german_start
    for german, english in matches:
        assert english.startswith(english_start + " "), (german, english)


def test_third_person_singular_takes_s(all_pairs):
    no_s = {"can", "must", "should", "may", "often", "always", "never"}
    for _, english in all_pairs:
        words = ["", *english.split()]
        for before, word, following in zip(words, words[1:], words[2:], strict=False):
            if word in ("he", "she") and before != "does":  # but: does he drink ... ?
                assert following.endswith("s") or following in no_s, english
        assert not re.search(r"\b(he|she) do\b|\b(i|you|we|they) does\b", english), english


def test_indefinite_and_negative_articles_are_counted_the_same(all_pairs):
    indefinite = {"ein", "eine", "einen", "einem", "einer", "eines"}
    negative = {"kein", "keine", "keinen", "keinem", "keiner", "keines"}
    for german, english in all_pairs:
        words = german.split() + ["."]
        # "ein" at the end of a clause is the separable prefix of einkaufen, einladen, ...
        articles = sum(
            w in indefinite and nxt not in {",", "?", "."} for w, nxt in itertools.pairwise(words)
        )
        english_words = english.split()
        assert articles == sum(w in ("a", "an") for w in english_words), (german, english)
        no_count = sum(w in negative for w in german.split())
        assert no_count == english_words.count("no"), (german, english)


def test_a_before_consonants_and_an_before_vowels(all_pairs):
    for _, english in all_pairs:
        assert not re.search(r"\ba [aeiou]|\ban [^aeiou]", english), english


def test_adjective_endings_agree_with_the_article(all_pairs):
    # After der/die/das the ending is -e (or -en in the dative, genitive and plural), after
    # den/dem/des -en, after ein -er (masculine) or -es (neuter), after numbers -e (plural).
    allowed = {
        "der": {"e", "en"}, "die": {"e", "en"}, "das": {"e"},
        "den": {"en"}, "dem": {"en"}, "des": {"en"},
        "ein": {"er", "es"}, "kein": {"er", "es"},
        "eine": {"e"}, "keine": {"e", "en"},
        "einen": {"en"}, "einem": {"en"}, "einer": {"en"},
        "keinen": {"en"}, "keinem": {"en"}, "keiner": {"en"},
        "viele": {"e"}, "vielen": {"en"}, **{number: {"e", "en"} for number in NUMBERS},
    }  # fmt: skip
    adjective = re.compile(
        r"^(klein|groß|alt|neu|schön|rot|grün|kalt|warm|nett|lustig)(e|en|er|es)$"
    )
    checked = 0
    for german, _ in all_pairs:
        words = german.split()
        for before, word in itertools.pairwise(words):
            match = adjective.match(word)
            if match:
                checked += 1
                assert match.group(2) in allowed.get(before, set()), german
    assert checked > 3_000


def test_numbers_come_with_plural_nouns(all_pairs):
    plural = r"(\w+s|men|women|children|mice|fish)"
    for german, english in all_pairs:
        for word in german.split():
            if word in NUMBERS:
                assert re.search(rf"\b{NUMBERS[word]} (\w+ )?{plural}\b", english), english


def test_nicht_becomes_do_not_and_kein_becomes_no(all_pairs):
    nicht = [(de, en) for de, en in all_pairs if "nicht" in de.split()]
    assert len(nicht) > 1_000
    for german, english in nicht:
        assert re.search(r"\b(does|do) not\b", english), english
        if german.startswith("er ") and "," not in german:
            assert english.startswith("he does not "), english
        if german.startswith("wir ") and "," not in german:
            assert english.startswith("we do not "), english
    for german, english in all_pairs:
        if "nicht" not in german.split():
            assert " not " not in english, (german, english)


@pytest.mark.parametrize(
    ("adverb", "english"),
    [("heute", "today"), ("jetzt", "now"), ("abends", "in the evening"), ("manchmal", "sometimes")],
)
def test_verb_second_after_a_fronted_adverb(all_pairs, adverb, english):
    fronted = [(de, en) for de, en in all_pairs if de.startswith(adverb + " ")]
    assert len(fronted) > 50
    for german, translation in fronted:
        words = german.split()
        assert words[1] not in SUBJECT_STARTS, german  # the verb comes second ...
        assert words[2] in SUBJECT_STARTS, german  # ... and the subject after it
        assert translation.startswith(english + " "), translation


def test_fronted_oft_goes_before_the_english_verb(all_pairs):
    fronted = [(de, en) for de, en in all_pairs if de.startswith("oft ")]
    assert fronted
    for german, english in fronted:
        assert german.split()[1] not in SUBJECT_STARTS, german
        assert not english.startswith("often"), english
        assert " often " in english, english


def test_questions_put_the_verb_first_and_use_do(all_pairs):
    questions = [(de, en) for de, en in all_pairs if de.endswith(" ?")]
    assert len(questions) > 1_000
    for german, english in questions:
        assert german.split()[0] not in SUBJECT_STARTS, german
        assert english.endswith(" ?") and english.split()[0] in ("do", "does"), english
    for german, english in all_pairs:
        assert german.endswith("?") == english.endswith("?")


def test_subordinate_clauses_put_the_verb_last(all_pairs):
    trinken = {"trinke", "trinkst", "trinkt", "trinken"}
    checked = 0
    for german, english in all_pairs:
        for conjunction, english_word in ((", dass ", " that "), (", weil ", " because ")):
            if conjunction in german:
                assert english_word in english, english
                clause = german.split(conjunction)[1].split()
                if trinken & set(clause):
                    checked += 1
                    assert clause[-1] in trinken, german
    assert checked > 50


def test_separable_prefix_goes_last_and_joins_in_subordinate_clauses(all_pairs):
    meanings = {"auf": "open", "zu": "close", "an": "turn on", "aus": "turn off"}
    split_forms = {"rufe", "rufst", "ruft", "rufen", "mache", "machst", "macht", "machen"}
    joined_forms = {"anrufe", "anrufst", "anruft", "anrufen", "aufmacht", "zumacht", "anmacht"}
    checked = 0
    for german, english in all_pairs:
        clause = first_clause(german)
        if split_forms & set(clause):
            checked += 1
            prefix = clause[-1]
            if {"rufe", "rufst", "ruft", "rufen"} & set(clause):
                assert prefix == "an" and re.search(r"\bcalls?\b", english), german
            else:
                meaning = meanings[prefix]
                assert re.search(rf"\b{meaning.replace(' ', r's? ')}s?\b", english), german
        for word in joined_forms & set(german.split()):
            assert german.split()[-1] == word, german
    assert checked > 500


def test_einkaufen_is_not_kaufen(all_pairs):
    # "heute kauft sie ein" → "today she goes shopping"; "sie kauft ein bier" → "she buys a beer"
    shopping, buying = 0, 0
    for german, english in all_pairs:
        clause = first_clause(german)
        if {"kaufe", "kaufst", "kauft"} & set(clause):
            if clause[-1] == "ein":
                shopping += 1
                assert re.search(r"\bgo(es)? shopping\b", english), english
            else:
                buying += 1
                assert re.search(r"\bbuys?\b", english), english
    assert shopping > 20 and buying > 200


def test_modal_verbs_send_the_infinitive_to_the_end(all_pairs):
    modals = {
        "möchte": "wants to", "möchtest": "want to", "möchten": "want to", "möchtet": "want to",
        "kann": "can", "kannst": "can", "können": "can", "könnt": "can",
        "muss": "must", "musst": "must", "müssen": "must", "müsst": "must",
    }  # fmt: skip
    infinitives = {"trinken": "drink", "anrufen": "call", "lesen": "read", "einladen": "invite"}
    checked = 0
    for german, english in all_pairs:
        words = german.split()
        modal = [word for word in words if word in modals]
        if "," not in words and modal and words[-1] in infinitives:
            checked += 1
            expected = f"{modals[modal[0]]} {infinitives[words[-1]]}"
            if modal[0] == "möchte" and words[0] == "ich":
                expected = "want to " + infinitives[words[-1]]
            assert expected in english, (german, english)
    assert checked > 100


def test_genitive_becomes_english_possessive(all_pairs):
    for german, english in all_pairs:
        if " des " in german:
            assert " 's " in english, (german, english)
        if " 's " in english:
            assert corpus.pattern_of(german) == "genitive", (german, english)


# --- the API -----------------------------------------------------------------------------------


def test_bad_split_name_is_a_value_error():
    with pytest.raises(ValueError, match="split") as error:
        load_corpus("training")
    message = str(error.value)
    assert "'training'" in message
    for split in SPLITS:
        assert repr(split) in message


def test_pattern_of_rejects_unknown_sentences():
    assert corpus.pattern_of("ich möchte ein bier") == "modal_object"
    with pytest.raises(ValueError, match="not a sentence"):
        corpus.pattern_of("ich möchte ein einhorn")


def test_describe_corpus_matches_the_splits(splits, all_pairs):
    description = corpus.describe_corpus()
    assert description["seed"] == CORPUS_SEED
    assert description["sizes"] == {split: len(splits[split]) for split in SPLITS}
    assert description["german_word_forms"] == len({w for de, _ in all_pairs for w in de.split()})
    assert sum(description["train_patterns"].values()) == len(splits["train"])
