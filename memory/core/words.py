"""Content words of a message (SPEC §5.1 step 1).

A message is reduced to the words worth embedding: lowercase word tokens minus a
fixed English function-word list and single characters, de-duplicated in order.
The list lives in the code (not a library download) so seeding is reproducible
offline and does not change when a dependency is upgraded.
"""

from __future__ import annotations

import re

__all__ = ["STOP_WORDS", "content_words", "word_zipf"]

# Runs of letters or digits; everything else (spaces, punctuation, apostrophes,
# underscores) separates tokens, so "Joshua's" gives "joshua" and "s".
_TOKEN = re.compile(r"[^\W_]+")

# fmt: off
# (grouped by word class on purpose; one word per line would hide the groups)
STOP_WORDS: frozenset[str] = frozenset(
    [
        # articles
        "a", "an", "the",
        # pronouns and indefinites
        "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your",
        "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers",
        "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves", "one",
        "ones", "someone", "somebody", "something", "anyone", "anybody", "anything", "everyone",
        "everybody", "everything", "nobody", "nothing",
        # demonstratives and place adverbs
        "this", "that", "these", "those", "here", "there",
        # question words
        "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "whatever",
        "whoever", "whenever", "wherever",
        # auxiliaries and modals
        "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having",
        "do", "does", "did", "doing", "done", "will", "would", "shall", "should", "can", "could",
        "may", "might", "must", "ought", "get", "gets", "got", "getting",
        # prepositions
        "aboard", "about", "above", "across", "after", "against", "along", "amid", "among",
        "around", "as", "at", "before", "behind", "below", "beneath", "beside", "besides",
        "between", "beyond", "by", "down", "during", "except", "for", "from", "in", "inside",
        "into", "near", "of", "off", "on", "onto", "out", "outside", "over", "past", "per",
        "since", "than", "through", "throughout", "till", "to", "toward", "towards", "under",
        "underneath", "until", "unto", "up", "upon", "via", "with", "within", "without",
        # conjunctions
        "and", "but", "or", "nor", "so", "yet", "if", "then", "else", "because", "although",
        "though", "while", "whereas", "unless", "whether", "either", "neither", "both", "also",
        # common adverbs and quantifiers
        "not", "no", "yes", "very", "just", "really", "quite", "rather", "too", "such",
        "only", "even", "still", "already", "again", "ever", "never", "always", "often",
        "sometimes", "perhaps", "maybe", "now", "soon", "later", "well", "much", "more", "most",
        "less", "least", "many", "few", "lot", "lots", "some", "any", "all", "each", "every",
        "other", "another", "own", "same", "enough", "almost",
        # pieces of contractions split at the apostrophe (don't → don, t)
        "s", "t", "ll", "re", "ve", "d", "m", "o", "y", "don", "doesn", "didn", "isn", "aren",
        "wasn", "weren", "won", "wouldn", "couldn", "shouldn", "haven", "hasn", "hadn", "mustn",
        "needn", "shan", "ain", "cannot", "let", "lets",
        # chat filler
        "oh", "ok", "okay", "yeah", "hey", "hi", "hello", "please", "thanks", "thank",
    ]
)
# fmt: on


def content_words(text: str) -> list[str]:
    """Return the content words of ``text`` in first-seen order (SPEC §5.1 step 1).

    Input: any string (a chat message). Output: lowercase tokens made of letters
    and digits, with apostrophes and other punctuation acting as separators, minus
    ``STOP_WORDS`` and single characters, each word at most once.

    Invariants: every returned word is lowercase, at least two characters long,
    not in ``STOP_WORDS``, and appears once.
    """
    seen: set[str] = set()
    words: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if len(token) < 2 or token in STOP_WORDS or token in seen:
            continue
        seen.add(token)
        words.append(token)
    return words


# Two different words this common (wordfreq's Zipf scale: ≈ the 30 000 most used English
# words) are two words, not one misspelt ("making"/"taking"); a rarer one may be a typo.
COMMON_WORD_ZIPF = 3.0


def word_zipf(word: str) -> float:
    """How common ``word`` is in English (wordfreq's Zipf scale: log10 of uses per billion
    words, plus 9; case-insensitive)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en")
