"""Kinship words said as names (SPEC §5.6, rule 3): "Mom", "Appa", "Grandma" name the person
the user has that relation to, not a person called so; "Aunt Rosa", "Tía Rosa", "Uncle Bob"
are a first name said with a kinship title. Pure functions, no Django.

The table says which relation each word means (the roles of ``person_roles``: HAS_MOTHER →
"mother", HAS_GRANDMOTHER → "grandmother" …); a word that means different relations in
different languages means all of them (Baba is a father in Arabic, Persian, Turkish and
Chinese, a grandmother in Slavic languages), so it merges only when one stored person holds
any of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from memory.core.first_names import is_given_name, is_world_name, name_gender
from memory.core.merge_people import (
    BY_AGE,
    BY_PLACE,
    person_verdict,
    picked_by_age,
    picked_by_place,
)
from memory.core.merge_types import (
    HOLD,
    MERGE,
    Mention,
    MergeVerdict,
    StoredNode,
    make_verdict,
    node_forms,
)
from memory.core.name_spelling import FOREIGN_ARTICLES, name_words
from memory.core.person_roles import (
    GOD_ROLES,
    contradicts,
    family_roles,
    gender_of,
    shares_role,
    specific_roles,
)

__all__ = [
    "KINSHIP",
    "KINSHIP_WORDS",
    "KIN_SUFFIXES",
    "KIN_TITLE",
    "KIN_TITLES",
    "kin_title",
    "kinship_meanings",
    "people_verdict",
]

KINSHIP = "kinship"
KIN_TITLE = "kin-title"

_MOTHER = frozenset({"mother"})
_FATHER = frozenset({"father"})
_GRANDMOTHER = frozenset({"grandmother"})
_GRANDFATHER = frozenset({"grandfather"})
# A kinship word said alone, as a name (folded, lower-case) → the relations it may mean.
KINSHIP_WORDS: Mapping[str, frozenset[str]] = {
    **dict.fromkeys(
        ("mom", "mum", "mommy", "mummy", "momma", "mama", "mamma", "mother", "amma", "ima"),
        _MOTHER,
    ),
    **dict.fromkeys(("dad", "daddy", "father", "appa", "abba"), _FATHER),
    # Siblings are called so too: "Sis", "Bro".
    "sis": frozenset({"sister"}),
    "bro": frozenset({"brother"}),
    # Papa is a father, and a grandfather in many families; Baba a father in Arabic,
    # Persian, Turkish and Chinese, a grandmother in Slavic languages; Nana a grandmother in
    # English, a (maternal) grandfather in Hindi and Urdu.
    "papa": _FATHER | _GRANDFATHER,
    "baba": _FATHER | _GRANDMOTHER,
    "nana": _GRANDMOTHER | _GRANDFATHER,
    **dict.fromkeys(("grandma", "granny", "gran", "grandmother", "oma"), _GRANDMOTHER),
    **dict.fromkeys(("grandpa", "grandad", "granddad", "grandfather", "opa"), _GRANDFATHER),
    # The same words in the languages users write them in — none a given name of the lists
    # (Lola, Saba, Dadi and Nan are, and stay names): Hindi and Urdu (Maa, Ammi, Abbu,
    # Pitaji; Nani, Dadu), Korean (Eomma), German (Mutti, Vati), Polish (Tata, Babcia,
    # Dziadek), Spanish, Italian, Russian, Hebrew, Greek, Yiddish, Filipino, French (Mamie).
    # Dada is a father in many languages, a (paternal) grandfather in Hindi and an elder
    # brother in Bengali.
    **dict.fromkeys(("maa", "ammi", "umma", "eomma", "mutti"), _MOTHER),
    **dict.fromkeys(("abbu", "pitaji", "vati", "tata"), _FATHER),
    "dada": _FATHER | _GRANDFATHER | frozenset({"brother"}),
    **dict.fromkeys(
        (
            *("nonna", "abuela", "abuelita", "babcia", "babushka", "savta", "nani"),
            *("yiayia", "bubbe", "bubbie", "grandmama", "mamie"),
        ),
        _GRANDMOTHER,
    ),
    **dict.fromkeys(
        (
            *("nonno", "abuelo", "abuelito", "dziadek", "dedushka", "lolo", "dadu"),
            *("papou", "zayde", "grandpapa"),
        ),
        _GRANDFATHER,
    ),
    # Māori (koro, kuia), Afrikaans (oupa), Hokkien and Cantonese said as one word or with
    # "Ah" (Ah Ma, Ah Gong, Popo: ``kinship_meanings``); a partner's pet words; Hindi and
    # Urdu words for a brother's wife and a sister's husband (bhabhi, jiju).
    **dict.fromkeys(("koro", "oupa", "ahgong", "ahkong", "gonggong"), _GRANDFATHER),
    **dict.fromkeys(("kuia", "ahma", "ahmah", "popo", "ahpo"), _GRANDMOTHER),
    # In-laws and godparents in Spanish, Portuguese, German and French (round 20).
    **dict.fromkeys(("suegra", "sogra", "schwiegermutter"), frozenset({"mother_in_law"})),
    **dict.fromkeys(("suegro", "sogro", "schwiegervater"), frozenset({"father_in_law"})),
    **dict.fromkeys(("madrina", "madrinha", "marraine"), frozenset({"godmother"})),
    **dict.fromkeys(("padrino", "padrinho", "parrain"), frozenset({"godfather"})),
    # Round 28: Welsh, Irish and Northern English (Mam, Mammy; Taid and Nain, grandfather and
    # grandmother in North Wales), French (Mémé, folded), Hindi and Punjabi with the
    # respectful -ji (Dadaji, Nanaji, Dadiji, Naniji) and Japanese (obaachan, ojiichan).
    # "Pop" is a father or a grandfather, as Papa is — and often a father-in-law.
    **dict.fromkeys(("mam", "mammy"), _MOTHER),
    # Round 34: French "Maman" (a given name of the lists too, but said far more often of
    # one's mother), Portuguese "Mamãe" and "Papai", and "Avó"/"Avô" (folded alike: a
    # grandparent).
    **dict.fromkeys(("maman", "mamae"), _MOTHER),
    "papai": _FATHER,
    "avo": _GRANDMOTHER | _GRANDFATHER,
    **dict.fromkeys(("pop", "pops"), _FATHER | _GRANDFATHER | frozenset({"father_in_law"})),
    **dict.fromkeys(
        ("nain", "meme", "dadiji", "naniji", "obaachan", "obaasan", "baachan"), _GRANDMOTHER
    ),
    **dict.fromkeys(("taid", "dadaji", "nanaji", "ojiichan", "ojiisan", "jiichan"), _GRANDFATHER),
    # Round 29: grandparents in Korean (halmeoni, and oe- and chin- for the mother's and the
    # father's side), Swedish (mormor, farmor, morfar, farfar), Turkish (anneanne,
    # babaanne), Mandarin (laolao, nainai, waipo; yeye, laoye, waigong — and in characters),
    # Vietnamese (bà ngoại, bà nội; ông ngoại, ông nội, said as two words), Thai (khun yai,
    # khun ta), Arabic (teta, jiddo, sido), Persian (maman bozorg, pedar bozorg) and Yoruba
    # (iya agba, baba agba); Korean and Chinese words for a mother and a father; aunts and
    # uncles in Korean (gomo), Hindi and Urdu (chachu, mamaji, bua), Russian and Greek
    # (dyadya, tyotya; theia, thios); an elder brother in Hindi (bhaiya).
    **dict.fromkeys(
        (
            *("halmeoni", "halmoni", "oehalmeoni", "chinhalmeoni", "할머니", "mormor"),
            *("farmor", "anneanne", "babaanne", "babanne", "laolao", "nainai", "waipo"),
            *("奶奶", "姥姥", "外婆", "bangoai", "banoi", "khunyai", "teta", "mamanbozorg"),
            *("iyaagba",),
        ),
        _GRANDMOTHER,
    ),
    **dict.fromkeys(
        (
            *("harabeoji", "halabeoji", "할아버지", "morfar", "farfar", "yeye", "laoye"),
            *("waigong", "爷爷", "姥爷", "外公", "ongngoai", "ongnoi", "khunta", "jiddo"),
            *("sido", "pedarbozorg", "babaagba"),
        ),
        _GRANDFATHER,
    ),
    **dict.fromkeys(("엄마", "妈妈"), _MOTHER),
    **dict.fromkeys(("아빠", "爸爸"), _FATHER),
    **dict.fromkeys(("gomo", "bua", "tyotya", "theia"), frozenset({"aunt"})),
    **dict.fromkeys(("chachu", "mamaji", "dyadya", "thios"), frozenset({"uncle"})),
    "bhaiya": frozenset({"brother"}),
    "hubby": frozenset({"partner_m"}),
    "wifey": frozenset({"partner_f"}),
    "bhabhi": frozenset({"sister_in_law"}),
    "jiju": frozenset({"brother_in_law"}),
}
# Kinship words said as two words ("khun yai", "ba ngoai"), joined.
_JOINED = frozenset(
    {"bangoai", "banoi", "khunyai", "khunta", "mamanbozorg", "pedarbozorg", "iyaagba"}
    | {"babaagba", "ongngoai", "ongnoi"}
)
# Kinship words that are also given names in the lists (Gogo, Dadi, Ouma, Nan, Lola): a
# relation only when the user says it ("Gogo", the user's grandmother), else a name.
KINSHIP_NAMES: Mapping[str, frozenset[str]] = {
    **dict.fromkeys(("gogo", "dadi", "ouma", "nan", "nanna", "lola", "tutu"), _GRANDMOTHER),
    "saba": _GRANDFATHER,
    # Pépé, folded: also a pet form of José.
    "pepe": _GRANDFATHER,
}
# A kinship title said before a first name ("Aunt Rosa", "Tía Rosa", "Oma Ingrid") → the
# relation it says the person has to the user.
KIN_TITLES: Mapping[str, str] = {
    **dict.fromkeys(("aunt", "auntie", "aunty", "tia", "tita", "tante", "zia"), "aunt"),
    "oupa": "grandfather",
    "ouma": "grandmother",
    **dict.fromkeys(("uncle", "tio", "tito", "onkel", "zio"), "uncle"),
    # Afrikaans (round 28): Oom and Tannie, said to any older man or woman as to an uncle or
    # an aunt ("Oom Koos" the neighbour).
    "oom": "uncle",
    "tannie": "aunt",
    # Round 29: Russian, Greek and Arabic ("Dyadya Misha", "Theia Maria", "Ammu Tariq").
    **dict.fromkeys(("dyadya", "thios", "ammu", "ammo"), "uncle"),
    **dict.fromkeys(("tyotya", "theia", "khala", "khalto"), "aunt"),
    # Persian: a mother's sister, a father's sister; a father's brother, a mother's brother.
    **dict.fromkeys(("khaleh", "ammeh"), "aunt"),
    # Portuguese vô and vó (grandfather, grandmother), one word once the accents are folded.
    **dict.fromkeys(("vo", "vovo"), "grandparent"),
    **dict.fromkeys(("amoo", "amu", "dayi"), "uncle"),
    # "Primo Andrés", "Prima Lucía", "Cugino Marco": a cousin, in Spanish, Portuguese and
    # Italian.
    **dict.fromkeys(("cousin", "primo", "prima", "cugino", "cugina"), "cousin"),
    **dict.fromkeys(
        (
            *("grandma", "granny", "gran", "nana", "oma", "abuela", "abuelita", "nonna"),
            *("lola", "babcia", "savta", "mamie", "meme", "bubbe", "bubbie", "yiayia"),
        ),
        "grandmother",
    ),
    **dict.fromkeys(
        (
            *("grandpa", "grandad", "granddad", "opa", "abuelo", "abuelito", "nonno"),
            *("lolo", "dziadek", "saba", "papy", "pepe", "zayde", "papou"),
        ),
        "grandfather",
    ),
}
# A grandparent's title is as often the children's name for the user's own parent or
# parent-in-law ("Abuela Rosa", the user's mother; "Mamie Brigitte", the ex's mother).
_CHILDRENS_VIEW: Mapping[str, frozenset[str]] = {
    "grandmother": frozenset({"grandmother", "mother", "stepmother", "mother_in_law"}),
    "grandfather": frozenset({"grandfather", "father", "stepfather", "father_in_law"}),
}
# Kinship titles said after the name, as in South Asian usage ("Lakshmi Aunty", "Subbu
# Mama": mama is a maternal uncle in Tamil, Telugu and Hindi, mami his wife).
KIN_SUFFIXES: Mapping[str, str] = {
    **dict.fromkeys(("aunty", "auntie", "mami", "chachi", "masi", "mausi"), "aunt"),
    **dict.fromkeys(("uncle", "mama", "chacha", "mamu"), "uncle"),
    # Turkish puts them after the name too (Ayşe Teyze, Ahmet Amca, Mustafa Dayı).
    "teyze": "aunt",
    **dict.fromkeys(("amca", "dayi"), "uncle"),
}
# Titles that are also a courtesy for any elder in much of the English-speaking world
# (India, Nigeria, Kenya, the Caribbean: "Fernandes uncle" the landlord, "Aunty Wanjiru"
# the neighbour): they tell the person's gender and rule out a sister or a father, but are
# no evidence against a neighbour or a family friend.
COURTESY_TITLES = frozenset({"aunty", "auntie", "uncle"})
# ... and so, in Turkish and Afrikaans, are Amca, Teyze, Oom and Tannie (round 28).
COURTESY_TITLES |= {"amca", "teyze", "oom", "tannie"}
# One each: a full name said as the user's mother (father) is the node named "Mom" ("Dad").
_ONE_EACH = frozenset({"mother", "father"})


def kinship_meanings(
    norm: str, table: Mapping[str, frozenset[str]] = KINSHIP_WORDS
) -> frozenset[str]:
    """The relations a name means when it is a kinship word alone ("mom" → {"mother"},
    "ah ma" → {"grandmother"}), else the empty set."""
    return table.get(_kinship_word(norm), frozenset())


def _kinship_word(norm: str) -> str:
    """The one word a kinship word said alone is ("ah ma" is "ahma"; "la nonna" is "nonna":
    an article is no name), else ""."""
    words = name_words(norm)
    if len(words) == 2 and words[0] in FOREIGN_ARTICLES:
        words = words[1:]
    if len(words) == 2 and (words[0] == "ah" or "".join(words) in _JOINED):
        # "Ah Ma", "Khun Yai", "Bà Ngoại", "Maman Bozorg": one kinship word said in two.
        return "".join(words)
    return words[0] if len(words) == 1 else ""


def kin_title(norm: str) -> tuple[str, str] | None:
    """A name said with a kinship title, as (relation, the name without it): "tía rosa" →
    ("aunt", "rosa"), "lakshmi aunty" → ("aunt", "lakshmi"). Not with a name whose gender
    the lists give otherwise ("Zia Ahmed" is a man's full name, not an aunt's); and a title
    that is also a given name ("Tia", "Nana", "Oma") only with a given name of the lists or
    a name of the world pet-form table ("Oma Mien"; "Nana Mensah" is a full name)."""
    words = name_words(norm)
    if len(words) < 2:
        return None
    if words[0] in KIN_TITLES:
        title, first, rest = words[0], words[1], words[1:]
        role = KIN_TITLES[title]
    elif words[-1] in KIN_SUFFIXES:
        title, first, rest = words[-1], words[0], words[:-1]
        role = KIN_SUFFIXES[title]
    else:
        return None
    if is_given_name(title) and not (is_given_name(first) or is_world_name(first)):
        return None
    title_gender, first_gender = gender_of([role]), name_gender(first)
    if title_gender and first_gender and title_gender != first_gender:
        return None
    return role, " ".join(rest)


def _courtesy_or_kin(target: StoredNode, mention: Mention) -> bool:
    """Whether a courtesy title's match is known to the user only as someone outside the
    family (a neighbour, a landlord) and the mention does not say it is that someone."""
    return (
        bool(specific_roles(target.roles))
        and not family_roles(target.roles)
        # A godmother called "Auntie Fi" is called so as family is.
        and not target.roles & GOD_ROLES
        and not shares_role(mention.roles, target.roles)
    )


def _named_as(node: StoredNode, meanings: frozenset[str]) -> bool:
    return any(kinship_meanings(f) & meanings for f in node_forms(node))


def _word_verdict(
    word: str, same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict | None:
    """A kinship word alone ("Mom", "Appa", "Grandma"): the one stored person the user has
    that relation to (or named by a word of that meaning, "Mum") → merge; several, or any
    person whose name holds the word ("Grandma Ruth", whom the user has not said is their
    grandmother: most people have two) → held; none → None (a new person, unless another
    kind's node of that name is a question)."""
    meanings = KINSHIP_WORDS.get(word) or KINSHIP_NAMES[word]
    said = frozenset(m for m in meanings if shares_role(frozenset({m}), mention.roles))
    meanings = said or meanings
    side = _SIDES.get(word, "")
    exact, loose, namesakes = [], [], []
    for node in same_kind:
        if node.is_self or (side and _side_of(node) not in ("", side)):
            # "Waipo", the mother's mother, is not the grandmother on the father's side.
            continue
        if node.roles & meanings or (
            _named_as(node, meanings) and not contradicts(meanings, node.roles)
        ):
            exact.append(node.id)
        elif shares_role(meanings, node.roles):
            loose.append(node.id)  # a parent, of no stated gender, for "Mom"
        elif any(word in name_words(f) for f in node_forms(node)):
            namesakes.append(node.id)
    found = [*exact, *loose, *namesakes]
    scores = dict.fromkeys(found, 1.0)
    if len(exact) == 1 and not loose and not namesakes:
        return make_verdict(MERGE, exact, KINSHIP, scores)
    if len(exact) > 1 and not loose and not namesakes:
        # Two grandmothers: the one where the user places her ("Bubbe", in Toronto), or of
        # the age said, when the other is known to be elsewhere or of another age.
        by_id = {n.id: n for n in same_kind}
        for pick, how in ((picked_by_place, BY_PLACE), (picked_by_age, BY_AGE)):
            picked = pick(exact, by_id, mention)
            if picked is not None:
                return make_verdict(MERGE, [picked], KINSHIP + how, {picked: 1.0})
    if found:
        return make_verdict(HOLD, found, f"{KINSHIP}-ambiguous", scores)
    return None


# Round 29: the kinship words that say which side of the family (the mother's: "m"; the
# father's: "f"), as Hindi, Korean, Swedish, Turkish, Mandarin and Vietnamese do.
_SIDES: Mapping[str, str] = {
    **dict.fromkeys(
        (
            *("nani", "nanaji", "naniji", "oehalmeoni", "mormor", "morfar", "anneanne"),
            *("laolao", "waipo", "姥姥", "外婆", "laoye", "waigong", "姥爷", "外公"),
            *("bangoai", "ongngoai", "mamaji"),
        ),
        "m",
    ),
    **dict.fromkeys(
        (
            *("dadi", "dadaji", "dadiji", "dadu", "chinhalmeoni", "farmor", "farfar"),
            *("babaanne", "babanne", "nainai", "奶奶", "yeye", "爷爷", "banoi", "ongnoi"),
            *("chachu", "bua", "gomo"),
        ),
        "f",
    ),
}
_MOTHERS_SIDE = re.compile(r"\b(?:mum|mom|mam|mother|mama)['’]s\b|\bmaternal\b")
_FATHERS_SIDE = re.compile(r"\b(?:dad|father|papa)['’]s\b|\bpaternal\b")


def _side_of(node: StoredNode) -> str:
    """Which side of the user's family a stored relative is on: by a kinship word of one
    side among their names ("奶奶"), else by their note ("mum's mother", "paternal"); ""
    when neither says, or both. Round 31: a kinship word of one side in the note counts
    ("my dadi, Jaipur")."""
    for form in node_forms(node):
        if side := _SIDES.get(_kinship_word(form), ""):
            return side
    note = str(node.properties.get("note") or "").lower()
    mothers, fathers = bool(_MOTHERS_SIDE.search(note)), bool(_FATHERS_SIDE.search(note))
    said = {_SIDES.get(w, "") for w in re.findall(r"[^\W\d_]+", note)} - {""}
    mothers, fathers = mothers or said == {"m"}, fathers or said == {"f"}
    return "m" if mothers and not fathers else "f" if fathers and not mothers else ""


def _parent_named_by_kinship(
    same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict | None:
    """A full name said as the user's mother or father ("Graham Whitfield", HAS_FATHER) when
    the one stored person who is that to the user is named by a kinship word ("Dad"): a user
    has one of each, and the name is what the graph did not know yet."""
    roles = mention.roles & _ONE_EACH
    if not roles:
        return None
    holders = [n for n in same_kind if not n.is_self and (n.roles & roles or _named_as(n, roles))]
    if len(holders) != 1 or not _named_as(holders[0], roles):
        return None
    only = holders[0]
    if contradicts(mention.roles, only.roles, mention.gender, only.gender):
        return None
    return make_verdict(MERGE, [only.id], KINSHIP, {only.id: 1.0})


def _without_kin_words(same_kind: Sequence[StoredNode]) -> list[StoredNode]:
    """The nodes with their kinship-word names left out ("Dad" is no first name to match
    "Dan" by a letter); a node known by nothing else is left out."""
    out = []
    for node in same_kind:
        forms = node_forms(node)
        kept = [f for f in forms if not kinship_meanings(f)]
        if len(kept) == len(forms):
            out.append(node)
        elif kept:
            out.append(replace(node, name=kept[0], aliases=tuple(kept[1:])))
    return out


def _titled_otherwise(node: StoredNode, roles: frozenset[str]) -> bool:
    """Whether every kinship title among a node's names is of a relation other than
    ``roles`` (Zio Franco, for "Nonno Franco"), and it has one; courtesies aside."""
    titled = [
        split[0]
        for f in node_forms(node)
        if (split := kin_title(f)) is not None and not COURTESY_TITLES & set(name_words(f))
    ]
    return bool(titled) and not any(shares_role(roles, {t}) for t in titled)


def _without_kin_titles(same_kind: Sequence[StoredNode]) -> list[StoredNode]:
    """The nodes with kinship titles taken off their names ("Tía Rosa" → "rosa")."""
    out = []
    for node in same_kind:
        forms = [(split[1] if (split := kin_title(f)) else f) for f in node_forms(node)]
        out.append(replace(node, name=forms[0], aliases=tuple(forms[1:])))
    return out


def people_verdict(
    new: str, same_kind: Sequence[StoredNode], mention: Mention
) -> MergeVerdict | None:
    """Rule 3 for a PERSON: kinship words first, then the person rules (``person_verdict``).

    * a kinship word alone ("Mom", "Appa", "Grandma") → ``_word_verdict``, never the person
      rules (Mama is no short form of Mamadou) — unless the mention's relations say it is
      someone's name (Nana the friend): then a name; one that is also a given name ("Gogo",
      ``KINSHIP_NAMES``) only when the mention's relation says it is that relation;
    * a kinship title and a first name ("Tía Rosa", "Uncle Bob") → the person rules on the
      name without the title (kinship titles taken off the stored names too), the title's
      relation added to what the mention says: the one Rosa → merge ("kin-title"); Rosa
      the user's sister is no aunt → a new node. The title is never read as a first name;
    * otherwise the person rules, kinship-word names left out; when they find nobody, a
      full name said as the user's mother or father goes to the parent named "Mom"/"Dad".
    None when no rule found a candidate."""
    meanings = kinship_meanings(new)
    if meanings and (not mention.roles or any(shares_role(meanings, {r}) for r in mention.roles)):
        return _word_verdict(_kinship_word(new), same_kind, mention)
    named = kinship_meanings(new, KINSHIP_NAMES)
    if named and any(shares_role(named, {r}) for r in mention.roles):
        verdict = _word_verdict(_kinship_word(new), same_kind, mention)
        if verdict is not None:
            return verdict
    split = kin_title(new)
    if split is not None:
        role, name = split
        gender = mention.gender or gender_of([role])
        courtesy = bool(COURTESY_TITLES & set(name_words(new)))
        elders = _CHILDRENS_VIEW.get(role) if not mention.roles else None
        # Round 31: "Nonno Franco" is not "Zio Franco": a stored name's kinship title of
        # another relation is another person (a courtesy title said leaves it to the guards).
        said_as = elders or frozenset({role})
        stored = _without_kin_titles(
            [n for n in same_kind if courtesy or not _titled_otherwise(n, said_as)]
        )
        if courtesy or elders:
            # A courtesy as often as a relation, a grandparent's title as often the children's
            # name for a parent: only another family relation contradicts it.
            fitting = elders or frozenset({role})
            stored = [
                n
                for n in stored
                if not family_roles(n.roles) or shares_role(fitting, family_roles(n.roles))
            ]
            with_role = replace(mention, gender=gender)
        else:
            with_role = replace(mention, roles=mention.roles | {role}, gender=gender)
        verdict = person_verdict(name, stored, with_role)
        if verdict is None or verdict.action != MERGE:
            return verdict
        target = next(n for n in stored if n.id == verdict.target)
        if (courtesy or elders) and _courtesy_or_kin(target, mention):
            # "Auntie Mae" and Mae the neighbour: the courtesy for her, or an aunt of the same
            # name not known yet — unless the user says she is the neighbour.
            return make_verdict(HOLD, [target.id], f"{KIN_TITLE}-courtesy", dict(verdict.scores))
        return make_verdict(MERGE, [target.id], KIN_TITLE, dict(verdict.scores))
    # "Pete" for a stored "Uncle Pete": the name without its kinship title.
    verdict = person_verdict(new, _without_kin_titles(_without_kin_words(same_kind)), mention)
    if verdict is not None:
        return verdict
    return _parent_named_by_kinship(same_kind, mention)
