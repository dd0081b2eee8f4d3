"""Names said with or without the word for what they are, and events named in either word
order (issue 21, round 7). Pure functions.

* **The kind word.** "Blue Door" is the Blue Door Café, "Oakwood Primary" Oakwood Primary
  School, "IELTS" the IELTS exam, "jazz" jazz music: the last word of the longer name is the
  word for the kind of thing it is — the head of the phrase, which restates the kind, where
  a word put *before* a concept narrows it ("painted bowl" is not "bowl"). Only the kind
  words of ``KIND_WORDS``, each for the kinds it names.
* **Word order.** "trip to Japan" is the Japan trip, "interview at Stripe" the Stripe
  interview: an event named with the same words in another order, the little words left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache

from memory.core.name_spelling import fold_accents
from memory.core.words import STOP_WORDS

KIND_WORD = "kind-word"
WORD_ORDER = "word-order"
POSSESSOR = "possessor"
EVENT_HEAD = "event-head"
WEEKDAY = "weekday"

_ORG_WORDS = frozenset(
    {
        *("school", "academy", "hospital", "clinic", "cafe", "restaurant", "bistro", "bakery"),
        *("pub", "gym", "church", "chapel", "mosque", "temple", "synagogue", "library"),
        *("museum", "hotel", "salon", "studio", "pharmacy"),
        # Round 9: where children are minded, the old cared for, patients seen.
        *("nursery", "preschool", "kindergarten", "care home", "nursing home", "surgery"),
        *("medical centre", "medical center", "health centre", "health center"),
        # Round 13: where people eat and drink ("Costa" / Costa Coffee, "Mama's" / Mama's
        # Kitchen, "Borough" / Borough Market).
        *("kitchen", "market", "coffee", "burger", "burgers", "pizza", "pizzeria", "grill"),
        *("diner", "deli", "brasserie", "trattoria", "taverna", "canteen", "tavern"),
        *("garden centre", "garden center"),
        # Round 19: where children learn and animals are kept or groomed ("Hills Road" /
        # Hills Road Sixth Form College, "Oakfield" / Oakfield Livery Yard, "Pawfect" /
        # Pawfect Grooming, "Dolphins" / Dolphins Swim Club).
        *("college", "yard", "stables", "kennels", "cattery", "grooming", "club"),
        # Round 30: a group, a firm of a profession, a courier's service ("The LEGO Group" /
        # LEGO, "Halden" / Halden Architects, DHL Express / DHL).
        *("group", "architects", "solicitors", "express"),
        # Round 31: where the old are cared for by day ("Oakfield" / Oakfield Day Centre).
        *("day centre", "day center", "retirement village"),
    }
)
# Words that say which of its kind an organisation is, between its name and its kind word
# ("Little Acorns Day Nursery", "Westfield Primary School", "Dolphins Swim Club").
_KIND_QUALIFIERS = frozenset(
    {
        *("day", "primary", "secondary", "high", "junior", "infant", "infants", "community"),
        *("grammar", "prep", "preparatory", "sixth", "form", "livery", "boarding", "riding"),
        *("swim", "swimming", "football", "rugby", "cricket", "tennis", "sailing", "rowing"),
        *("youth", "dog", "pet", "animal", "language"),
    }
)
# The word for what a place to eat, drink or stay is, said before its name in many languages
# ("Da Mario" / Trattoria Da Mario, "Nikos" / Taverna Nikos, "Le Dôme" / Café Le Dôme), and
# a studio's ("Ghibli" / Studio Ghibli).
_ORG_WORDS_BEFORE = frozenset(
    {
        *("trattoria", "ristorante", "pizzeria", "osteria", "taverna", "cafe", "caffe", "bar"),
        *("brasserie", "boulangerie", "patisserie", "restaurant", "bistro", "cantina", "hotel"),
        "studio",
        # Round 31: a care service's or a care home's word before its name ("Sonnenschein" /
        # Pflegedienst Sonnenschein, "São Vicente" / Lar dos Idosos São Vicente).
        *("pflegedienst", "pflegeheim", "seniorenheim", "lar dos idosos", "casa de repouso"),
    }
)
# A saint's name is given to a parish's church, school and hospital alike: "St. Mary's"
# alone is any of them.
_DEDICATIONS = frozenset({"st", "saint", "san", "santa", "sankt", "ste", "sainte"})
# The word (or words) for what a thing of the kind is, said after its name or left out.
# Not for places the words of a settlement or of what serves one ("city", "airport",
# "beach", "station"): Mexico City is not Mexico, Frankfurt Airport not Frankfurt, Miami
# Beach not Miami. A national park or a group of islands is what its name alone means.
KIND_WORDS: dict[str, frozenset[str]] = {
    "ORG": _ORG_WORDS,
    "EVENT": frozenset(
        {"exam", "test", "festival", "conference", "summit", "marathon", "hackathon"}
        | {"contest", "song contest"}
    ),
    "TOPIC": frozenset({"music"}),
    "PREFERENCE": frozenset({"music", "food", "cuisine"}),
    # Round 28: a farm or a ranch said without the word ("Balnacraig" / Balnacraig Farm).
    "PLACE": frozenset(
        {"national park", "islands", "farm", "ranch", "hotel", "retirement village"}
    ),
    # An app is what its name alone means ("Strava app" / Strava).
    "THING": frozenset({"app"}),
}
_WORD = re.compile(r"[^\W_]+")


def _words(norm: str) -> list[str]:
    return _WORD.findall(fold_accents(norm).lower())


def _unled(words: list[str]) -> list[str]:
    return words[1:] if len(words) > 1 and words[0] == "the" else words


def with_kind_word(a: str, b: str, kind: str) -> bool:
    """Whether one normalised name is the other with the word (or words) for its kind after
    it ("blue door" / "blue door café" for an ORG, "willow court" / "willow court care
    home"), or, for a place to eat or stay, before it ("da mario" / "trattoria da mario")."""
    kind_words = KIND_WORDS.get(kind)
    if not kind_words:
        return False
    # "The LEGO Group" is LEGO's group: a leading "the" is no word of the name.
    short, long = sorted((_unled(_words(a)), _unled(_words(b))), key=len)
    if not short or short[0] in _DEDICATIONS:
        return False
    head = " ".join(long[len(short) :])
    if not any(w not in STOP_WORDS and w not in kind_words for w in short):
        return False
    if long[: len(short)] == short and (head in kind_words or _qualified_kind(head, kind_words)):
        return True
    # ... or, for a place to eat or stay, the word before it ("Da Mario" / Trattoria Da Mario).
    before = " ".join(long[: len(long) - len(short)])
    ending = long[len(long) - len(short) :] == short
    return ending and (
        (kind == "ORG" and before in _ORG_WORDS_BEFORE)
        or (kind == "PLACE" and before in _PLACE_WORDS_BEFORE)
    )


# Round 28: a camp or an estate said without the word before its name ("Bastion" / Camp
# Bastion, "La Esperanza" / Estancia La Esperanza).
_PLACE_WORDS_BEFORE = frozenset(
    {"camp", "estancia", "hacienda", "finca", "fazenda", "rancho", "quinta"}
)


def _qualified_kind(head: str, kind_words: frozenset[str]) -> bool:
    """A kind word with the words that say which of its kind ("day nursery", "primary
    school", "swim club")."""
    words = head.split()
    return (
        len(words) > 1
        and words[-1] in kind_words
        and all(w in _KIND_QUALIFIERS for w in words[:-1])
    )


# Words that say which work of a title is meant ("Harry Potter film series", "Dune novel").
_WORK_WORDS = frozenset(
    {
        *("film", "films", "movie", "movies", "series", "tv", "show", "book", "books"),
        *("novel", "novels", "game", "games", "album", "musical", "play", "trilogy", "saga"),
        *("adaptation", "remake", "version", "original", "soundtrack"),
    }
)


def qualified(said: str, form: str) -> str | None:
    """What a stored name adds to the name said to tell one referent of it from another —
    a label in brackets (the Write's "Luna (dog)", "Marco Bianchi (2)", "Dune (2021
    film)") or the words for a kind of work ("Harry Potter film series") — else None."""
    if not form.startswith(said + " "):
        return None
    rest = form[len(said) :].strip()
    if rest.startswith("("):
        # (A normalised name may have lost its closing bracket.)
        return rest.strip("() ") or None
    words = _words(rest)
    return rest if words and all(w in _WORK_WORDS for w in words) else None


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# The day a weekly class, club or quiz is held, said before its name or left out.
_DAYS = frozenset({*_WEEKDAYS, *(f"{day}s" for day in _WEEKDAYS), "weekly", "weekend"})


def with_day(a: str, b: str) -> bool:
    """Whether one normalised name is the other with the day it is held before it ("spin
    class" / "Tuesday spin class", "pub quiz" / "Thursday pub quiz")."""
    short, long = sorted((_words(a), _words(b)), key=len)
    return bool(short) and len(long) == len(short) + 1 and long[0] in _DAYS and long[1:] == short


def headed_as(short: str, long: str) -> bool:
    """Whether a normalised name's words end another's, which says more before them
    ("book club" / "office sci-fi book club")."""
    a, b = _words(short), _words(long)
    return bool(a) and len(b) > len(a) and b[-len(a) :] == a


def extends(short: str, long: str) -> bool:
    """Whether a normalised name's words begin another's, which says more after them
    ("tony's" / "tony's chippy")."""
    a, b = _words(short), _words(long)
    return bool(a) and len(b) > len(a) and b[: len(a)] == a


def first_words_of(short: str, long: str) -> bool:
    """Whether an organisation's normalised name is the first words of another's, the rest
    saying its trade or its branch ("northgate" / "northgate logistics", "arnold clark" /
    "arnold clark glasgow"): a word of its own among them, and not a saint's name, which
    names a parish's church, school and hospital alike."""
    return extends(short, long) and _own_words(short)


def words_within(short: str, long: str) -> bool:
    """Whether the words of an organisation's normalised name are all among another's, which
    has more ("cook county probate court" / "probate division of the circuit court of cook
    county", "ferrer y soler" / "ferrer & soler abogados", "red cross" / "british red
    cross"): the little words and "and" in any language ignored, a word of its own among
    them, no saint's name first — and not the organisation a part of it belongs to, named
    after a comma ("tu delft" / "international student office, tu delft")."""
    said, held = _content(short), _content(long)
    if not said or not said < held or not _own_words(short):
        return False
    tail = long.rsplit(",", 1)[1] if "," in long else ""
    return not (tail and said <= _content(tail))


def _own_words(short: str) -> bool:
    a = _words(short)
    return (
        bool(a)
        and a[0] not in _DEDICATIONS
        and any(w not in STOP_WORDS and w not in _ORG_WORDS for w in a)
    )


# Little words an organisation's name is written with or without, in several languages.
_CONNECTORS = frozenset(
    {"and", "y", "e", "et", "und", "en", "of", "the", "at", "di", "de", "do", "da", "del"}
    | {"della", "delle", "des", "du", "der", "die", "das", "la", "le", "les", "il", "s"}
)


def _content(norm: str) -> frozenset[str]:
    return frozenset(w for w in _words(norm) if w not in _CONNECTORS and w not in STOP_WORDS)


def words_added_echoed(long: str, short: str, said_of_short: str) -> bool:
    """Whether an organisation's normalised name is another's with words added after it that
    what is held of the other already says ("aviva insurance" / Aviva, "home and car
    insurer"; "samaritans leeds" / Samaritans, "Leeds branch"): a word of the added ones, or
    its first five letters, among the words said of it."""
    if not extends(short, long):
        return False
    held = _words(said_of_short)
    added = [w for w in _words(long)[len(_words(short)) :] if w not in STOP_WORDS]
    return any(
        w == h
        or (len(w) >= _ECHO_STEM and len(h) >= _ECHO_STEM and w[:_ECHO_STEM] == h[:_ECHO_STEM])
        for w in added
        for h in held
    )


# Letters two forms of a word share ("insurance" / "insurer", "finance" / "financing").
_ECHO_STEM = 5


_A_YEAR = re.compile(r"^(?:19|20)\d\d$")
_LEADING = frozenset({"the", "my", "our"})


def edition_words(norm: str) -> tuple[tuple[str, ...], bool]:
    """An event's normalised name as words without a leading "the"/"my" and without its
    year, and whether it had one ("2024 sponsored walk" → (("sponsored", "walk"), True))."""
    words = _words(norm)
    while words and words[0] in _LEADING:
        words.pop(0)
    kept = tuple(w for w in words if not _A_YEAR.match(w))
    return kept, len(kept) < len(words)


_PARENTHESIS = re.compile(r"\s*\([^)]*\)\s*$")


def shares_the_name(said: str, stored: str) -> bool:
    """Whether a stored thing's normalised name is the name said with a year or a note in
    brackets ("mulan (1998)"), or with more words before or after it ("final fantasy vii",
    "lego 10497 galaxy explorer")."""
    bare = _PARENTHESIS.sub("", stored)
    return (bare != stored and bare == said) or extends(said, stored) or headed_as(said, stored)


def with_stated_type(said: str, stored: str, properties: Mapping[str, object]) -> bool:
    """Whether a normalised name is a stored one with the type the graph states of it said
    after it ("garbage day newsletter" / "garbage day", type newsletter; "the rest is history
    podcast" / "the rest is history", type podcast): the type's last word, or the whole type."""
    kind = properties.get("type")
    if not isinstance(kind, str) or not stored or not said.startswith(stored + " "):
        return False
    added = _words(said[len(stored) :])
    words = _words(kind)
    return bool(added) and bool(words) and (added == words or added == words[-1:])


_POSSESSED = re.compile(r"^(.+?)['’]s? (.+)$")
_AND = frozenset({"and", "&"})


# Round 30: an occasion said as someone's in another language — the occasion first and the
# person after "de", "di", "ya" or "von" ("le mariage de Claire", "il matrimonio di Giulia",
# "harusi ya Amani"), or the person first and Hindi's "ki"/"ka" ("Priya ki shaadi").
_OCCASION_OF = re.compile(
    r"^(?:(?:le|la|el|il|lo|o|a|the|die|der|das)\s+)?(.+?)\s+(?:de|di|del|da|do|ya|von)\s+(.+)$"
)
_KI = re.compile(r"^(.+?)\s+(?:ki|ka|ke)\s+(.+)$")


@lru_cache(maxsize=16384)
def _possessor_and_event(norm: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """("sarah and ben's wedding") → ({sarah, ben}, (wedding,)); the same of an occasion of
    ``_OCCASIONS`` said in another language's words for whose ("le mariage de claire" →
    ({claire}, (mariage,))); None without a possessive."""
    norm = norm.replace("&", " and ")
    match = _POSSESSED.match(norm)
    if match:
        owner, said = match.group(1), match.group(2)
    elif (match := _OCCASION_OF.match(norm) or _KI.match(norm)) is not None:
        owner, said = (
            (match.group(2), match.group(1)) if match.re is _OCCASION_OF else match.groups()
        )
        if _occasion_of(tuple(_words(said))) is None:
            return None
    else:
        return None
    owners = frozenset(w for w in _words(owner) if w not in _AND)
    event = tuple(_words(said))
    return (owners, event) if owners and event else None


def one_occasion(a: str, b: str) -> bool:
    """Whether two event names are the same occasion of people named more or less fully
    ("sarah's wedding" / "sarah and ben's wedding", "grandpa's funeral" / "grandpa joe's
    funeral"): the same words after the possessive, or two words of one occasion
    (``_OCCASIONS``), one side's people among the other's."""
    pa, pb = _possessor_and_event(a), _possessor_and_event(b)
    if pa is None or pb is None or pa[0] == pb[0]:
        return False
    if pa[1] != pb[1]:
        # ... or two words of one occasion that is no birthday ("priya and arjun's shaadi" /
        # "priya's wedding", "zara's valima" / "zara and imran's walima"; round 30) — not a
        # wedding and one ceremony of it: "zara's wedding" may be the nikah or the walima.
        oa, ob = _occasion_of(pa[1]), _occasion_of(pb[1])
        if oa is None or ob is None or oa[0] != ob[0] or oa[0] == 0:
            return False
        if {" ".join(pa[1]), " ".join(pb[1])} & _CEREMONIES:
            return False
    return pa[0] < pb[0] or pb[0] < pa[0]


# One ceremony of a wedding, said of its own.
_CEREMONIES = frozenset({"nikah"})


# Words for one kind of occasion: someone's "birthday party" is their "30th" or, for a
# Filipina's eighteenth, her "debut"; a "leaving do" is a "farewell party" or a "send-off".
# A bare "party" is any party and is in none.
_OCCASIONS: tuple[frozenset[str], ...] = (
    frozenset(
        {"birthday", "birthday party", "bday", "birthday do", "birthday dinner", "debut"}
        | {"quinceanera", "sweet sixteen", "bar mitzvah", "bat mitzvah"}
        | {"cumpleanos", "compleanno", "geburtstag", "verjaardag", "urodziny"}
        | {"dogum gunu", "saengil", "janamdin", "first birthday", "doljanchi", "dol"}
    ),
    frozenset(
        {"leaving do", "leaving party", "leaving drinks", "farewell", "farewell party"}
        | {"farewell dinner", "send-off", "send off", "sendoff"}
    ),
    frozenset(
        {"wedding", "shaadi", "nikah", "wedding reception", "wedding party"}
        # Round 30: the word in other languages.
        | {"mariage", "boda", "casamento", "matrimonio", "hochzeit", "bruiloft", "wesele"}
        | {"harusi", "kasal", "vivah", "biye", "svadba", "dugun", "gamos", "bryllup"}
        | {"brollop", "haat"}
    ),
    frozenset(
        {"funeral", "funeral service", "funerailles", "enterrement", "obseques", "funerale"}
        | {"entierro", "funeral", "velorio", "beerdigung", "begrabnis", "begrafenis"}
        | {"pogrzeb", "pokhorony", "cenaze", "mazishi"}
    ),
    # A memorial is not the funeral: it may come months after.
    frozenset(
        {"memorial", "memorial service", "celebration of life", "remembrance service"}
        | {"memorial mass"}
    ),
    frozenset({"walima", "valima"}),
    frozenset({"housewarming", "housewarming party", "house warming"}),
    frozenset({"hen do", "hen party", "hen night", "bachelorette", "bachelorette party"}),
    frozenset({"stag do", "stag party", "stag night", "bachelor party"}),
    frozenset({"engagement party", "engagement do"}),
    frozenset({"baby shower", "gender reveal"}),
)
# Birthdays of one age, named for it: a Filipina's debut at 18, a quinceañera at 15.
_AGED = {"debut": 18, "quinceanera": 15, "sweet sixteen": 16, "bar mitzvah": 13}
# Round 30: a first birthday by its name (a Korean doljanchi), and a birthday in other
# languages' words.
_AGED |= {"first birthday": 1, "1st birthday": 1, "doljanchi": 1, "dol": 1, "dol party": 1}
# "30th", "18th birthday", "21st party": a birthday of that age.
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)(?: (?:birthday|bday))?(?: (?:party|do|dinner))?$")


def _occasion_of(event: tuple[str, ...]) -> tuple[int, int | None] | None:
    """(the class of occasion, the age for a birthday said by its ordinal) — None when the
    words are no occasion of ``_OCCASIONS``."""
    said = " ".join(event)
    age = _ORDINAL.match(said)
    if age:
        return 0, int(age.group(1))
    if said in _AGED:
        return 0, _AGED[said]
    for i, words in enumerate(_OCCASIONS):
        if said in words:
            return i, None
    return None


# What says when an event is: a birthday said without its age is one of many.
_WHEN_KEYS = ("occurred", "date", "year", "when", "month")


def one_occasion_said_otherwise(a: str, b: str, said: Mapping[str, object]) -> bool:
    """Whether two event names are one person's occasion in two words for it ("ollie's
    birthday party" / "ollie's 30th", "sven's farewell party" / "sven's leaving do"): the
    same people before the possessive, the words after it of one class of occasion. A
    birthday comes every year: two ages said must be one, and a birthday said without its
    age needs a time said (``said``: a year, a date — the guards on when events happened
    then compare them) or the age in its notes ("his 30th") — else "Mom's birthday party"
    may be this year's, not the 60th stored."""
    pa, pb = _possessor_and_event(a), _possessor_and_event(b)
    if pa is None or pb is None or pa[0] != pb[0] or pa[1] == pb[1]:
        return False
    oa, ob = _occasion_of(pa[1]), _occasion_of(pb[1])
    if oa is None or ob is None or oa[0] != ob[0]:
        return False
    if oa[0] != 0 or (oa[1] is not None and ob[1] is not None):
        return oa[1] == ob[1]
    age = oa[1] if oa[1] is not None else ob[1]
    if age is None or any(said.get(key) for key in _WHEN_KEYS):
        return True
    text = " ".join(v for v in said.values() if isinstance(v, str)).lower()
    return re.search(rf"\b{age}(?:st|nd|rd|th)\b", text) is not None


_WEEKDAY_WORDS = "|".join(_WEEKDAYS)
# What says an event comes round again: "every Saturday", "weekly", "Tuesdays", "annual".
_RECURRING = re.compile(
    rf"\b(?:every|each|weekly|fortnightly|monthly|annual|annually|yearly|(?:{_WEEKDAY_WORDS})s)\b"
)
_WEEKDAY = re.compile(rf"^(?:{_WEEKDAY_WORDS}) ")


def event_head(said: str, stored: str, properties: Mapping[str, object]) -> bool:
    """Whether an event said by a noun alone ("parkrun", "five-a-side") is a stored event
    that comes round again (said so in its properties, or named by its weekday), named by
    that noun with words before it ("bushy parkrun": every Saturday; "tuesday five-a-side")
    — the user's own, as "my car" is the car they own. Not someone's ("mia's birthday"), and
    not one occurrence: "bowl" is no "painted bowl", "class" no "pottery class"."""
    if not said or " " in said or _POSSESSED.match(stored) or not stored.endswith(" " + said):
        return False
    if _WEEKDAY.match(stored):
        return True
    return any(
        isinstance(v, str) and _RECURRING.search(fold_accents(v).lower())
        for v in properties.values()
    )


# Round 30: a yearly festival's other names — its name in another language or tradition, a
# spelling, a short form ("Deepavali" / Diwali, "Xmas", "Weihnachten", "NYE", "Guy Fawkes
# Night"); names as ``festival_form`` reads them, without a possessive's "s" ("new year
# eve"). Tết, Seollal and the Chinese New Year are kept apart: one day, three festivals.
_FESTIVALS: dict[str, tuple[str, ...]] = {
    "diwali": ("deepavali", "deepawali", "divali"),
    "nowruz": ("norooz", "noruz", "nowrouz", "novruz", "nevruz", "nauryz"),
    "christmas": ("xmas", "weihnachten", "noel", "navidad", "natal", "natale", "kerstmis"),
    "christmas eve": ("wigilia", "heiligabend", "nochebuena"),
    "new year eve": ("nye", "silvester", "hogmanay", "new years eve"),
    "bonfire night": ("guy fawkes night", "fireworks night"),
    "mother day": ("mothering sunday", "mothers day", "muttertag", "fete des meres"),
    "day of the dead": ("dia de muertos", "dia de los muertos"),
    "eid al fitr": ("eid ul fitr", "id al fitr", "ramazan bayrami", "seker bayrami"),
    "eid al adha": ("eid ul adha", "bakrid", "bakri eid", "kurban bayrami", "tabaski"),
    "hanukkah": ("chanukah", "hanukah", "chanukkah"),
    "passover": ("pesach", "pesah"),
    "easter": ("ostern", "paques", "pascua", "pasqua", "pascoa", "wielkanoc"),
    "oktoberfest": ("wiesn",),
    "king day": ("koningsdag", "kings day"),
    "chinese new year": ("lunar new year", "spring festival", "chunjie", "春节"),
    "midsummer": ("midsommar", "juhannus"),
}
_FESTIVAL_OF = {f"{syn} ": f"{name} " for name, syns in _FESTIVALS.items() for syn in syns}
# "bei Oma", "chez Mamie", "a casa de la abuela": at someone's.
_AT_WORDS = {"bei": "at", "chez": "at"}


@lru_cache(maxsize=16384)
def festival_form(norm: str) -> str:
    """An event's name with a festival's other names written as one (``_FESTIVALS``) and
    "bei"/"chez" as "at": "weihnachten bei oma" → "christmas at oma"; "" when the name
    holds no festival's other name, so that only a renamed festival compares."""
    words = [_AT_WORDS.get(w, w) for w in _words(norm) if w != "s"]
    text, renamed = " ".join(words) + " ", False
    for said, name in sorted(_FESTIVAL_OF.items(), key=lambda kv: -len(kv[0])):
        if f" {said}" in f" {text}":
            text, renamed = f" {text}".replace(f" {said}", f" {name}").strip() + " ", True
            break
    return text.strip() if renamed else ""


def one_festival(a: str, b: str) -> bool:
    """Whether two event names are one festival's by its other names ("deepavali" /
    "diwali", "xmas at gran's" / "christmas at gran's"), the other words the same."""
    fa, fb = festival_form(a), festival_form(b)
    plain_a = " ".join(w for w in _words(a) if w != "s")
    plain_b = " ".join(w for w in _words(b) if w != "s")
    return bool(fa or fb) and (fa or plain_a) == (fb or plain_b)


def in_another_order(a: str, b: str) -> bool:
    """Whether two event names are the same words in another order, the little words left
    out ("trip to japan" / "japan trip"); two words or more, and not the same order."""
    wa = [w for w in _words(a) if w not in STOP_WORDS]
    wb = [w for w in _words(b) if w not in STOP_WORDS]
    return len(wa) >= 2 and wa != wb and Counter(wa) == Counter(wb)
