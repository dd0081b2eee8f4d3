"""What the user said about someone: their roles for the user and their gender (SPEC §5.6).

Pure functions, no Django. The merge rules compare what a batch says an entity is to the user
(its relations with the self node, a gendered title, a ``gender`` property) with what the
stored edges say about each candidate: a sister is not a brother, nor — said plainly — a
colleague (``contradicts``). Nothing here guesses from the first name itself; the
first-name lists (``memory.core.first_names``) are a suggestion and live apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = [
    "ADMIRED",
    "FORMER_PET",
    "GIVEN_NAME_COURTESIES",
    "GIVEN_NAME_TITLES",
    "INITIAL_RANKS",
    "NEWLY_MET_ROLES",
    "PEOPLE_ROLES",
    "PET",
    "PET_ROLES",
    "PLANNED",
    "POSSESSION",
    "POST_TITLES",
    "RANKS",
    "RANK_PARTS",
    "RANK_WORDS",
    "TIE_ROLES",
    "TITLES",
    "WENT",
    "capacities_differ",
    "colleagues_both",
    "contradicts",
    "family_roles",
    "gender_of",
    "kin_of_named",
    "kin_words_of",
    "newly_met",
    "public_and_personal",
    "relative_of_an_acquaintance",
    "role_word",
    "roles_from_relations",
    "same_close_family",
    "shares_role",
    "specific_roles",
]

# Titles said before a surname ("Mr. Patterson", "Dr Reyes") or a full name ("Dr. Jonathan
# Reyes"); the gendered ones say something about who is meant. Other languages' forms of
# address are said the same way ("Frau Vogel", "Pani Kowal", "Sra. López"), folded to ASCII.
# Not "pan" (Polish Mr.) nor "don"/"dona": those are also a surname (Pan Wei) or given names.
TITLES: Mapping[str, str] = {
    "mr": "m",
    "mister": "m",
    "sir": "m",
    "mrs": "f",
    "ms": "f",
    "miss": "f",
    "madam": "f",
    "dame": "f",
    "herr": "m",
    "frau": "f",
    "fraulein": "f",
    "monsieur": "m",
    "madame": "f",
    "mme": "f",
    "mademoiselle": "f",
    "mlle": "f",
    "senor": "m",
    "sr": "",
    "senora": "f",
    "sra": "f",
    "senorita": "f",
    "srta": "f",
    "senhor": "m",
    "senhora": "f",
    "signor": "m",
    "signore": "m",
    "signora": "f",
    "signorina": "f",
    "pani": "f",
    "meneer": "m",
    "mevrouw": "f",
    "mx": "",
    "dr": "",
    "doctor": "",
    "prof": "",
    "professor": "",
    # Doctor in Spanish, Portuguese and Italian; an elder in Swahili; an elder sister or
    # brother, said to anyone a little older, in Filipino (Ate Tina, Kuya Jun): forms of
    # address, not kinship.
    "doctora": "f",
    "doutor": "m",
    "doutora": "f",
    "dottore": "m",
    "dottoressa": "f",
    "mzee": "m",
    "ate": "f",
    "kuya": "m",
    # How children, players and congregations address someone, before the surname.
    "coach": "",
    "pastor": "",
    "rabbi": "",
    # Clergy as a congregation addresses them ("Father Tom", "Fr. Keane", "Rev. Okonjo",
    # "Imam Yusuf", "Sister Agnes", "ksiądz Marek", "Padre Miguel"). A priest addressed as
    # Father is a man, a nun addressed as Sister a woman. "Sr" is no nun's title here: it is
    # also Señor and Senior, so it says no gender.
    "father": "m",
    "fr": "m",
    "padre": "m",
    "pere": "m",
    "pater": "m",
    "ksiadz": "m",
    "reverend": "",
    "rev": "",
    "revd": "",
    "vicar": "",
    "deacon": "",
    "bishop": "",
    "imam": "",
    "sheikh": "",
    "shaykh": "",
    "ustaz": "",
    "ustadh": "",
    "swami": "",
    "pandit": "",
    "sister": "f",
    # Round 24: Sikh honorifics before a given name (Bhai Gurpreet Singh, Bibi Harjit Kaur),
    # a mufti, one who has made the Hajj, a Theravada monk (Bhante), a lama, a cantor, a
    # canon of a cathedral.
    "bhai": "m",
    "bibi": "f",
    "mufti": "",
    "haji": "",
    "hajji": "",
    "bhante": "m",
    "lama": "",
    "cantor": "",
    "canon": "",
    # Round 32: what pupils and colleagues call a teacher before the name, and a boss or a
    # woman who has made the Hajj: "Teacher Chen", Thai "Kru Somchai", Swahili "Mwalimu
    # Otieno", Irish "Múinteoir Máire", Dutch "meester Jan" and "juf Anke", Spanish "la
    # profe Gómez", Portuguese "a stora Marques", Vietnamese "cô Lan" and "thầy Minh",
    # Arabic "Ustadha Huda", Nigerian "Oga Femi" and "Hajiya Aisha".
    "teacher": "",
    "kru": "",
    "mwalimu": "",
    "muinteoir": "",
    "meester": "m",
    "juf": "f",
    "juffrouw": "f",
    "profe": "",
    "stora": "f",
    "stor": "m",
    "co": "f",
    "thay": "m",
    "ustad": "m",
    "ustaad": "m",
    "ustadha": "f",
    "ustaza": "f",
    "oga": "m",
    "hajiya": "f",
    "alhaji": "m",
    # ... and in Greek and Russian, as the name is written there (accents folded).
    "πατηρ": "m",
    "πατερ": "m",
    "отец": "m",
    # Epithets friends give one of two of a name ("Big Mike", "Little Sam"): the first name
    # said with a word before it, as with a title.
    "big": "",
    "little": "",
    "lil": "",
}
# Round 28: ranks of the armed forces, the police and the fire service, said before a
# surname or a full name as a title is ("Sgt Owen Jones", "Capt. Okoro", "Hauptmann Weber",
# "porucznik Nowak", "Detective Luis Dominguez"), with their usual abbreviations. A rank says
# no gender; people are promoted, so two ranks never tell two people apart. Not "DI", "DC",
# "PC", "PO" nor "Di": those are also a nickname (Di) or initials.
RANKS = frozenset(
    {
        *("private", "pte", "pvt", "pfc", "trooper", "gunner", "sapper", "airman", "sra"),
        *("corporal", "cpl", "lcpl", "bombardier", "bdr", "sergeant", "serjeant", "sgt"),
        *("sarge", "csgt", "ssgt", "gunny", "gysgt", "msgt", "rsm", "csm", "wo1", "wo2"),
        *("lieutenant", "lt", "lieut", "2lt", "1lt", "captain", "capt", "cpt", "major"),
        *("maj", "colonel", "col", "brigadier", "brig", "general", "gen", "admiral", "adm"),
        *("commodore", "commander", "cdr", "cmdr", "ensign", "midshipman", "marshal"),
        *("officer", "detective", "det", "inspector", "insp", "dci", "dsi", "constable"),
        *("superintendent", "supt", "sheriff", "deputy", "chief", "leader", "ldr"),
        # The same ranks in German, French, Polish, Spanish, Portuguese, Italian, Russian
        # and Turkish, as the name is written there (accents folded).
        *("hauptmann", "oberst", "oberstleutnant", "leutnant", "oberleutnant", "feldwebel"),
        *("oberfeldwebel", "hauptfeldwebel", "stabsfeldwebel", "unteroffizier"),
        *("gefreiter", "obergefreiter", "capitaine", "sergent", "adjudant", "adjudantchef"),
        *("caporal", "commandant", "porucznik", "podporucznik", "kapitan", "pulkownik"),
        *("sierzant", "kapral", "teniente", "capitan", "coronel", "sargento", "cabo"),
        *("comandante", "tenente", "capitano", "colonnello", "maresciallo", "brigadiere"),
        *("капитан", "майор", "полковник", "сержант", "лейтенант", "генерал"),
        *("soldado", "soldato", "soldat", "szeregowy", "рядовой", "cpo"),
    }
)
# Words that make a rank of two or three words ("Colour Sergeant", "C/Sgt", "Lance
# Corporal", "Gunnery Sergeant", "Squadron Leader", "Wing Commander", "Petty Officer",
# "Station Officer", "Airman First Class"): part of the title only beside a rank.
RANK_PARTS = frozenset(
    {
        *("colour", "color", "c", "s", "staff", "lance", "gunnery", "squadron", "sqn"),
        *("wing", "wg", "flight", "flt", "group", "gp", "petty", "chief", "master"),
        *("senior", "first", "second", "class", "company", "regimental", "warrant"),
        *("station", "police", "fire", "air", "vice", "rear", "field", "leading"),
    }
)
TITLES = {**TITLES, **dict.fromkeys(RANKS, "")}
# A rank's abbreviations and other spellings, each word as the rank is written in full, to
# tell whether two ranks said are one ("Sgt", "Sergeant"; "RSM", a WO1's appointment).
RANK_WORDS: Mapping[str, str] = {
    **dict.fromkeys(("sgt", "serjeant", "sarge"), "sergeant"),
    **dict.fromkeys(("capt", "cpt"), "captain"),
    **dict.fromkeys(("lt", "lieut"), "lieutenant"),
    **dict.fromkeys(("cdr", "cmdr"), "commander"),
    **dict.fromkeys(("pte", "pvt"), "private"),
    **dict.fromkeys(("c", "color"), "colour"),
    **dict.fromkeys(("rsm", "wo1"), "wo1"),
    **dict.fromkeys(("csm", "wo2"), "wo2"),
    **dict.fromkeys(("gunny", "gysgt"), "gunnery sergeant"),
    "col": "colonel",
    "maj": "major",
    "gen": "general",
    "brig": "brigadier",
    "adm": "admiral",
    "cpl": "corporal",
    "lcpl": "lance corporal",
    "csgt": "colour sergeant",
    "ssgt": "staff sergeant",
    "msgt": "master sergeant",
    "s": "staff",
    "sra": "senior airman",
    "det": "detective",
    "insp": "inspector",
    "supt": "superintendent",
    "sqn": "squadron",
    "ldr": "leader",
    "wg": "wing",
    "flt": "flight",
    "gp": "group",
    "bdr": "bombardier",
    **dict.fromkeys(("soldado", "soldato", "soldat", "szeregowy", "рядовой"), "private"),
    "cpo": "chief petty officer",
    "di": "detective inspector",
    "dc": "detective constable",
    "ds": "detective sergeant",
    "pc": "police constable",
    "po": "petty officer",
    "wo": "warrant officer",
}
# Ranks of two letters that are also initials or a nickname ("Di", "DC"): a rank only
# before a full name ("DI Mark Bellamy", "PO Sarah Quinn").
INITIAL_RANKS = frozenset({"di", "dc", "ds", "pc", "po", "wo"})
# Round 28: courtesies said before a given name to an older man or woman, as Mr and Mrs are
# before a surname: Brazilian Seu and Dona, Greek Kyr and Kyria, Romanian Nea.
_BEFORE_A_GIVEN_NAME = {"seu": "m", "kyr": "m", "κυρ": "m", "kyria": "f", "κυρια": "f"}
TITLES |= _BEFORE_A_GIVEN_NAME
# Don and Doña (Spanish), Dona (Portuguese) and Nea (Romanian) are given names too: a title
# only before a given name ("Don Aurelio", "Nea Ion"; "Don Smith" is a Don).
GIVEN_NAME_TITLES: Mapping[str, str] = {"don": "m", "dona": "f", "nea": "m"}
# All the courtesies said before a given name, not a surname.
GIVEN_NAME_COURTESIES = frozenset({*_BEFORE_A_GIVEN_NAME, *GIVEN_NAME_TITLES})

_SYNONYMS = {
    "mom": "mother",
    "mum": "mother",
    "mommy": "mother",
    "mummy": "mother",
    "dad": "father",
    "daddy": "father",
    "grandma": "grandmother",
    "granny": "grandmother",
    "grandpa": "grandfather",
    "kid": "child",
    "coworker": "colleague",
    "co_worker": "colleague",
    "workmate": "colleague",
    "neighbor": "neighbour",
    "fiancee": "fiance",
    "bff": "friend",
    "best_friend": "friend",
    "girlfriend": "partner_f",
    "boyfriend": "partner_m",
    "wife": "partner_f",
    "husband": "partner_m",
    "spouse": "partner",
    "works_with": "colleague",
    "stepdad": "stepfather",
    "stepmom": "stepmother",
    "stepmum": "stepmother",
    "step_father": "stepfather",
    "step_mother": "stepmother",
    "step_dad": "stepfather",
    "step_mom": "stepmother",
    "step_mum": "stepmother",
    "step_brother": "stepbrother",
    "step_sister": "stepsister",
    "step_son": "stepson",
    "step_daughter": "stepdaughter",
    "married_to": "partner",
    "veterinarian": "vet",
    "solicitor": "lawyer",
    "attorney": "lawyer",
    "case_worker": "caseworker",
    "physiotherapist": "physio",
    "physical_therapist": "physio",
    "dietician": "dietitian",
    "nutritionist": "dietitian",
    # A trainer is a coach (HAS_TRAINER, "my personal trainer", "my PT" aside: a physio too).
    "trainer": "coach",
    "personal_trainer": "coach",
    "fitness_coach": "coach",
    "running_coach": "coach",
    "dating": "partner",
    "parish_priest": "priest",
    "shaykh": "sheikh",
}
# Family roles: a person has at most a few, and they exclude each other (a sister is not
# a mother, nor — said plainly — a colleague).
_KIN = frozenset(
    {
        "sister",
        "brother",
        "sibling",
        "mother",
        "father",
        "parent",
        "son",
        "daughter",
        "child",
        "grandmother",
        "grandfather",
        "grandparent",
        "grandson",
        "granddaughter",
        "grandchild",
        "aunt",
        "uncle",
        "niece",
        "nephew",
        "cousin",
        "stepmother",
        "stepfather",
        "stepsister",
        "stepbrother",
        "stepson",
        "stepdaughter",
        "half_sister",
        "half_brother",
        "mother_in_law",
        "father_in_law",
        "sister_in_law",
        "brother_in_law",
        "son_in_law",
        "daughter_in_law",
        "twin",
    }
)
_PARTNER = frozenset({"partner", "partner_f", "partner_m", "fiance"})
EX = "ex"
# Godparents and godchildren: called "Auntie" and "Uncle" as family is.
GOD_ROLES = frozenset({"godmother", "godfather", "godparent", "godson", "goddaughter", "godchild"})
# The clergy and the leaders of a faith, as a relation names them (HAS_PASTOR, HAS_IMAM).
CLERGY = frozenset(
    {"priest", "pastor", "vicar", "minister", "chaplain", "rabbi", "imam", "sheikh", "pandit"}
    | {"swami", "granthi", "monk", "nun", "deacon", "bishop"}
)
_SOCIAL = frozenset(
    {
        "friend",
        "colleague",
        "boss",
        "manager",
        "mentor",
        "mentee",
        "neighbour",
        "roommate",
        "flatmate",
        "housemate",
        "classmate",
        "teacher",
        "tutor",
        "student",
        "doctor",
        "therapist",
        "physio",
        "dietitian",
        "coach",
        "landlord",
        # The professionals people say "my …" of (session 21): HAS_VET, HAS_DENTIST,
        # HAS_LAWYER, HAS_ACCOUNTANT — a person or the practice or firm.
        "vet",
        "dentist",
        "lawyer",
        "accountant",
        "caseworker",
        "client",
        "employee",
        "teammate",
        "acquaintance",
        # Round 20: godparents and godchildren (often friends of the family, so social), and
        # a sponsor in a twelve-step fellowship.
        *GOD_ROLES,
        "sponsor",
        "assistant",
        "report",
        "supervisor",
        # Round 24: clergy and the leaders of a faith the user has (HAS_PASTOR, HAS_RABBI,
        # HAS_PARISH_PRIEST), and the other people the relation labels name by trade
        # (HAS_LECTURER, HAS_INSTRUCTOR, HAS_MECHANIC, HAS_BABYSITTER): someone in the
        # user's life, as a teacher is — not family.
        *CLERGY,
        *("lecturer", "instructor", "mechanic", "babysitter", "nanny", "childminder"),
        *("midwife", "cleaner", "guru"),
        # A former partner (HAS_EX, "my ex", an ex-wife): no longer the partner, and no
        # family either; a partner now may be an ex again, and an ex a partner again, so
        # the two never contradict — but an ex is not a sister.
        EX,
    }
)
# An animal the user keeps (HAS_PET): no person's role fits it (a pet is not a friend).
PET = "pet"
# An animal the user had (HAD_PET, HAS_LATE_PET): not the one they have now.
FORMER_PET = "former_pet"
PET_ROLES = frozenset({PET, FORMER_PET})
# Honorifics said after a name ("Watanabe Sensei", "Jihoon hyung", "Sharma ji"): titles too.
POST_TITLES = frozenset(
    {"sensei", "san", "sama", "kun", "chan", "hyung", "oppa", "noona", "unnie", "sunbae", "ji"}
    # Turkish (Mehmet Bey, Ayşe Hanım, Ayşe Abla, Ali Abi), Persian and Urdu (Reza Agha,
    # Maryam Khanum, Imran Sahib).
    | {"bey", "hanim", "abla", "abi", "efendi", "agha", "khanum", "khanom", "sahib", "saheb"}
    # Round 28: a commander, said after the name in Turkish ("Mehmet komutan").
    | {"komutan"}
    # Round 32: a teacher after the name in Turkish ("Ayşe Hoca"), Mandarin ("Wang laoshi")
    # and Korean ("Kim seonsaengnim", "Park ssaem"); Korean ranks at work with -nim ("Lee
    # sajang-nim", "Kim gwajang-nim"); Indian English "Meera ma'am", "Iyer sir" and Hindi
    # "Sandeep bhai".
    | {"hoca", "hocam", "laoshi", "seonsaengnim", "seonsaeng-nim", "ssaem", "saem"}
    | {"sajangnim", "sajang-nim", "gwajangnim", "gwajang-nim", "bujangnim", "bujang-nim"}
    | {"timjangnim", "timjang-nim", "daerinim", "daeri-nim", "isanim", "isa-nim"}
    | {"ma'am", "maam", "madam", "sir", "bhai", "bhaiya"}
)
_PEOPLE = _KIN | _PARTNER | _SOCIAL
# Ties both people have to each other: the user who is X's friend has X as a friend.
_MUTUAL = frozenset(
    {"friend", "colleague", "neighbour", "roommate", "flatmate", "housemate", "classmate"}
    | {"teammate", "cousin", "sibling", "acquaintance"}
)
# The roles a person can be named by ("my sister", "my boss"): ``descriptions``.
PEOPLE_ROLES = _PEOPLE
_GENERAL = {  # a general role and the specific ones it covers
    "sibling": {
        "sister",
        "brother",
        "twin",
        "stepsister",
        "stepbrother",
        "half_sister",
        "half_brother",
    },
    "parent": {"mother", "father", "stepmother", "stepfather"},
    "child": {"son", "daughter", "stepson", "stepdaughter"},
    "grandparent": {"grandmother", "grandfather"},
    "grandchild": {"grandson", "granddaughter"},
    "twin": {"sister", "brother"},
}
_FEMALE = frozenset(
    {
        "sister",
        "mother",
        "daughter",
        "grandmother",
        "granddaughter",
        "aunt",
        "niece",
        "stepmother",
        "stepsister",
        "stepdaughter",
        "half_sister",
        "mother_in_law",
        "sister_in_law",
        "daughter_in_law",
        "partner_f",
    }
)
_MALE = frozenset(
    {
        "brother",
        "father",
        "son",
        "grandfather",
        "grandson",
        "uncle",
        "nephew",
        "stepfather",
        "stepbrother",
        "stepson",
        "half_brother",
        "father_in_law",
        "brother_in_law",
        "son_in_law",
        "partner_m",
    }
)


# What the user owns (``user -[OWNS]-> X``): theirs, whoever's name it carries.
POSSESSION = "possession"
# What an organisation or a place is to the user (``user -[WORKS_AT]-> X``): their employer,
# school, home or home town. Said of the ends of these relations, never of a person.
_TIES = {
    **dict.fromkeys(
        ("works_at", "worked_at", "works_for", "employed_by", "has_employer"), "workplace"
    ),
    **dict.fromkeys(("studies_at", "studied_at", "attends", "attended"), "school"),
    **dict.fromkeys(("lives_in", "lived_in", "moved_to", "has_home"), "home"),
    **dict.fromkeys(("has_hometown", "is_from", "from", "born_in", "grew_up_in"), "hometown"),
    **dict.fromkeys(("owns", "has_owned", "bought"), POSSESSION),
    # The gym, club, church or choir the user belongs to.
    **dict.fromkeys(("member_of", "is_member_of", "belongs_to", "joined"), "membership"),
}
TIE_ROLES = frozenset(_TIES.values())
# What a bank, an insurer or a lender is to the user (``user -[BANKS_WITH]-> X``): the
# services "my bank", "my insurer" describe. Not ties: the user is no member of them.
_SERVICES = {
    **dict.fromkeys(("banks_with", "has_bank", "has_account_with", "has_account_at"), "bank"),
    **dict.fromkeys(("insured_with", "has_insurer", "has_insurance_with"), "insurer"),
    **dict.fromkeys(("has_mortgage_with", "has_lender", "has_loan_with"), "lender"),
}
# Someone the user likes or follows from afar (``user -[LIKES]-> Taylor Swift``): a public
# figure, unless the user also knows them personally. Not a tie (TIE_ROLES: the user's own
# employer or home) and not a person's role: "loves" is left out, as it is said of partners.
ADMIRED = "admired"
_ADMIRES = frozenset({"likes", "admires", "fan_of", "is_fan_of", "follows", "listens_to"})


def _label_word(label: str) -> str:
    """A relation label as the tables spell it ("HAS_SISTER", "has-sister" → has_sister)."""
    return label.strip().lower().replace("-", "_").replace(" ", "_")


def _role(label: str, *, towards_self: bool) -> str | None:
    """The role a relation label gives the other end, relative to the user.

    ``user -[HAS_SISTER]-> X`` and ``X -[SISTER_OF]-> user`` both make X the user's
    "sister"; "former"/"ex" roles (and HAD_X) count as the role, but a former partner
    (HAS_EX, HAS_EX_WIFE) is an ex; labels that are no role → None."""
    word = _label_word(label)
    if word in _SYNONYMS and word in {"works_with", "married_to", "dating"}:
        return _SYNONYMS[word]
    if not towards_self and word in _TIES:
        return _TIES[word]
    if not towards_self and word in _SERVICES:
        return _SERVICES[word]
    if not towards_self and word in _ADMIRES:
        return ADMIRED
    if towards_self:
        word = word.removeprefix("is_").removesuffix("_of")
    elif word.endswith("_of") and role_word(word.removesuffix("_of")) in _MUTUAL:
        # ``user -[FRIEND_OF]-> X``: a tie both ends have, so X is the user's friend.
        return role_word(word.removesuffix("_of"))
    else:
        if word in ("had_pet", "has_late_pet", "has_former_pet"):
            return FORMER_PET
        if word.startswith("had_"):  # HAD_BOSS: a former one, as "ex_" is
            word = "has_" + word.removeprefix("had_")
        if not word.startswith("has_"):
            return None
        word = word.removeprefix("has_")
    word = role_word(_unprefixed(word))
    return word if word in _KIN | _PARTNER | _SOCIAL | PET_ROLES else None


def _unprefixed(word: str) -> str:
    """A role word without "former_", "ex_" or "late_" (a former boss is a boss, a late
    husband still the husband) — but a former partner ("ex_wife", "former_partner") is an
    ex, no longer the partner (a new boyfriend of the same name is not him)."""
    for prefix in ("former_", "ex_", "late_"):
        former = word.startswith(prefix) and prefix != "late_"
        if former and role_word(word[len(prefix) :]) in _PARTNER:
            return EX
        word = word.removeprefix(prefix)
    return word


# Someone the user serves from outside (a client): not, at once, a person the user works
# with inside, studies with or is family to. Nikhil Sharma the boss and a Nikhil Sharma who
# is a client's contact may be one man; the user is asked.
_OUTSIDE = frozenset({"client"})


def capacities_differ(said: frozenset[str], known: frozenset[str]) -> bool:
    """Whether one side says the person is a client of the user's and the other knows them
    only as something else (a boss, a colleague, a classmate), both sides saying something."""
    said, known = said & _PEOPLE, known & _PEOPLE
    return bool(said and known) and bool(said & _OUTSIDE) != bool(known & _OUTSIDE)


# The roles of the people the user works with: one person moves among them (a colleague
# promoted to team lead is now the boss; a report becomes a colleague after a reorg).
_WORK = frozenset(
    {"colleague", "boss", "manager", "supervisor", "employee", "report", "teammate", "assistant"}
)


_SENIOR = frozenset({"boss", "manager", "supervisor"})


def colleagues_both(said: frozenset[str], known: frozenset[str]) -> bool:
    """Whether both sides say the person is someone the user works with, the way people
    move: a colleague said now as the boss (promoted), not the boss said now as a colleague
    (a new colleague of the boss's first name, more likely than a demotion)."""
    if not (said & _WORK and known & _WORK):
        return False
    return not (known & _SENIOR and not said & _SENIOR)


def role_word(word: str) -> str:
    """A word for a person's role as the roles are named ("husband" → "partner_m", "mum" →
    "mother", "coworker" → "colleague")."""
    return _SYNONYMS.get(word, word)


# What an event or a work is to the user, beside the tie a relation gives: an event they
# went to (ATTENDED) or one ahead (PLANS) — a plan said of an event that the user went to is
# another occasion of it (the Berlin Marathon run in 2023; the one signed up for "this
# September") — and how they know a work: read, watched or played (Dune the novel READ, Dune
# the film WATCHED), what tells two works of one name apart when the name cannot.
WENT = "went"
PLANNED = "planned"
# A condition the user has, a medicine or a class they take: their own, not the one the
# graph holds as a friend's or the sister's (``merge_properties.whose``).
OWN = "own"
USED = "used"
_USES = {
    **dict.fromkeys(
        ("has_condition", "has_allergy", "diagnosed_with", "suffers_from", "takes", "is_taking"),
        OWN,
    ),
    **dict.fromkeys(("attended", "went_to", "took_part_in", "ran", "competed_in"), WENT),
    **dict.fromkeys(
        ("plans", "plans_to_attend", "will_attend", "signed_up_for", "registered_for"), PLANNED
    ),
    **dict.fromkeys(("read", "reads", "is_reading", "reading"), "read"),
    **dict.fromkeys(("watched", "watches", "is_watching", "saw", "binged"), "watched"),
    **dict.fromkeys(("plays", "played", "is_playing"), "played"),
    # A line the user rides, a service they use or pay for: not a thing they own.
    **dict.fromkeys(("commutes_on", "rides", "uses", "subscribes_to", "pays_for"), USED),
}


def roles_from_relations(relations: Iterable[tuple[str, bool]]) -> frozenset[str]:
    """The roles someone has for the user, from ``(label, towards_self)`` pairs: the label
    of a relation between the user and them, and whether it points at the user — and what
    an event or a work is to the user (``_USES``: ``WENT``, ``PLANNED``, read …)."""
    roles = {_role(label, towards_self=towards) for label, towards in relations}
    roles |= {_USES.get(_label_word(label)) for label, towards in relations if not towards}
    return frozenset(r for r in roles if r)


# Someone stated to be younger than this is a child: not the user's colleague, boss,
# partner, parent or doctor (Ethan, aged six, the daughter's classmate, is not Ethan the
# colleague). A pseudo-role of the mention, in no vocabulary of roles the user names.
MINOR = "minor"
# Someone the user names with a title only adults are given (Mrs Okoro, Dr Shah, Aunty
# Shirin, Ustadh Bilal): not a child (round 26).
ADULT = "adult"
MINOR_BELOW_AGE = 16
_ADULT_ONLY = _PARTNER | frozenset(
    {
        ADULT,
        "mother",
        "father",
        "stepmother",
        "stepfather",
        "parent",
        "grandmother",
        "grandfather",
        "grandparent",
        "mother_in_law",
        "father_in_law",
        "colleague",
        "boss",
        "manager",
        "supervisor",
        "employee",
        "report",
        "assistant",
        "client",
        "mentor",
        "teacher",
        "tutor",
        "doctor",
        "therapist",
        "coach",
        "landlord",
        "lecturer",
        "instructor",
        "mechanic",
        "nanny",
        "childminder",
        "midwife",
        *CLERGY,
    }
)
# Someone stated to be under 18 (a teenager, "the new 17-year-old volunteer") or said to be
# old (60 or more, retired, "in her sixties"): one person cannot be both — the teenage
# volunteer is not Tom the retired teacher, the six-year-old niece not the madrasa's
# Aunty Fatima. Pseudo-roles of a mention, like ``MINOR``.
YOUNG = "young"
ELDER = "elder"
_YOUNG_BELOW_AGE = 18
_ELDER_FROM_AGE = 60
_OLD = re.compile(
    r"\b(?:retired|pensioner|elderly|"
    r"in (?:his|her|their) (?:sixties|seventies|eighties|nineties))\b"
)
_TEEN = re.compile(r"\b(?:teenager|teen)\b")
# Properties in which an extractor states what someone is to the user ("role":
# "mother-in-law", "relation": "stepbrother").
_ROLE_PROPERTIES = ("role", "relation", "relationship")


# What a person known from afar is, in the user's words ("that YouTuber Jack who reviews
# keyboards"): someone admired, as LIKES or FOLLOWS makes them — unless the same words name a
# tie ("my friend's a streamer").
_PUBLIC_FIGURE = re.compile(
    r"\b(?:youtuber|streamer|influencer|tiktoker|vlogger|podcaster|celebrity)s?\b"
)
# Someone the user meets only as a company's support ("the support guy, Raj", "Vodafone
# support agent who fixed my SIM"): a stranger in service, not a person of the user's life.
SERVICE_AGENT = "service_agent"
_SERVICE_AGENT = re.compile(
    r"\b(?:(?:tech |customer )?support (?:guy|agent|rep|person|lady|woman|man|bloke)|"
    r"customer (?:service|support)|call cent(?:re|er)|helpdesk agent|helpline)\b"
)
_WORD = re.compile(r"[a-z]+")


def _said_afar(properties: Mapping, pattern: re.Pattern) -> bool:
    for value in properties.values():
        text = value.lower() if isinstance(value, str) else ""
        if pattern.search(text) and not any(role_word(w) in _PEOPLE for w in _WORD.findall(text)):
            return True
    return False


# Someone said to be newly come into the user's life in a role ("my new coworker Kenji",
# "the new intern"): the role word after "new", or a word for a newcomer at work. Not a
# family role: a "new dad" is one who just became a father.
_NEWLY = re.compile(r"\bnew\s+([a-z]+)(?:\s+([a-z]+))?")
_NEWCOMERS = frozenset({"intern", "hire", "starter", "joiner", "recruit", "trainee"})
# The roles ``newly_met`` finds after "new" anywhere in a note; any other it returns is a
# trade said beside the name.
NEWLY_MET_ROLES = _SOCIAL | _NEWCOMERS


# "New" in other languages, before or after the word for what the person is ("Дмитрий,
# новый курьер", "la nueva vecina", "le nouveau prof").
_NEW_WORDS = (
    r"new|nuev[oa]|nouvel(?:le)?|nouveau|neue[rn]?|nuov[oa]|nov[oa]|now[ya]|нов(?:ый|ая|ого|ой)"
)


def newly_met(properties: Mapping | None, name: str = "") -> str:
    """The role in which a person is said to be new ("my new coworker" → colleague, "the new
    intern" → intern), "" when none is. With the ``name`` said, also the word a note puts
    next to it after "new", whatever the trade ("my new barista Nguyen Van An", "Дмитрий,
    новый курьер" → курьер; round 30)."""
    for value in (properties or {}).values():
        for words in _NEWLY.findall(value.lower() if isinstance(value, str) else ""):
            for word in words:
                role = role_word(word)
                if role in NEWLY_MET_ROLES:
                    return role
    return _new_beside(properties or {}, name) if name.strip() else ""


def _new_beside(properties: Mapping, name: str) -> str:
    """The word for what a person is that a note says "new" of next to their name: "my new
    barista Nguyen Van An", "Nguyen Van An, our new barista", "James Wilson is the new grad"
    (round 32) — not a family word (a "new dad" just became one)."""
    key = re.escape(name.strip().lower())
    beside = re.compile(
        rf"\b(?:{_NEW_WORDS})\s+(\w+)\s+{key}(?!\w)"
        rf"|{key},?\s+(?:(?:is|was|as)\s+)?(?:(?:my|our|the|el|la|le|der|die|il|o|a|мой|наш)\s+)?"
        rf"(?:{_NEW_WORDS})\s+(\w+)"
    )
    for value in properties.values():
        match = beside.search(value.lower()) if isinstance(value, str) else None
        if match:
            word = match.group(1) or match.group(2)
            role = role_word(word)
            if role not in _KIN | _PARTNER:
                return role or word
    return ""


def roles_from_properties(properties: Mapping | None) -> frozenset[str]:
    """The roles a person's properties state: a ``role`` (``relation``) that is one of the
    words roles are named by ("mother-in-law", "my stepdad", "ex-girlfriend"; an occupation
    such as "sales rep" is none), ``ADMIRED`` for someone said to be a YouTuber, a streamer
    or an influencer and nothing to the user, ``SERVICE_AGENT`` for a company's support
    agent, and ``MINOR`` for an ``age`` under ``MINOR_BELOW_AGE``."""
    roles: set[str] = set()
    if properties and _said_afar(properties, _PUBLIC_FIGURE):
        roles.add(ADMIRED)
    if properties and _said_afar(properties, _SERVICE_AGENT):
        roles.add(SERVICE_AGENT)
    for key in _ROLE_PROPERTIES:
        value = (properties or {}).get(key)
        if not isinstance(value, str):
            continue
        word = value.strip().lower().removeprefix("my ").replace("-", "_").replace(" ", "_")
        word = role_word(_unprefixed(word))
        if word in _PEOPLE:
            roles.add(word)
    age = stated_age((properties or {}).get("age"))
    if age is None:
        age = _noted_age(properties or {})
    if age is not None and age < MINOR_BELOW_AGE:
        roles.add(MINOR)
    note = (properties or {}).get("note")
    note = note.lower() if isinstance(note, str) else ""
    if (age is not None and age < _YOUNG_BELOW_AGE) or (age is None and _TEEN.search(note)):
        roles.add(YOUNG)
    if (age is not None and age >= _ELDER_FROM_AGE) or (age is None and _OLD.search(note)):
        roles.add(ELDER)
    return frozenset(roles)


# An age a note gives ("daughter of my friend Ben, 4 years old", "aged 7", "a 6-year-old",
# "my six-year-old niece").
_AGE_WORDS = {
    w: n
    for n, w in enumerate(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen".split(),
        start=1,
    )
}
_NUMBER = r"\d{1,2}|" + "|".join(_AGE_WORDS)
_NOTED_AGE = re.compile(
    rf"\b({_NUMBER})[- ]?(?:years?|yrs?)[- ]old\b|\baged\s+({_NUMBER})\b"
    # "my niece Shirin, she's 8" (round 26)
    rf"|\b(?:she|he)(?:['’]s| is)\s+({_NUMBER})\b"
    r"(?!\s*(?:am|pm|:|%|th|st|nd|rd|min|km|miles?|foot|feet|ft|cm|kg|stone|lbs?|o'clock))"
)


def _noted_age(properties: Mapping) -> int | None:
    note = properties.get("note")
    match = _NOTED_AGE.search(note.lower()) if isinstance(note, str) else None
    if not match:
        return None
    said = match.group(1) or match.group(2) or match.group(3)
    return int(said) if said.isdigit() else _AGE_WORDS[said]


# Someone said as another person's relative or partner ("my friend Ankit's wife Priya").
_SOMEONES_KIN = re.compile(r"\w['’]s\s+(?:new\s+|ex[- ]?)?(\w+)\s+(\w+)")


def someone_elses_kin(name: str, properties: Mapping | None) -> str:
    """The family or partner role in which a note names a person as someone else's ("Ankit's
    wife Priya" → partner_f), "" when none is."""
    first = name.lower().split()[0] if name.strip() else ""
    for value in (properties or {}).values():
        if not isinstance(value, str):
            continue
        for word, named in _SOMEONES_KIN.findall(value.lower()):
            role = role_word(word)
            if named == first and role in _KIN | _PARTNER:
                return role
    return ""


# The person a note names as another's relative, partner or friend, by name: "Mrs Patel's
# son Raj", "Jamal's brother", "Leo's best mate" (round 30).
_NAMED_KIN = re.compile(
    r"([A-Z][\w.’'-]*(?:\s+[A-Z][\w.’'-]*){0,2})['’]s?\s+([a-z]+)(?:\s+([a-z]+))?"
)


def kin_of_named(properties: Mapping | None) -> frozenset[str]:
    """The names of the people a note says the person is a relative, partner or friend of
    ("Mrs Patel's son Raj collects the rent" → {"Mrs Patel"}): none of them is the person,
    since nobody is their own son. Names as written; the caller normalises them."""
    return frozenset(
        whose
        for whose in _whose_relative(properties, _NAMED_KIN)
        if whose.lower() not in _NOT_NAMES
    )


# A word before a possessive and a word for a relative ("jiddo's father"; round 31).
_WORD_KIN = re.compile(r"\b([^\W\d_]+)['’]s\s+([a-z]+)(?:\s+([a-z]+))?")


def kin_words_of(properties: Mapping | None) -> frozenset[str]:
    """The words, lower-cased, a note puts before a possessive and a word for a relative
    ("jiddo's father", "Dad's grandfather" → {"jiddo", "dad"}): the caller reads the
    kinship words among them."""
    return frozenset(w.lower() for w in _whose_relative(properties, _WORD_KIN))


def _whose_relative(properties: Mapping | None, pattern: re.Pattern) -> list[str]:
    """The possessors ``pattern`` finds in a note before a word for a relative, partner or
    friend — that word, or the one after a word that says which ("best mate")."""
    return [
        whose
        for value in (properties or {}).values()
        if isinstance(value, str)
        for whose, *words in pattern.findall(value)
        if any(role_word(w) in _PEOPLE for w in words)
    ]


# Words written capitalised before a possessive that name no one ("My", "Our").
_NOT_NAMES = frozenset({"my", "our", "his", "her", "their", "your", "the", "i"})


# Round 31: someone said as the relative of a person the user knows by no family tie ("my
# neighbour's mum", "my boss's wife").
_NON_KIN_RELATIVE = re.compile(r"\bmy\s+([a-z]+)['’]s\s+([a-z]+)")


def relative_of_an_acquaintance(properties: Mapping | None) -> bool:
    """Whether a note says the person is a relative of someone the user knows by no family
    tie ("my neighbour's mum turned 100"): then no relative of the user's own."""
    for value in (properties or {}).values():
        if not isinstance(value, str):
            continue
        for whose, word in _NON_KIN_RELATIVE.findall(value.lower()):
            possessor, role = role_word(whose), role_word(word)
            if possessor in _SOCIAL and possessor not in _KIN and role in _KIN:
                return True
    return False


# Someone said as another person's in a role that is no family ("my sister's pastor in
# Houston", "my brother-in-law's rabbi"): the possessor a person the user names by a role.
_SOMEONES_ROLE = re.compile(r"\bmy\s+([a-z]+(?:[- ][a-z]+){0,2})['’]s\s+([a-z]+)")


def someone_elses_role(properties: Mapping | None) -> str:
    """The role, not a family one nor a tie both ends have (a friend, a colleague), in which
    a note names a person as someone else's ("my sister's pastor" → pastor), "" when none
    is."""
    for value in (properties or {}).values():
        if not isinstance(value, str):
            continue
        for whose, word in _SOMEONES_ROLE.findall(value.lower()):
            role = role_word(word)
            # Not a tie both ends have: the sister's friend may be the user's friend too.
            possessor = role_word(whose.replace("-", "_").replace(" ", "_"))
            if possessor in _PEOPLE and role in _SOCIAL and role not in _MUTUAL:
                return role
    return ""


# A note that says someone is no relative ("not related, everyone calls her Aunty").
_UNRELATED = re.compile(r"\b(?:not related|no relation|not (?:a )?(?:blood )?relative)\b")


def said_unrelated(properties: Mapping | None) -> bool:
    """Whether a note says the person is no relative of the user's, whatever they are
    called ("Aunty Ngozi … not related"), or opens by saying they are a neighbour."""
    note = (properties or {}).get("note")
    if isinstance(note, str) and _NEIGHBOUR_OPENING.match(note.lower()):
        return True
    return any(
        isinstance(v, str) and _UNRELATED.search(v.lower()) for v in (properties or {}).values()
    )


# Round 31: a note that opens by saying the person is a neighbour ("the old lady next door
# that Eomma brings food to", "our neighbour"): someone the user calls by a kinship word
# out of respect ("Halmeoni"), not a relative.
_NEIGHBOUR_OPENING = re.compile(
    r"^\s*(?:(?:the|our|my)\s+(?:\w+\s+){0,2}(?:lady|man|woman|gentleman|couple)\s+next door"
    r"|(?:the|our|my)\s+(?:\w+\s+)?neighbou?r\b)"
)


def stated_age(value: object) -> int | None:
    """An ``age`` property as a whole number of years ("45", 45), else None ("kitten",
    True)."""
    text = str(value).strip()
    return int(text) if text.isdigit() else None


def gender_of(
    roles: Iterable[str], *, titles: Iterable[str] = (), properties: Mapping | None = None
) -> str:
    """ "f", "m" or "" (unknown or conflicting) from what the graph says: gendered roles
    (sister, husband), gendered titles said with the name (Mrs., Mr.), and a ``gender``,
    ``sex`` or ``pronouns`` property. No guess is made from the first name itself."""
    seen: set[str] = set()
    for role in roles:
        if role in _FEMALE:
            seen.add("f")
        elif role in _MALE:
            seen.add("m")
    for title in titles:
        if said := TITLES.get(title) or GIVEN_NAME_TITLES.get(title):
            seen.add(said)
    for key, value in (properties or {}).items():
        if str(key).lower() not in {"gender", "sex", "pronouns"} or not isinstance(value, str):
            continue
        text = value.strip().lower()
        if text in {"f", "female", "woman", "girl"} or text.startswith(("she", "her")):
            seen.add("f")
        elif text in {"m", "male", "man", "boy"} or text.startswith(("he", "him")):
            seen.add("m")
    return seen.pop() if len(seen) == 1 else ""


# A step- or half-relation is said plainly as often as not: a stepbrother is "my brother",
# a stepdad "Dad" (an in-law never is: a mother-in-law is not "my mother").
_SAID_PLAINLY = {
    "stepmother": "mother",
    "stepfather": "father",
    "stepsister": "sister",
    "stepbrother": "brother",
    "stepson": "son",
    "stepdaughter": "daughter",
    "half_sister": "sister",
    "half_brother": "brother",
}


def _compatible(a: str, b: str) -> bool:
    if a == b or (a in _PARTNER and b in _PARTNER):
        return True
    if _SAID_PLAINLY.get(a) == b or _SAID_PLAINLY.get(b) == a:
        return True
    return b in _GENERAL.get(a, ()) or a in _GENERAL.get(b, ())


def contradicts(
    roles_a: frozenset[str], roles_b: frozenset[str], gender_a: str = "", gender_b: str = ""
) -> bool:
    """Whether what the user said about two mentions says they are different people.

    * known genders that differ;
    * family or partner roles on both sides with no pair that fits (sister vs brother,
      mother vs daughter; sibling fits sister);
    * a family role on one side (not a partner: partners are often met at work) and only
      social roles on the other (a sister vs a colleague);
    * a pet on one side and a person's role on the other (the cat Luna, the friend Luna);
    * a child (``MINOR``, a stated age under 16) on one side and a role only an adult has
      on the other (a colleague, a parent, a partner, a priest);
    * someone under 18 (``YOUNG``) on one side and someone 60 or older or retired
      (``ELDER``) on the other;
    * a public figure the user only admires on one side (LIKES, FAN_OF) and a person the
      user knows on the other (Taylor Swift, and Taylor the colleague).
    Social roles never contradict each other (a colleague can be a friend)."""
    if gender_a and gender_b and gender_a != gender_b:
        return True
    if (MINOR in roles_a and roles_b & _ADULT_ONLY) or (MINOR in roles_b and roles_a & _ADULT_ONLY):
        return True
    if (YOUNG in roles_a and ELDER in roles_b) or (ELDER in roles_a and YOUNG in roles_b):
        return True
    if public_and_personal(roles_a, roles_b):
        return True
    pet_a, pet_b = bool(roles_a & PET_ROLES), bool(roles_b & PET_ROLES)
    if pet_a != pet_b and ((roles_b if pet_a else roles_a) & _PEOPLE):
        return True
    if pet_a and pet_b and (roles_a & PET_ROLES).isdisjoint(roles_b & PET_ROLES):
        return True  # the puppy the user has now is not the dog that died
    close_a, close_b = roles_a & (_KIN | _PARTNER), roles_b & (_KIN | _PARTNER)
    if close_a and close_b:
        return not any(_compatible(a, b) for a in close_a for b in close_b)
    if (roles_a & _KIN) and not close_b and (roles_b & _SOCIAL):
        return True
    return bool((roles_b & _KIN) and not close_a and (roles_a & _SOCIAL))


# Someone the user knows only from afar: a public figure, a company's support agent.
_AFAR = frozenset({ADMIRED, SERVICE_AGENT})


def public_and_personal(roles_a: frozenset[str], roles_b: frozenset[str]) -> bool:
    """Whether one side is someone the user only admires from afar, or meets only as a
    company's support, and the other someone the user knows (a friend, a relative, a
    colleague): Michael Jordan the athlete the user likes, Michael Jordan the college
    roommate; Raj "the support guy", Raj the brother."""
    public_a = bool(roles_a & _AFAR) and not roles_a & _PEOPLE
    public_b = bool(roles_b & _AFAR) and not roles_b & _PEOPLE
    return (public_a and bool(roles_b & _PEOPLE)) or (public_b and bool(roles_a & _PEOPLE))


def shares_role(roles_a: frozenset[str], roles_b: frozenset[str]) -> bool:
    """Whether two mentions are the same thing to the user: one role in common, a general
    family role and a specific one it covers (sibling and sister), or two partner roles."""
    return any(_compatible(a, b) for a in roles_a for b in roles_b)


# Family roles no two people of one first name share: parents do not give two of their
# children one name, and a user has one mother and one father.
_ONE_OF_A_NAME = frozenset({"sister", "brother", "mother", "father", "son", "daughter"})


def same_close_family(roles_a: frozenset[str], roles_b: frozenset[str]) -> bool:
    """Whether both mentions are the user's sister (brother, mother, father, son, daughter)."""
    return bool(roles_a & roles_b & _ONE_OF_A_NAME)


# What anyone the user knows may be called: a colleague or a neighbour is often "a friend".
_ANYONE = frozenset({"friend", "acquaintance"})


def family_roles(roles: frozenset[str]) -> frozenset[str]:
    """The family and partner roles among ``roles`` (sister, son, wife …)."""
    return roles & (_KIN | _PARTNER)


def specific_roles(roles: frozenset[str]) -> frozenset[str]:
    """The roles that single someone out: all but "friend" and "acquaintance"."""
    return roles - _ANYONE
