"""The merge rules for people (SPEC §5.6, rule 3): how people are named in conversation.

A first name (or a nickname of it) reaches the one full name it fits, a title + surname the
one full name with that surname, a clipped, pet or respelled name the one name it comes
from — only when exactly one stored person qualifies, nothing the user said contradicts it,
and no other stored person is a plausible reading of the name (a near-tie). The facts about
names are in ``person_names``, ``first_names`` and ``person_roles``; this module decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from rapidfuzz.distance import Levenshtein

from memory.core.first_names import is_given_name
from memory.core.merge_properties import (
    ROLE_KEYS,
    context_shared,
    role_said,
    roles_differ,
    said_elsewhere,
    said_same_affiliation,
    said_same_place,
)
from memory.core.merge_types import (
    HOLD,
    MERGE,
    NEW,
    Mention,
    MergeVerdict,
    StoredNode,
    best_similarity,
    make_verdict,
    node_forms,
)
from memory.core.name_scripts import across_scripts
from memory.core.name_spelling import is_latin_word, transliteration_key
from memory.core.person_forms import (
    FAMILY_ROLE,
    MIDDLE_NAME,
    PATRONYMIC,
    SURNAME,
    SWAPPED,
    TRANSLITERATION,
    by_initials,
    by_junior,
    by_syllable,
    gendered_surname,
    lone_transliterated,
    middle_names,
    same_rest,
    surname_alone,
    surname_initial,
    surname_respelled,
    swapped,
    transliterated,
)
from memory.core.person_names import (
    NICKNAME,
    SHORT_FORM,
    SPELLING,
    VARIANT,
    PersonName,
    contradicts,
    gender_of,
    gendered_pair,
    loosely_related,
    name_gender,
    one_letter_apart,
    parse_person,
    relate_first_names,
)
from memory.core.person_roles import (
    PEOPLE_ROLES,
    RANKS,
    TITLES,
    family_roles,
    same_close_family,
    shares_role,
    specific_roles,
    stated_age,
)

__all__ = [
    "called_by",
    "different_people",
    "exact_moved_by_role",
    "gender_of_titles",
    "node_gender",
    "person_verdict",
    "picked_by_age",
    "picked_by_place",
    "picked_by_stated_role",
]

# Person rules, strongest first: a merge or hold names the strongest rule that matched.
_PERSON_RANK = {
    "nickname": 0,
    "title": 1,
    "first-name": 2,
    "spelling": 3,
    TRANSLITERATION: 3,
    "short-form": 4,
    "pet-form": 5,
    MIDDLE_NAME: 6,
    SWAPPED: 7,
    SURNAME: 8,
    FAMILY_ROLE: 9,
    "variant": 10,
}
# A clipped name between two full names of one surname extends the short one by this many
# letters or fewer: another given name on the same stem (Leo/Leon Fischer), asked about.
_SAME_STEM_REST = 2
# ... unless the letters added are silent: Ann/Anne, Sara/Sarah are one name.
_SILENT = frozenset({"e", "h"})
BY_ROLE = "-by-role"
BY_PLACE = "-by-place"
BY_AFFILIATION = "-by-affiliation"
BY_AGE = "-by-age"
BY_CONTEXT = "-by-context"
# Ages further apart than this are not one person's as said at two times.
_AGE_SLACK = 2
_TITLE_WORDS = frozenset(TITLES)


def _person_match(inc: PersonName, form: PersonName) -> str | None:
    """Why the incoming person name may be the stored form (both parsed), or None.

    * the same words with another title or other accents → "title" / "spelling";
    * title + surname ("Mr. Patterson") → the surname of a full name ("Matt Patterson"),
      or a full name → a stored title + surname → "title"; a title and a first name ("Coach
      Dave", "Big Mike") → that first name or a nickname of it in a full name, and a full name
      → a stored title and its first name ("Miss Hyacinth") → "first-name";
    * the same full name in Cyrillic or Greek and in Latin letters → "transliteration";
    * one name is a lone first name and the other a full name whose first name is the
      same, a nickname of it ("first-name"), a respelling ("spelling") or a clipped form
      ("short-form") of it — or the lone word is the full name's surname and no given
      name ("surname");
    * the same number of words, the same words after the first, first names related:
      "nickname" (Bill Smith/William Smith), "spelling" or "short-form" — a clipped form
      the table does not list, or one a letter or two short, is "variant" between full
      names (Priya/Priyanka Shah, Leo/Leon Fischer);
    * a first name and a family name's initial ("Kasia N.", "R. Karthik") and a full name
      of that first name (or a nickname of it) and initial → "first-name";
    * full names with middle names left out ("middle-name") or in the other order
      ("swapped").
    """
    a, b = _without_patronymic(inc.words), form.words
    if not a or not b or _patronymics_differ(inc.words, b):
        return None
    if a == b:
        return "title" if inc.title != form.title else SPELLING
    if inc.title and len(a) == 1:
        if _surname_of(a[0], b):
            return "title"
        # "Coach Dave", "Auntie Bisi": a title with a first name (or a form of it: "Father
        # Tom" is Fr. Thomas Keane by the nickname table, and may be Fr. Tomasz Nowak).
        if len(b) >= 2:
            if a[0] == b[0]:
                return "first-name"
            why = relate_first_names(a[0], b[0])
            # "отец Алексей": Father Alexei Ivanov, the first name in another script.
            return ("first-name" if why == "nickname" else why) or lone_transliterated(a, b)
        # "κυρία Ελένη" / Kyria Eleni: one title and one name, in two scripts.
        if (
            form.title
            and len(b) == 1
            and transliteration_key(f"{inc.title} {a[0]}")
            == transliteration_key(f"{form.title} {b[0]}")
        ):
            return TRANSLITERATION
        return None
    if form.title and len(b) == 1:
        if _surname_of(b[0], a):
            return "title"
        # A stored "Miss Hyacinth", "Coach Dave": the full name of that first name.
        if len(a) >= 2 and (a[0] == b[0] or relate_first_names(a[0], b[0]) == "nickname"):
            return "first-name"
        return None
    across = transliterated(a, b) or lone_transliterated(a, b)
    if across is not None:
        return across
    if (len(a) == 1) != (len(b) == 1):
        if a[0] == b[0]:
            return "first-name"
        why = relate_first_names(a[0], b[0])
        if why is not None:
            return "first-name" if why == "nickname" else why
        if _front_clipped(a[0], b[0]):
            return SHORT_FORM
        return surname_alone(a, b)
    if len(a) == 1:  # two lone first names
        return relate_first_names(a[0], b[0])
    initial = surname_initial(a, b)
    if initial is not None:
        if initial[0] == initial[1]:
            return "first-name"
        why = relate_first_names(*initial)
        return "first-name" if why == "nickname" else why
    if same_rest(a, b):
        return SPELLING if a[0] == b[0] else _full_first_names(a[0], b[0])
    if surname_respelled(a, b) or gendered_surname(a, b):
        return SPELLING
    found = middle_names(a, b) or swapped(a, b)
    if found is None and (inc.split, form.split) != (a, b):
        found = middle_names(inc.split, form.split)
    if found is None and relate_first_names(a[0], b[0]) in (SPELLING, "nickname"):
        # "Muhammad Khan" for Mohammed Ali Khan: the first name spelt otherwise (or its
        # nickname) and the middle names left out.
        found = middle_names((b[0], *a[1:]), b)
    return found


def _without_patronymic(words: tuple[str, ...]) -> tuple[str, ...]:
    """ "olga ivanovna" → ("olga",): a patronymic (``person_forms.PATRONYMIC``) said after the
    first name, as people address someone politely, is no surname; the name and patronymic
    are the first name's to match."""
    if len(words) == 2 and PATRONYMIC.search(words[1]) and not PATRONYMIC.search(words[0]):
        return words[:1]
    return words


def _patronymics_differ(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Two names of one first name with two fathers' names ("Anna Ivanovna", Anna Petrovna
    Smirnova): the daughters of two men, two people."""
    pa = [w for w in a[1:] if PATRONYMIC.search(w)]
    pb = [w for w in b[1:] if PATRONYMIC.search(w)]
    return bool(pa and pb and pa[0] != pb[0])


def _surname_of(word: str, full: tuple[str, ...]) -> bool:
    """Whether ``word`` (said after a title) is the surname of the full name ``full``: its
    last word, or — in a name of three words or more — the first of two surnames, as Spanish
    and Portuguese names have them ("Señor Hernández", José Luis Hernández García), when no
    list knows it as a given name (a middle name "Lee" or "Rose" is not a surname)."""
    if len(full) < 2:
        return False
    if _same_surname(full[-1], word):
        return True
    return len(full) >= 3 and _same_surname(full[-2], word) and not is_given_name(word)


# German umlauts typed as digraphs, once the words are folded: "Krueger" is Krüger ("kruger").
_DIGRAPHS = (("ae", "a"), ("oe", "o"), ("ue", "u"))


def _same_surname(a: str, b: str) -> bool:
    """One surname, or one typed with an umlaut's digraph ("krueger" / "kruger")."""
    if a == b:
        return True
    for digraph, letter in _DIGRAPHS:
        a, b = a.replace(digraph, letter), b.replace(digraph, letter)
    return a == b


def _full_first_names(a: str, b: str) -> str | None:
    """How the first names of two full names of one surname relate. A clipped name is
    evidence of one person when it is how the user mentions someone in passing (Jon, for
    Jonathan Reyes); said with the surname it is a name given in full, so a clipped form
    the table does not list (Priya Shah / Priyanka Shah), or a given name a letter or two
    short of the other (Leo / Leon Fischer), may be a relative's: asked, not merged."""
    why = relate_first_names(a, b)
    if why is None and _swapped_letters(a, b):
        return SPELLING  # Siobahn / Siobhan Gallagher: two letters typed the other way round
    if why not in (NICKNAME, SHORT_FORM):
        return why
    short, long = sorted((a, b), key=len)
    if not long.startswith(short):
        return why
    rest = long[len(short) :]
    if why == SHORT_FORM:
        return VARIANT
    if is_given_name(short) and len(rest) <= _SAME_STEM_REST and rest not in _SILENT:
        return VARIANT
    return why


# A name clipped at its front (Bisi for Olabisi, Tunde for Babatunde, Nando for Fernando)
# keeps this many letters and loses at least two.
_MIN_TAIL, _MIN_CUT_FRONT = 4, 2


def _front_clipped(a: str, b: str) -> bool:
    """One given name the end of the other (Yoruba, Spanish and Italian names are shortened
    so), when the short one is no given name of the lists: Anna is not Joanna's, Ella not
    Isabella's — they are names of their own."""
    short, long = sorted((a, b), key=len)
    return (
        len(short) >= _MIN_TAIL
        and len(long) - len(short) >= _MIN_CUT_FRONT
        and long.endswith(short)
        and is_latin_word(short)
        and not is_given_name(short)
    )


# A given name this long or longer has room for two letters typed the wrong way round.
_MIN_SWAP = 5


def _swapped_letters(a: str, b: str) -> bool:
    """Two given names that differ only by two neighbouring letters in the other order."""
    if len(a) != len(b) or len(a) < _MIN_SWAP or a == b:
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and a[diff[0]] == b[diff[1]]
        and (a[diff[1]] == b[diff[0]])
    )


def _family_role(inc: PersonName, form: PersonName, mention: Mention, node: StoredNode) -> str:
    """Two full names with one first name, both the user's sister (brother, mother, father,
    son, daughter): a user has no two sisters of one name, so the surname changed (Laura
    Kim, married, is Laura Becker)."""
    a, b = inc.words, form.words
    if inc.title or form.title or len(a) < 2 or len(b) < 2 or a[0] != b[0]:
        return ""
    return FAMILY_ROLE if same_close_family(mention.roles, node.roles) else ""


def different_people(inc: PersonName, form: PersonName, threshold: float) -> bool:
    """Two full names (Latin letters) that the user would never mix up: the same or related
    first names with clearly different surnames (Matt Smith / Matt Patterson), or
    unrelated first names (John Smith / Jane Smith, a relative). They are not even
    candidates for review. A surname one typo away (Johnson/Johnston) stays a candidate."""
    a, b = inc.words, form.words
    if not all(w.isalpha() and w.isascii() for w in (*a, *b)):
        return False
    if len(a) == 1 and len(b) == 1:  # Daniel/Daniela, Simon/Simone: a gendered ending
        short, long = sorted((a[0], b[0]), key=len)
        return short != long and gendered_pair(short, long)
    if len(a) < 2 or len(b) < 2:
        return False
    firsts_related = (
        a[0] == b[0]
        or relate_first_names(a[0], b[0]) is not None
        or one_letter_apart(a[0], b[0])  # Jonah/Jonas Berg: a typo, or two relatives: asked
    )
    if not firsts_related:
        return True
    return Levenshtein.normalized_similarity(a[-1], b[-1]) <= threshold


def _reading(inc: PersonName, form: PersonName) -> bool:
    """Whether a stored name is a plausible reading of the incoming one under the loosest
    rules (``person_names.loosely_related`` on the first names, the rest of the words not
    in conflict; a lone word that is the stored name's surname). Titles are about surnames
    and are left to the title rule."""
    a, b = inc.words, form.words
    if not a or not b or inc.title or form.title:
        return False
    if len(a) == 1 and len(b) > 1 and b[-1] == a[0]:
        return True  # "Kim": Kim Nguyen's first name, or Daniel Kim's surname
    if len(a) > 1 and len(b) > 1 and a[1:] != b[1:]:
        return False
    return loosely_related(a[0], b[0])


def _title_against_first_name(inc: PersonName, inc_gender: str, node: StoredNode) -> bool:
    """A gendered title ("Mr. Brown") matched by surname to a node the graph knows no gender
    of, but whose first name the first-name lists give to the other gender (Lucy Brown)."""
    if not (inc.title and inc_gender) or node_gender(node):
        return False
    firsts = {parse_person(f).first for f in node_forms(node) if len(parse_person(f).words) >= 2}
    return any(name_gender(first) not in ("", inc_gender) for first in firsts)


def person_verdict(
    new: str, same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict | None:
    """Rules 3a–3e (PERSON): every node one of ``_person_match``'s reasons links to the new
    name is a candidate. Exactly one, and nothing the user said contradicts it → merge —
    unless it is in doubt (``_judge_one``). Several → one picked by what the user said, else
    hold among those not contradicted (``_pick_among``). Only contradicted ones → a new
    node."""
    inc = parse_person(new)
    inc_gender = mention.gender or gender_of_titles([inc.title])
    found = _candidates(new, inc, same_kind, mention)
    if not found:
        return None
    by_id = {n.id: n for n in same_kind}

    def fits(node: StoredNode) -> bool:
        return not contradicts(mention.roles, node.roles, inc_gender, node_gender(node))

    fitting = [i for i in found if fits(by_id[i])]
    if not fitting:
        return make_verdict(NEW, list(found), "contradiction", dict.fromkeys(found, 1.0))
    scores = {i: (1.0 if found[i] != SPELLING else best_similarity(new, by_id[i])) for i in fitting}
    if len(found) > 1 and len(fitting) == 1:
        # What the user said rules out every other reading ("Jamie" the friend: James the
        # brother and Jamie Lee the friend): the one left is judged as if alone.
        verdict = _judge_one(
            new,
            inc,
            inc_gender,
            by_id[fitting[0]],
            found[fitting[0]],
            same_kind,
            fits,
            scores,
            mention,
        )
        if verdict.action == MERGE:
            return make_verdict(MERGE, fitting, verdict.rule + BY_ROLE, scores)
        return verdict
    if len(found) > 1:
        return _pick_among(inc, inc_gender, found, fitting, by_id, mention, scores)
    return _judge_one(
        new, inc, inc_gender, by_id[fitting[0]], found[fitting[0]], same_kind, fits, scores, mention
    )


def _candidates(
    new: str, inc: PersonName, same_kind: Sequence[StoredNode], mention: Mention
) -> dict[int, str]:
    """Node id → the strongest reason (``_PERSON_RANK``) linking one of its names to ``new``."""
    found: dict[int, str] = {}
    for node in same_kind:
        for form in node_forms(node):
            parsed = parse_person(form)
            why = (
                _person_match(inc, parsed)
                or by_initials(new, form)
                or by_syllable(new, form)
                or by_junior(new, form)
                or across_scripts(new, form, _TITLE_WORDS)
                or _family_role(inc, parsed, mention, node)
                or None
            )
            # The user is not renamed by a guess: only the nickname table reaches the
            # self node (as it always has); clipped or respelled names do not.
            if why is None or (node.is_self and why != "nickname"):
                continue
            if node.id not in found or _PERSON_RANK[why] < _PERSON_RANK[found[node.id]]:
                found[node.id] = why
    return found


def _pick_among(
    inc: PersonName,
    inc_gender: str,
    found: dict[int, str],
    fitting: list[int],
    by_id: dict[int, StoredNode],
    mention: Mention,
    scores: dict[int, float],
) -> MergeVerdict:
    """Several candidates fit: the one the user's relation, place, title, the gender of
    their title or the role said of them picks (merge), else a question among them all."""
    picked = _picked_by_role(found, fitting, by_id, mention)
    # Unless what was said places the person elsewhere than the one the relation picks
    # (Lars the colleague, in Oslo; the colleague Lars lives in Gothenburg, the friend
    # Lars in Oslo): the relation and the city point two ways, asked.
    if picked is not None and not said_elsewhere(mention.properties, by_id[picked].properties):
        return make_verdict(MERGE, [picked], found[picked] + BY_ROLE, {picked: scores[picked]})
    picked = picked_by_place(fitting, by_id, mention)
    if picked is not None:
        return make_verdict(MERGE, [picked], found[picked] + BY_PLACE, {picked: scores[picked]})
    picked = _picked_by_affiliation(fitting, by_id, mention)
    if picked is not None:
        rule = found[picked] + BY_AFFILIATION
        return make_verdict(MERGE, [picked], rule, {picked: scores[picked]})
    picked = picked_by_age(fitting, by_id, mention)
    if picked is not None:
        return make_verdict(MERGE, [picked], found[picked] + BY_AGE, {picked: scores[picked]})
    picked = _picked_by_title(inc, found, fitting, by_id) or _picked_by_gender(
        inc, inc_gender, found, fitting, by_id
    )
    if picked is not None:
        return make_verdict(MERGE, [picked], "title", {picked: scores[picked]})
    picked = picked_by_stated_role(fitting, by_id, mention)
    if picked is not None:
        return make_verdict(MERGE, [picked], found[picked] + BY_ROLE, {picked: scores[picked]})
    picked = _picked_by_context(inc, fitting, by_id, mention)
    if picked is not None and _rank(inc, found, picked, by_id) <= min(
        _rank(inc, found, i, by_id) for i in found if i != picked
    ):
        # ... when the name reaches it no less surely than any other (not Fr. Tomasz by a
        # clipped "Tom" over Fr. Thomas by the nickname table).
        return make_verdict(MERGE, [picked], found[picked] + BY_CONTEXT, {picked: scores[picked]})
    rule = min(found.values(), key=_PERSON_RANK.__getitem__)
    return make_verdict(HOLD, fitting, f"{rule}-ambiguous", scores)


def _judge_one(
    new: str,
    inc: PersonName,
    inc_gender: str,
    only: StoredNode,
    rule: str,
    same_kind: Sequence[StoredNode],
    fits: Callable[[StoredNode], bool],
    scores: dict[int, float],
    mention: Mention,
) -> MergeVerdict:
    """One candidate fits: merge — unless it is in doubt: a "variant" of the name (held), a
    gendered title against its first name ("Mr. Brown", Lucy Brown → a new node), or a
    near-tie: another node, not contradicted, that is a plausible reading of the name under
    the loosest rules (held with it)."""
    if rule == VARIANT:
        return make_verdict(HOLD, [only.id], VARIANT, scores)
    if rule == "title" and _title_against_first_name(inc, inc_gender, only):
        # The user's own "Mr." against a woman's first name (or "Mrs." against a man's): as
        # good as a contradiction for a title match, which is the weakest evidence of all —
        # a surname. The worst case is a duplicate to merge later, never two identities lost.
        return make_verdict(NEW, [only.id], "title-gender", scores)
    if rule == "first-name" and not inc.title and not mention.roles and _known_by_calling(only):
        # "Miriam", with Rabbi Miriam Cohen: her congregation says "Rabbi"; a Miriam met at
        # pilates is as likely. Asked.
        return make_verdict(HOLD, [only.id], "first-name-calling", scores)
    if rule == "title" and _given_name_untitled(inc, only):
        # "Hassan" from the shawarma shop, with Dr Hassan the GP: a surname said with a
        # title, a given name said alone — a friend named Hassan is as likely. Asked.
        return make_verdict(HOLD, [only.id], "name-without-title", scores)
    if rule == "title" and _calling_unknown(inc, only):
        # "Rabbi Cohen" and David Cohen, a friend from shul: a surname and a calling the user
        # never gave him. A visiting rabbi is as likely; asked.
        return make_verdict(HOLD, [only.id], "title-calling", scores)
    if rule != "title":
        near = [
            n
            for n in same_kind
            if n.id != only.id
            and not n.is_self
            and fits(n)
            and any(_reading(inc, parse_person(f)) for f in node_forms(n))
        ]
        roles = mention.roles
        if near and roles and shares_role(roles, only.roles):
            if all(n.roles and not shares_role(roles, n.roles) for n in near):
                # "Rob", the friend: Robert the friend, not Bob the neighbour — the relation
                # settles what the name leaves open.
                return make_verdict(MERGE, [only.id], rule + BY_ROLE, {only.id: scores[only.id]})
        if len(inc.words) == 1:
            # "Kat", with Kat Reyes and the user "cozycornerkat" (a handle with her name in
            # it, of the server's owner): either.
            near += [n for n in same_kind if n.id != only.id and _handle_with(inc.words[0], n)]
        if near:
            scores.update({n.id: best_similarity(new, n) for n in near})
            return make_verdict(HOLD, [only.id, *(n.id for n in near)], f"{rule}-near-tie", scores)
    return make_verdict(MERGE, [only.id], rule, scores)


def called_by(word: str, node: StoredNode) -> bool:
    """Whether a word for a calling ("priest", "pastor", "vicar", "nun") is what someone's
    clergy title says they are (Padre Miguel Ángel Torres: a priest; Pastor Lucas: a
    pastor; Sister Agnes: a nun)."""
    for form in node_forms(node):
        title = parse_person(form).title
        if title in _CALLINGS and (word == title or word in _CALLINGS[title]):
            return True
    return False


def lone_calling(word: str) -> bool:
    """Whether a name of one word is a clergy title said alone ("Pastor prayed for us",
    "Bhante gave the talk"): how a congregation speaks of its one pastor or monk, a
    description. Not a word that is also kinship (Father, Sister, Padre)."""
    return word in _CALLINGS and word not in _CALLINGS_KIN


# Clergy titles that are also the words for family members.
_CALLINGS_KIN = frozenset({"father", "padre", "pere", "pater", "sister", "πατηρ", "πατερ", "отец"})


def calling_of(title: str) -> frozenset[str]:
    """The role words a clergy or teacher's title says ("father" → priest), empty for any
    other title."""
    return _CALLINGS.get(title, frozenset())


def _known_by_calling(node: StoredNode) -> bool:
    """Whether every name the user has for someone carries a clergy title (Rabbi Miriam
    Cohen, Fr. Marek Nowak)."""
    return all(parse_person(f).title in _CALLINGS for f in node_forms(node))


# A user name on a platform: one word of letters, digits and "_" or ".", in lower case or
# with a digit or "_" in it (cozycornerkat, dragonfly_88, NightOwl_Lena) — not a name.
_HANDLE = re.compile(r"^(?=.*[a-z])[a-z0-9_.]+$|^(?=.*[\d_])[A-Za-z0-9_.]+$")
_HANDLE_NAME_MIN = 3


def _handle_with(first: str, node: StoredNode) -> bool:
    """Whether a stored person is known by a handle with the first name said in it."""
    if len(first) < _HANDLE_NAME_MIN or node.is_self:
        return False
    return any(
        _HANDLE.match(name) and first in name.lower() and name.lower() != first
        for name in (node.name, *node.aliases)
    )


def _first_name(node: StoredNode) -> str:
    return parse_person(node_forms(node)[0]).first


def _picked_by_role(
    found: dict[int, str], fitting: list[int], by_id: dict[int, StoredNode], mention: Mention
) -> int | None:
    """The one candidate the user's own relation picks among several: the mention's role is
    shared by exactly one that fits (Hannah the colleague), and every other one that fits is
    known to the user as something else (a friend) — one of unknown role may be the
    colleague too. The role must single someone out: "friend" does not, for a colleague or
    a neighbour is often called a friend (Chris the friend may be Christina the colleague).
    And the name must not point elsewhere: all the candidates have one first
    name (Hannah Kessler, Hannah Brandt) or were matched by title and surname, or the picked
    one is reached by a strictly stronger rule than every other (Rob: Robert by the nickname
    table, Roberta only by prefix). Between different names the name reaches as well
    (Alex: Alexandra, Alexander) which name was meant is a question a role does not
    settle — unless the role said of the person (a stated occupation) is the picked one's
    and no other's (Chris the nurse: Christine the nurse, not Christopher the plumber)."""
    roles = specific_roles(mention.roles)
    if not roles or VARIANT in found.values():
        return None
    sharing = [i for i in fitting if shares_role(roles, by_id[i].roles)]
    if len(sharing) != 1:
        return None
    picked = sharing[0]
    if fitting == [picked] and shares_role(family_roles(roles), by_id[picked].roles):
        # "My son Teddy" with Theodore the son and Teddy Marsh the friend: the family role
        # rules out every other reading of the name, and the one left is that son.
        return picked
    if not all(by_id[i].roles for i in fitting if i != picked):
        return None
    same_name = len({_first_name(by_id[i]) for i in found}) == 1
    by_title = set(found.values()) == {"title"}
    rank = _PERSON_RANK[found[picked]]
    stronger = all(rank < _PERSON_RANK[why] for i, why in found.items() if i != picked)
    # Or the role said of the person is the picked one's, and no other's (Chris the nurse,
    # a colleague: Christine the nurse, not Christopher the plumber, a friend).
    said_role = [i for i in fitting if _same_role_said(mention, by_id[i])]
    return picked if same_name or by_title or stronger or said_role == [picked] else None


def picked_by_place(
    fitting: list[int], by_id: dict[int, StoredNode], mention: Mention
) -> int | None:
    """The one candidate where the user places the person, when every other one is known to
    be elsewhere ("Sarah" in Boston: Sarah Cohen in Boston, not Sarah Mitchell in Austin)."""
    same = [i for i in fitting if said_same_place(mention.properties, by_id[i].properties)]
    if len(same) != 1:
        return None
    others = [i for i in fitting if i != same[0]]
    if not all(said_elsewhere(mention.properties, by_id[i].properties) for i in others):
        return None
    # Nor when the relation points to another (Lars the colleague, in Oslo: the colleague
    # lives in Gothenburg): asked.
    roles = specific_roles(mention.roles)
    if roles and not shares_role(roles, by_id[same[0]].roles):
        if any(shares_role(roles, by_id[i].roles) for i in others):
            return None
    return same[0]


def picked_by_age(ids: list[int], by_id: dict[int, StoredNode], mention: Mention) -> int | None:
    """The one candidate of the age said (a year either way: a birthday passed), when every
    other one is known to be of another age ("Em", 14: Emily the daughter, 14, not Emily the
    stepdaughter, 9)."""
    said = stated_age(mention.properties.get("age"))
    if said is None:
        return None
    ages = {i: stated_age(by_id[i].properties.get("age")) for i in ids}
    same = [i for i, age in ages.items() if age is not None and abs(age - said) <= 1]
    others_apart = all(
        age is not None and abs(age - said) > _AGE_SLACK for i, age in ages.items() if i not in same
    )
    return same[0] if len(same) == 1 and others_apart else None


def _picked_by_affiliation(
    fitting: list[int], by_id: dict[int, StoredNode], mention: Mention
) -> int | None:
    """The one candidate known to be of the company, school or course the person is said to
    be of now ("Lina" at Monobank: Lina Petrenko, the client contact there, not Lina Haddad
    the colleague, of whom no company is known), when no other is known to be of it."""
    same = [i for i in fitting if said_same_affiliation(mention.properties, by_id[i].properties)]
    return same[0] if len(same) == 1 else None


def _rank(inc: PersonName, found: dict[int, str], i: int, by_id: dict[int, StoredNode]) -> int:
    """How surely a name reaches a candidate (``_PERSON_RANK``); a given name said alone
    reaches someone known by a title and that one name ("Ahmed"; Dr Ahmed) as a surname
    alone would."""
    if found[i] == "title" and _given_name_untitled(inc, by_id[i]):
        return _PERSON_RANK[SURNAME]
    return _PERSON_RANK[found[i]]


def _picked_by_context(
    inc: PersonName, fitting: list[int], by_id: dict[int, StoredNode], mention: Mention
) -> int | None:
    """The one candidate of whom the graph holds something that what is said now repeats,
    when it holds nothing of the kind of any other and every other is known to the user as
    something ("Ravi", who asked the user to foster two kittens: Ravi Kapoor, foster
    coordinator, not Ravi Menon from badminton). Someone known by nothing may be anyone.
    The name said is no context ("Ali texted": not Alison, who "goes by Ali", over Ali
    Rahman)."""
    same = [
        i
        for i in fitting
        if context_shared(mention.properties, by_id[i].properties, ignore=frozenset(inc.words))
    ]
    if len(same) != 1:
        return None
    others = [by_id[i] for i in fitting if i != same[0]]
    return same[0] if all(n.roles or n.properties for n in others) else None


def picked_by_stated_role(
    fitting: list[int], by_id: dict[int, StoredNode], mention: Mention
) -> int | None:
    """The one candidate whose stated role (occupation) is the one said now, when every
    other is known as something else — another stated role, or a relative, whom the user
    names by the relation ("Chloe" the babysitter: Chloe Martin the babysitter, not the
    niece Chloe; "Dr Patel" the GP: Meera Patel the GP, not Anil Patel the dentist)."""
    said = [i for i in fitting if _same_role_said(mention, by_id[i])]
    if len(said) != 1:
        return None
    others = [by_id[i] for i in fitting if i != said[0]]
    if all(roles_differ(mention.properties, n.properties) or _known_as_other(n) for n in others):
        return said[0]
    return None


def _known_as_other(node: StoredNode) -> bool:
    """Someone the user knows by a relation and of whom no trade is stated (the friend
    Dave): not the one stored with the trade said now (Dave Price the plumber)."""
    return bool(family_roles(node.roles)) or (
        bool(node.roles & PEOPLE_ROLES) and not any(k in node.properties for k in ROLE_KEYS)
    )


def _same_role_said(mention: Mention, node: StoredNode) -> bool:
    return any(
        key in mention.properties
        and key in node.properties
        and not roles_differ({key: mention.properties[key]}, {key: node.properties[key]})
        for key in ROLE_KEYS
    )


# Titles that name a profession: a person the user stored with one is known by it.
_DOCTOR = frozenset({"doctor"})
_PRIEST = frozenset({"priest"})
_MINISTER = frozenset({"reverend", "vicar", "minister", "priest", "chaplain"})
# Titles of a calling → the role words a stored person's role may say it with ("Pastor
# Femi": Femi Adebayo, role "pastor, Jesus House"). A congregation's word: nobody who knows
# the man otherwise calls him "Father Keane".
_CALLINGS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("father", "fr", "padre", "pere", "pater", "ksiadz"), _PRIEST),
    **dict.fromkeys(("πατηρ", "πατερ", "отец"), _PRIEST),
    **dict.fromkeys(("reverend", "rev", "revd", "vicar"), _MINISTER),
    "pastor": frozenset({"pastor"}),
    "rabbi": frozenset({"rabbi"}),
    "imam": frozenset({"imam"}),
    "deacon": frozenset({"deacon"}),
    "bishop": frozenset({"bishop"}),
    "swami": frozenset({"swami"}),
    "sister": frozenset({"nun"}),
    # Round 24: a Theravada monk, a lama, a mufti, a cantor, a canon.
    "bhante": frozenset({"monk"}),
    "lama": frozenset({"lama", "monk"}),
    "mufti": frozenset({"mufti"}),
    "cantor": frozenset({"cantor"}),
    "canon": frozenset({"canon", "priest"}),
    # Round 26: a teacher of the Quran or of Arabic (Ustadh Bilal, Ustaz Hamid).
    "ustadh": frozenset({"ustadh", "teacher"}),
    "ustaz": frozenset({"ustadh", "teacher"}),
}
# Titles that name a profession (a doctor's, a professor's — what colleagues, students and
# patients call them too) or a calling.
_PROFESSIONS: dict[str, frozenset[str]] = {
    "dr": _DOCTOR,
    "doctor": _DOCTOR,
    "prof": frozenset({"professor"}),
    "professor": frozenset({"professor"}),
    **_CALLINGS,
}


def _picked_by_title(
    inc: PersonName, found: dict[int, str], fitting: list[int], by_id: dict[int, StoredNode]
) -> int | None:
    """Among several people of one surname matched by a title that names a profession ("Dr.
    Rao": Dr. Sunita Rao, Vikram Rao), the one the user already calls by it: the others are
    not known to hold it — or else the one who is the user's doctor, when no other has a
    stated occupation. Gendered titles are ``_picked_by_gender``'s."""
    wanted = _PROFESSIONS.get(inc.title)
    # By a surname, or a family name said first ("Professor Li": Li Wei, read as a first name).
    if wanted is None or not set(found.values()) <= {"title", "first-name"}:
        return None
    titled = [i for i in fitting if _title_says(by_id[i], wanted)]
    if not titled:
        # Whose stated role is the profession ("Professor Li": Li Wei, role professor, not
        # Li Na the classmate).
        titled = [i for i in fitting if _role_says(by_id[i], wanted)]
    if not titled:
        # Known as the user's doctor (HAS_DOCTOR) — when no other candidate has a stated
        # occupation, which may be titled the same (a dentist is a Dr. too).
        titled = [i for i in fitting if wanted & by_id[i].roles]
        if any(_has_occupation(by_id[i]) for i in fitting if i not in titled):
            return None
    return titled[0] if len(titled) == 1 else None


def _title_says(node: StoredNode, wanted: frozenset[str]) -> bool:
    """Whether one of someone's names is titled with a profession ("Dr. Sunita Rao")."""
    return any(_PROFESSIONS.get(parse_person(f).title) == wanted for f in node_forms(node))


def _role_says(node: StoredNode, wanted: frozenset[str]) -> bool:
    """Whether someone's stated role says a profession ("pastor, Jesus House")."""
    return any(role_said(w, node.properties) for w in wanted)


def _titled_as(node: StoredNode, wanted: frozenset[str]) -> bool:
    """Whether the user knows someone by a profession: a name titled with it, a stated role
    that says it, or the relation (HAS_DOCTOR)."""
    return _title_says(node, wanted) or _role_says(node, wanted) or bool(wanted & node.roles)


# Titles said before a surname ("Dr Hassan", "Mrs. Okafor", "Herr Krüger"), not before a
# given name ("Coach Dave", "Father Tom", "Kuya Jun", "Sir Elton").
_SURNAME_TITLES = frozenset(
    {
        *("mr", "mister", "mrs", "ms", "miss", "madam", "mx", "dr", "doctor", "prof"),
        *("professor", "herr", "frau", "fraulein", "monsieur", "madame", "mme"),
        *("mademoiselle", "mlle", "senor", "senora", "senorita", "sra", "srta", "senhor"),
        *("senhora", "signor", "signore", "signora", "signorina", "pani", "meneer"),
        *("mevrouw", "doctora", "doutor", "doutora", "dottore", "dottoressa"),
        # Round 28: a rank ("Sgt Jones", "Capitaine Moreau").
        *RANKS,
    }
)


def _given_name_untitled(inc: PersonName, node: StoredNode) -> bool:
    """A lone given name said without a title, for a person the user knows only by a title
    and one name that may be a surname ("Hassan"; Dr Hassan)."""
    return (
        node.kind == "PERSON"
        and not inc.title
        and len(inc.words) == 1
        and is_given_name(inc.words[0])
        and all(
            (p := parse_person(f)).title in _SURNAME_TITLES and len(p.words) == 1
            for f in node_forms(node)
        )
    )


def _calling_unknown(inc: PersonName, node: StoredNode) -> bool:
    """A clergy title, said with the surname of someone the user knows otherwise (a friend,
    a neighbour, a relative) and never by that calling. Not "Dr." nor "Prof.": the boss and
    the lecturer are called so at work ("Dr. Abebe", Esther Abebe the boss)."""
    wanted = _CALLINGS.get(inc.title)
    if wanted is None or not node.roles & PEOPLE_ROLES:
        return False
    return not _titled_as(node, wanted)


def _picked_by_gender(
    inc: PersonName,
    inc_gender: str,
    found: dict[int, str],
    fitting: list[int],
    by_id: dict[int, StoredNode],
) -> int | None:
    """Among several people of one surname matched by a gendered title ("Frau Müller": Jana
    Müller, Horst Müller), the one left when every other has a first name the lists give to
    the other gender — what a lone candidate of that first name would get ("title-gender",
    a new node), applied to each. Two left (Jana and Anke Müller, or a first name the lists
    do not know) → still a question."""
    if not inc_gender or set(found.values()) != {"title"}:
        return None
    left = [i for i in fitting if not _title_against_first_name(inc, inc_gender, by_id[i])]
    return left[0] if len(left) == 1 else None


def _has_occupation(node: StoredNode) -> bool:
    return any(node.properties.get(key) for key in ROLE_KEYS)


def exact_moved_by_role(
    new: str, exact: StoredNode, same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict | None:
    """A person of exactly the name of a stored node that the user's relations contradict
    (incoming Theo the boss, stored Theo the brother) goes to the one other person of that
    first name who has the same relation and nothing against it (Theo Grant, the boss).
    None otherwise: the exact rule stands, for a second node of one name and kind cannot be
    made (SPEC §4) and so cannot be held apart."""
    inc = parse_person(new)
    inc_gender = mention.gender or gender_of_titles([inc.title])
    if not mention.roles or not contradicts(
        mention.roles, exact.roles, inc_gender, node_gender(exact)
    ):
        return None
    others = [n for n in same_kind if n.id != exact.id]
    verdict = person_verdict(new, others, mention)
    if verdict is None or verdict.action != MERGE:
        return None
    target = next(n for n in others if n.id == verdict.target)
    if not shares_role(mention.roles, target.roles) or _first_name(target) != inc.first:
        return None
    rule = verdict.rule if verdict.rule.endswith(BY_ROLE) else verdict.rule + BY_ROLE
    return make_verdict(MERGE, [target.id], rule, dict(verdict.scores))


def gender_of_titles(titles: Iterable[str]) -> str:
    """ "f"/"m" from gendered titles said with a name (Mrs./Mr.), "" when none or mixed."""
    return gender_of((), titles=titles)


def node_gender(node: StoredNode) -> str:
    return node.gender or gender_of_titles(parse_person(f).title for f in node_forms(node))
