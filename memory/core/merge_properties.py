"""What the user said about a thing, as evidence for or against a merge (SPEC §5.6): two
referents of one name told apart by their properties — Luna the cat and the neighbour's dog
Luna, Cambridge in the UK and in Massachusetts, the Ministry of Health of two countries —
and people matched on part of a name whose roles have nothing in common ("Dr. Siddiqui" the
dog's vet, Farah Siddiqui the GP). Pure functions, no Django.

A property contradicts only when both sides state it and the values cannot be one thing:
unknown words, abbreviations against full names and one value inside the other ("US state" /
"state") are not contradictions, as in ``merge_places.other_region``. The worst a wrong
contradiction does is a duplicate to merge later; a missed one destroys two identities.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from memory.core.first_names import is_given_name
from memory.core.merge_places import is_acronym_of
from memory.core.name_spelling import fold_accents
from memory.core.person_roles import PEOPLE_ROLES, role_word, stated_age
from memory.core.place_names import country_iso, country_said, place_countries, state_country
from memory.core.words import STOP_WORDS, content_words, word_zipf

__all__ = [
    "PROPERTIES_DIFFER",
    "ROLE_DIFFERS",
    "affiliation_differs",
    "another_of_the_name",
    "booked",
    "context_shared",
    "dated",
    "day_moved",
    "died",
    "distinguishing_label",
    "finished",
    "folded_said",
    "for_someone_else",
    "handle_stem",
    "identified_by",
    "make_class",
    "met_elsewhere",
    "named_in_note",
    "newcomer_after_death",
    "noted_countries",
    "noted_species",
    "occasions_differ",
    "place_noted_in",
    "placed_apart",
    "properties_differ",
    "replaces_another",
    "role_said",
    "roles_differ",
    "said_elsewhere",
    "said_same_affiliation",
    "said_same_place",
    "said_text",
    "someone_elses_animal",
    "someone_elses_named",
    "species_class",
    "states_region",
    "type_class",
    "types_differ",
    "what_it_is",
    "whose",
    "with_name_year",
    "with_named_type",
    "with_noted_species",
    "work_type",
]

PROPERTIES_DIFFER = "properties-differ"
ROLE_DIFFERS = "role-differs"

# Property keys whose values name which referent it is, by kind: where a place, an
# organisation or an event is, what kind of place or organisation, what animal a pet is, the
# year of an event or of a thing (a film and its remake, two cars). A person's city is not
# among them — people move — and their age only when two ages are too far apart for one
# person (``_ages_apart``).
_LOCATION_KEYS = ("city", "state", "province", "county", "region", "country", "department")
# The organisation something belongs to or happens at: a department of Spotify is not L'Oréal's,
# a job interview at Deloitte is not the one at KPMG.
_COMPANY_KEYS = ("company", "employer")
# What a single thing is numbered by: a car's registration, a passport's number, a serial.
_NUMBER_KEYS = (
    *("registration", "plate", "number_plate", "licence_plate", "license_plate"),
    *("vin", "serial", "serial_number", "number"),
)
# One sport's other names, for telling two clubs apart by their sports.
_SPORT_NAMES = dict.fromkeys(("soccer", "futbol", "futebol", "calcio", "fussball"), "football")
IDENTIFYING_KEYS: Mapping[str, tuple[str, ...]] = {
    "PLACE": (*_LOCATION_KEYS, "type"),
    # A department of Oxford is not Heidelberg's department of the same name.
    # A club of another sport is another club (the New York Giants, the San Francisco ones).
    "ORG": (*_LOCATION_KEYS, "type", *_COMPANY_KEYS, "university", "sport"),
    "OTHER": ("species", "type"),
    # A car's plate, a document's number; a bus line of another city (the S3 in Berlin and
    # in Hamburg).
    "THING": ("species", "type", "year", *_LOCATION_KEYS, *_NUMBER_KEYS),
    "EVENT": (*_LOCATION_KEYS, *_COMPANY_KEYS),
}
# When an event happened or will (``_occasions_differ``): compared across keys.
_TIME_KEYS = ("occurred", "date", "when", "year")
# A time said ahead of the conversation ("next April", "in two weeks") or behind it.
_AHEAD = re.compile(r"\b(?:next|upcoming|coming|in\s+\w+\s+(?:days?|weeks?|months?|years?))\b")
_BEHIND = re.compile(r"\b(?:last|ago|previous)\b")
# A day (ISO, as extraction writes dates), and words that say an event's day was moved.
_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_MOVED = re.compile(
    r"\b(?:moved?|moving|resched\w*|rebook\w*|re-book\w*|postpon\w*|pushed|brought forward|"
    r"delay\w*|cancel+ed|changed|switched|bumped|shifted)\b"
)
# Where a person works or studies, or where the user met them, as the user says it: people
# change jobs, so not a contradiction — but no ground to merge on part of a name (Ayşe the
# interviewer at Getir, Ayşe Demir the interviewer at Trendyol; Prof. Smith of Statistics,
# of Econ 101; Tom met at five-a-side, Tom Okafor met at the book club; Dr. Ng seen at
# Hillside Clinic, Dr. Mei Ng the GP at Riverside Practice).
_AFFILIATION_KEYS = (
    *_COMPANY_KEYS,
    *("practice", "hospital", "clinic", "surgery"),
    "school",
    "university",
    "college",
    "course",
    "team",
    "club",
    "met_at",
)
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")
# What a person does or is to someone, in the user's words.
ROLE_KEYS = ("role", "occupation", "job")

# Words for one class of thing; two values in two classes contradict, a value in none is
# unknown (a breed, a rarer animal) and contradicts nothing.
_SPECIES = {
    "dog": "dog puppy pup doggo hound canine bitch собака пёс пес щенок",
    "cat": "cat kitten kitty feline moggy кот кошка котёнок котенок",
    "rabbit": "rabbit bunny",
    "bird": "bird parrot budgie parakeet canary cockatiel",
    "fish": "fish goldfish betta",
    "rodent": "hamster gerbil mouse rat",
    "guinea pig": "guinea",
    "horse": "horse pony mare stallion gelding filly colt",
    "cow": "cow calf heifer bull bullock steer",
    "pig": "pig sow boar piglet",
    "goat": "goat billy",
    "sheep": "sheep lamb ewe tup",
    "chicken": "chicken hen rooster cockerel",
    "duck": "duck duckling",
    "tortoise": "tortoise turtle",
    "snake": "snake python",
    "lizard": "lizard gecko iguana",
}
# Kinds of thing a named work or object is: Dune the novel and Dune the film are two things.
_THING_TYPES = {
    "book": "book novel memoir biography",
    "film": "film movie",
    "series": "series show sitcom",
    "music": "album song single record band",
    "game": "game videogame",
    "vehicle": "car truck pickup van motorcycle motorbike bike bicycle scooter boat",
    "building": "house flat apartment cottage cabin",
}
# What an object named by its make or product line is, so that "my car" finds the Toyota
# Corolla and "the truck" the Ford pickup. Makes whose name is also a common word or an
# animal (Mini, Seat, Dodge, Jaguar, Smart) are left out: "golf clubs" is no car.
_MAKES = {
    "car": (
        "toyota honda tesla kia ford nissan hyundai mazda subaru volkswagen vw volvo bmw audi"
        " mercedes skoda peugeot renault citroen fiat vauxhall opel chevrolet chevy lexus"
        " porsche mitsubishi suzuki dacia polestar rivian"
    ),
    "truck": "pickup lorry",
    "phone": "iphone smartphone pixel galaxy oneplus redmi huawei motorola moto",
    "laptop": "macbook thinkpad chromebook xps zenbook vivobook ideapad",
    "tablet": "ipad",
    "console": "playstation xbox nintendo ps5 ps4 ps3 wii",
    "reader": "kindle kobo ereader",
    "speaker": "echo homepod sonos",
    "router": "fritzbox eero",
}
# Kinds of organisation that one name cannot be at once (St. Mary's the school, St. Mary's
# Hospital). A university and a college, a company and a firm, are left in one class.
_ORG_TYPES = {
    "school": "school kindergarten preschool nursery elementary primary secondary academy",
    "university": "university college",
    "hospital": "hospital clinic",
    "bank": "bank",
    "worship": "church parish cathedral chapel mosque synagogue temple gurdwara",
    "eatery": "restaurant cafe bar pub bakery diner",
    "shop": "shop store supermarket boutique",
    "team": "team club league",
}
_PLACE_TYPES = {
    "settlement": "city town village hamlet suburb neighbourhood neighborhood district borough",
    "country": "country nation",
    "subdivision": "state province region county territory prefecture canton",
}
# Country names people use for one another, which neither containment nor acronyms link.
_SAME_COUNTRY = (
    "us usa america unitedstates unitedstatesofamerica",
    "uk gb britain greatbritain unitedkingdom england scotland wales northernireland",
    "netherlands holland nl",
)

_WORD = re.compile(r"[^\W_]+")
_POSSESSIVE = re.compile(r"['’]s\b")


def _classes(table: Mapping[str, str]) -> dict[str, str]:
    return {word: name for name, words in table.items() for word in words.split()}


_SPECIES_CLASS = _classes(_SPECIES)
_MAKE_CLASS = _classes(_MAKES)
_PLACE_TYPE_CLASS = _classes(_PLACE_TYPES)
_THING_TYPE_CLASS = _classes(_THING_TYPES)
_ORG_TYPE_CLASS = _classes(_ORG_TYPES)
_COUNTRY_GROUP = {word: i for i, words in enumerate(_SAME_COUNTRY) for word in words.split()}


def _words(value: object, *, content: bool = True) -> list[str]:
    """A property value's words: accents folded, lower case, "'s" left out, and with
    ``content`` function words too ("Biscuit's vet" → biscuit, vet). Places keep them:
    "US" is a country, not a pronoun."""
    text = _POSSESSIVE.sub(" ", fold_accents(str(value)).lower())
    words = _WORD.findall(text)
    return [w for w in words if w not in STOP_WORDS] if content else words


def _class_of(words: list[str], classes: Mapping[str, str]) -> str | None:
    found = {classes[w] for w in words if w in classes}
    return found.pop() if len(found) == 1 else None


def _code(value: str) -> bool:
    """An abbreviation as written: two or three capital letters ("UK", "USA", "MA")."""
    letters = "".join(_WORD.findall(value))
    return 2 <= len(letters) <= 3 and letters.isupper()


def _locations_differ(a: str, b: str) -> bool:
    wa = [w for w in _words(a, content=False) if w != "the"]
    wb = [w for w in _words(b, content=False) if w != "the"]
    if not wa or not wb or set(wa) <= set(wb) or set(wb) <= set(wa):
        return False
    ga, gb = _COUNTRY_GROUP.get("".join(wa)), _COUNTRY_GROUP.get("".join(wb))
    if ga is not None and ga == gb:
        return False
    if _code(a) and _code(b):
        return True
    if _code(a) or _code(b):
        # An abbreviation against a full name is the same place when it is its acronym,
        # and unknown otherwise ("CA" / "California").
        return False
    return not (is_acronym_of(a, b, "PLACE") or is_acronym_of(b, a, "PLACE"))


def _values_differ(kind: str, key: str, a: object, b: object) -> bool:
    if a is None or b is None or isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    if key == "species":
        ca, cb = _class_of(_words(a), _SPECIES_CLASS), _class_of(_words(b), _SPECIES_CLASS)
        return ca is not None and cb is not None and ca != cb
    if key == "type":
        classes = {"PLACE": _PLACE_TYPE_CLASS, "ORG": _ORG_TYPE_CLASS}.get(kind, _THING_TYPE_CLASS)
        ca, cb = _class_of(_words(a), classes), _class_of(_words(b), classes)
        return ca is not None and cb is not None and ca != cb
    if key == "country":
        ia, ib = country_iso(str(a)), country_iso(str(b))
        if ia is not None and ib is not None:
            return ia != ib
    if key == "sport":
        sa, sb = ({_SPORT_NAMES.get(w, w) for w in _words(v)} for v in (a, b))
        return bool(sa) and bool(sb) and not sa & sb
    if key in _NUMBER_KEYS:
        # "LB19 KDU" and "lb19kdu" are one plate; one letter apart, two cars.
        ia, ib = (re.sub(r"[\W_]", "", str(v)).upper() for v in (a, b))
        return bool(ia) and bool(ib) and ia != ib
    if key == "year":
        ya, yb = str(a).strip(), str(b).strip()
        return ya.isdigit() and yb.isdigit() and ya != yb
    return _locations_differ(str(a), str(b))


def _time_said(properties: Mapping[str, object]) -> str | None:
    value = next((properties[k] for k in _TIME_KEYS if properties.get(k)), None)
    return str(value).lower() if isinstance(value, str | int) else None


# An event the user says is over ("status": "finished", "done in 2019").
_FINISHED = re.compile(r"\b(?:finished|completed|done|over|ended|failed|passed)\b")
# An event the user says is booked ahead ("rebooked my driving test for 3 March").
_BOOKED = re.compile(r"\b(?:re-?booked|booked|signed up|registered|scheduled)\b")


def booked(properties: Mapping[str, object]) -> bool:
    """Whether what is said of an event says the user booked it ahead."""
    return bool(_BOOKED.search(said_text(properties)))


def day_moved(properties: Mapping[str, object]) -> bool:
    """Whether what is said of an event says its day was moved ("cancelled and rebooked",
    "they moved my appointment")."""
    return bool(_MOVED.search(said_text(properties)))


def finished(properties: Mapping[str, object]) -> bool:
    """Whether what is stored of an event says it is over (the kitchen refit "finished")."""
    return bool(_FINISHED.search(said_text(properties)))


def dated(properties: Mapping[str, object]) -> bool:
    """Whether a stored event has a day stated (ISO, as extraction writes one)."""
    return any(isinstance(v, str) and _DAY.fullmatch(v.strip()) for v in properties.values())


# A year an event's name ends in ("vendanges 2024").
_NAME_YEAR = re.compile(r"\b((?:19|20)\d\d)$")


def with_name_year(name: str, properties: Mapping[str, object]) -> Mapping[str, object]:
    """An event's properties, with the year its name ends in as its time when none is
    stated ("vendanges 2024")."""
    if any(properties.get(k) for k in _TIME_KEYS):
        return properties
    match = _NAME_YEAR.search(name.strip())
    return {**properties, "year": match.group(1)} if match else properties


def occasions_differ(
    said: Mapping[str, object], stored: Mapping[str, object], *, attended: bool = False
) -> bool:
    """Whether the times said of an event now and as stored make it another occasion: years
    on both sides that share none ("July 2024" / "February 2025": another sitting of an
    exam, another trip — a month moved within a year is the same event), two days on both
    sides that differ when nothing said moved the day (2026-01-12 / 2026-01-19: the second
    physio session; "they moved it to the 10th" is the same appointment), or one said to be
    ahead ("April next year", "next May") against one said to be behind ("last summer") or,
    when the user ``attended`` the stored one, with a year ("May 2023"): a year alone may be
    ahead too (the wedding in June 2027 is the one "next June")."""
    a, b = _time_said(said), _time_said(stored)
    if a is None or b is None:
        return False
    ya, yb = set(_YEAR.findall(a)), set(_YEAR.findall(b))
    if ya and yb and not ya & yb:
        return True
    da, db = set(_DAY.findall(a)), set(_DAY.findall(b))
    if da and db:
        # Two days are two occasions (the retake, the second session), unless the user says
        # the day was moved ("they moved my appointment to the 10th", "rebooked for May").
        return not da & db and not day_moved(said)
    if ya and yb:
        return False
    ahead_a, ahead_b = bool(_AHEAD.search(a)), bool(_AHEAD.search(b))
    behind_a, behind_b = bool(_BEHIND.search(a)), bool(_BEHIND.search(b) or (attended and yb))
    return (ahead_a and not ahead_b and behind_b) or (ahead_b and not ahead_a and behind_a)


# What a work is, by who the graph says made it, when no type is stated: a work with an
# author is a book, one with a director a film (Homer's Odyssey, Nolan's).
_MADE_BY = {"author": "book", "writer": "book", "director": "film"}


def work_type(properties: Mapping[str, object]) -> Mapping[str, object]:
    """The properties with the type their maker implies when none is stated (``_MADE_BY``)."""
    if properties.get("type"):
        return properties
    made = next((t for k, t in _MADE_BY.items() if properties.get(k)), None)
    return {**properties, "type": made} if made else properties


def type_class(value: object) -> str | None:
    """The class of a thing's stated type or label ("2021 film" → film, "novel" → book)."""
    return _class_of(_words(value), _THING_TYPE_CLASS) if isinstance(value, str) else None


def properties_differ(kind: str, said: Mapping[str, object], stored: Mapping[str, object]) -> bool:
    """Whether what was said of an incoming entity (``said``) and of a stored node of the
    same name or kind (``stored``) make them two referents: an identifying property of the
    kind (``IDENTIFYING_KEYS``) stated on both sides with values that cannot be one thing —
    two species ("rabbit" / "dog"), two kinds of place ("US state" / "country"), two years,
    two places ("London" / "Chicago", "UK" / "USA", "New Zealand" / "Ghana"); for an event,
    two times that are two occasions (``occasions_differ``: 2019 / 2025, "May 2023" /
    "April next year")."""
    kind = kind.strip().upper()
    keys = IDENTIFYING_KEYS.get(kind, ())
    if kind == "THING":
        said, stored = work_type(said), work_type(stored)
    if kind == "PERSON" and _ages_apart(said.get("age"), stored.get("age")):
        return True
    if any(k in said and k in stored and _values_differ(kind, k, said[k], stored[k]) for k in keys):
        return True
    if kind == "EVENT" and occasions_differ(said, stored):
        return True
    if "country" not in keys:
        return False
    # A US state on one side, a country on the other ("St. Pete" in Florida, St. Petersburg
    # in Russia): the state's country is compared.
    a, b = _country_said(said), _country_said(stored)
    return a is not None and b is not None and a != b


# An animal's death as the user tells it, in a property's value ("died in 2022", "passed away
# 2019", "put to sleep") or key ("died": "2015").
_DEATH = re.compile(
    r"\b(?:died|dead|deceased|passed\s+(?:away|on)|put\s+(?:down|to\s+sleep)|rainbow\s+bridge)\b"
)
_DEATH_KEYS = ("died", "death", "deceased", "date_of_death")
# An animal said to be young or newly come: a puppy, a kitten, weeks or months old, just
# adopted, named after another.
_NEWCOMER = re.compile(
    r"\b(?:pupp(?:y|ies)|pup|kittens?|foal|cub|"
    r"new\s+(?:\w+\s+)?(?:dog|cat|pet|puppy|pup|kitten|rabbit|bunny|rescue|addition)|"
    r"just\s+(?:adopted|got|brought)|named\s+after|settl(?:ing|ed)\s+in|"
    r"\d+\s*(?:weeks?|wks?|months?|mos?)(?:\s+old)?)\b"
)


def said_text(properties: Mapping[str, object], *, as_written: bool = False) -> str:
    """What was said of an entity or is held of a node, as one lower-case text (or
    ``as_written``, capitals kept: "in Tokyo" names a place)."""
    text = " ".join(str(v) for v in properties.values() if isinstance(v, str | int))
    return text if as_written else text.lower()


def died(properties: Mapping[str, object]) -> bool:
    """Whether what is held of an animal says it died ("died 2024", "put to sleep", a
    "died" key)."""
    return bool(_DEATH.search(said_text(properties))) or any(properties.get(k) for k in _DEATH_KEYS)


def newcomer_after_death(
    said: Mapping[str, object], stored: Mapping[str, object], *, stored_former: bool = False
) -> bool:
    """Whether the animal said now is a new one and the stored one of its name is gone: a
    puppy named after the dog that died ("Max", 10 weeks old, "new puppy named after our old
    dog" / Max, "died last spring"). The stored animal is gone when its properties tell its
    death or the user had it (``stored_former``: HAD_PET); the new one is a puppy or kitten,
    weeks or months old, just adopted or named after another — and not itself said to have
    died ("still miss her" is the old one remembered)."""
    gone = stored_former or died(stored)
    text = said_text(said)
    return gone and bool(_NEWCOMER.search(text)) and not _DEATH.search(text)


def noted_countries(said: Mapping[str, object]) -> frozenset[str]:
    """The countries a note puts an organisation or an event in ("while in Singapore"),
    when nothing said states its place as a property (``properties_differ`` compares those):
    ``place_names.country_said`` over what was said."""
    if any(said.get(k) for k in _LOCATION_KEYS):
        return frozenset()
    return frozenset().union(*(country_said(v) for v in said.values() if isinstance(v, str)))


def noted_qualifier(name: str, said: Mapping[str, object]) -> str:
    """The region a note writes a place's name with ("Springfield, Massachusetts, where my
    brother moved" → massachusetts), normalised as names are; "" when none, or when it is a
    code ("Springfield, IL") or a place the data does not know."""
    pattern = re.compile(
        rf"{re.escape(name.strip())},\s+([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){{0,2}})"
    )
    for value in said.values():
        match = pattern.search(value) if isinstance(value, str) else None
        region = match.group(1) if match else ""
        if len(region) > 3 and place_countries(region):
            return " ".join(_words(region))
    return ""


# Where a note puts a place by the places around it: "drove to Atlanta", "near Lahore",
# "in Uruguay", or the place's own name with its region ("Alexandria, Virginia").
_AROUND = re.compile(
    r"\b(in|from|to|near|outside)\s+((?:St\.\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})"
)


_AROUND_THEN = re.compile(
    r"\b(?:in|from|to|near|outside)\s+[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2},\s+"
    r"([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})"
)
_OPENING = re.compile(r"^\s*([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})\s*(?:[,;.]|$)")


def place_noted_in(name: str, said: Mapping[str, object]) -> frozenset[str]:
    """The countries (ISO codes) a note puts a place of ``name`` in: a country or a US
    state named after "in", "from", "to", "near" or "outside", or after the place's own
    name and a comma ("Alexandria, Virginia"); a city of one country, named after any of
    those but "in" ("drove to Atlanta", "near Lahore" — "in Belém" is as often a district of
    another city); a stated country, state, province or city that names one. The place's
    own name counts for nothing (Georgia is a country and a state)."""
    found: set[str] = set()
    for runs, city in _places_around(name, said):
        for said_place in runs:
            iso = country_iso(said_place) or state_country(said_place)
            countries = frozenset({iso}) if iso else place_countries(said_place) if city else ()
            if len(countries) == 1:
                found |= countries
                break
    for key in ("country", "state", "province", "city"):
        if isinstance(said.get(key), str) and len(stated := place_countries(str(said[key]))) == 1:
            found |= stated
    return frozenset(found)


def place_noted_states(name: str, said: Mapping[str, object]) -> frozenset[str]:
    """The US states a note puts a place of ``name`` in, where ``place_noted_in`` reads
    countries ("Illinois, where Grandpa was born"; "my in-laws' farm in Nebraska"; round
    31): two Springfields of one country."""
    states = set()
    for runs, _ in _places_around(name, said):
        state = next((p for p in runs if state_country(p) and not country_iso(p)), "")
        if state:
            states.add(fold_accents(state).lower())
    if isinstance(said.get("state"), str) and state_country(str(said["state"])):
        states.add(fold_accents(str(said["state"])).lower())
    return frozenset(states)


def _places_around(name: str, said: Mapping[str, object]) -> list[tuple[list[str], bool]]:
    """The phrases a note names around a place of ``name`` (``place_noted_in``), each as its
    runs of words from the longest (the place's own name and words under four letters left
    out), with whether a city there counts (not after "in")."""
    text = said_text(said, as_written=True)
    own = fold_accents(name).lower().strip()
    phrases = [(m.group(2), m.group(1) != "in") for m in _AROUND.finditer(text)]
    phrases += [
        (region, False)
        for region in re.findall(
            rf"{re.escape(name.strip())},\s+([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){{0,2}})",
            text,
            flags=re.IGNORECASE,
        )
    ]
    # Round 30: the country or state after a place and a comma ("in Jalisco, Mexico"), and
    # a note that opens with one ("Russia, Dima's wedding is there").
    phrases += [(region, False) for region in _AROUND_THEN.findall(text)]
    opening = _OPENING.match(text)
    if opening:
        phrases.append((opening.group(1), False))
    found = []
    for phrase, city in phrases:
        words = phrase.split()
        runs = [" ".join(words[:n]) for n in range(len(words), 0, -1)]
        runs = [r for r in runs if fold_accents(r).lower() != own and len(r) >= 4]
        found.append((runs, city))
    return found


# Round 31: what a note opens by saying a place is — a country, or a state.
_PLACE_TYPE = re.compile(r"^\s*(?:the\s+)?(?:(?:us|u\.s\.|american)\s+)?(country|state)\b")


def place_type_noted(said: Mapping[str, object]) -> str:
    """ "country" or "state" when a place's note opens by saying it is one ("the country, the
    Tbilisi side"; "the US state, Grandpa's army base"), else ""."""
    match = _PLACE_TYPE.match(said_text(said))
    return match.group(1) if match else ""


def placed_apart(noted: frozenset[str], stored: Mapping[str, object]) -> bool:
    """Whether the countries a note put something in (``noted_countries``) are none where,
    by its stated place, the stored one of its name is (Golden Dragon "while in Singapore",
    the takeaway in Leeds): two of one name."""
    if not noted:
        return False
    known = frozenset().union(
        *(place_countries(str(stored[k])) for k in _LOCATION_KEYS if isinstance(stored.get(k), str))
    )
    return bool(known) and noted.isdisjoint(known)


# Whose a thing is when it is the user's own; words of a ``for`` that name no one else.
SELF = "self"
_NOT_WHOSE = frozenset({"my", "the", "our", "me", "mine", "myself", "i", "user", "self", "own"})


def whose(said: Mapping[str, object], *, own: bool = False, name: str = "") -> str:
    """Whose a condition, a medicine, a device or an occasion is said to be (``for``: "my
    husband" → husband, "Mum" → mother; or a note's "my sister's graduation" for the
    ``name`` said); when none is said but the user has or takes it (``own``: HAS_CONDITION,
    TAKES), the user's own (``SELF``); "" when not said."""
    return _whose(said.get("for")) or _noted_whose(name, said) or (SELF if own else "")


# What a group the user belongs to may be called in a note: "my cousin's congregation in
# Buenos Aires", "my sister's church", "my son's club".
_GROUP_WORDS = frozenset(
    {"congregation", "church", "parish", "chapel", "mosque", "masjid", "synagogue", "shul"}
    | {"temple", "gurdwara", "mandir", "club", "team", "gym", "choir", "school", "group"}
)
_SOMEONES_GROUP = re.compile(r"\bmy\s+([a-z]+(?:[- ][a-z]+){0,2})['’]s\s+([a-z]+)")


def someone_elses_group(said: Mapping[str, object]) -> str:
    """Whose a congregation, a club or a school is said to be, when it is another person's
    of the user's ("my cousin's congregation" → cousin), "" when it is not said."""
    for value in said.values():
        if not isinstance(value, str):
            continue
        for whose, word in _SOMEONES_GROUP.findall(value.lower()):
            role = role_word(whose.replace("-", "_").replace(" ", "_"))
            if role in PEOPLE_ROLES and word in _GROUP_WORDS:
                return role
    return ""


def _noted_whose(name: str, said: Mapping[str, object]) -> str:
    note = said.get("note")
    if not name or not isinstance(note, str):
        return ""
    match = re.search(rf"\bmy\s+(\w+)['’]s\s+{re.escape(name.lower())}\b", note.lower())
    role = role_word(match.group(1)) if match else ""
    if role in PEOPLE_ROLES:
        return role
    # "Arjun's H-1B, through his employer": a person's, by a given name (round 25).
    said = re.escape(name.split()[0]) if name.split() else ""
    named = re.search(rf"\b([A-Z][a-z]+)['’]s\s+{said}", note, flags=re.IGNORECASE)
    owner = fold_accents(named.group(1)).lower() if named and named.group(1)[0].isupper() else ""
    return owner if owner and is_given_name(owner) else ""


def for_someone_else(said_whose: str, stored: Mapping[str, object]) -> bool:
    """Whether a condition, a medicine or a device said to be someone's (``said_whose``:
    ``whose``) is one the graph holds as another's, or as the user's own (no ``for``): the
    husband's slipped disc is not the user's herniated disc, and the lupus the user was just
    diagnosed with is not the one held as a friend's."""
    if not said_whose:
        return False
    theirs = _whose(stored.get("for"))
    return bool(theirs) if said_whose == SELF else said_whose != theirs


def _whose(value: object) -> str:
    if not isinstance(value, str):
        return ""
    words = [w for w in _words(value) if w not in _NOT_WHOSE]
    return " ".join(role_word(w) for w in words)


# Someone's animal in the user's words: "Derek's dog", "Jo's cat next door".
_SOMEONES_ANIMAL = re.compile(r"\w(?:['’]s|s['’])\s+(\w+)(?:['’]s)?(?:\s+(\w+))?(?:\s+(\w+))?")


def with_noted_species(name: str, properties: Mapping[str, object]) -> Mapping[str, object]:
    """What was said of an animal, with the species a note puts just before its name ("a
    cow called Bessie", "her new hamster Storm", "кот Барсик") when none is stated."""
    if properties.get("species"):
        return properties
    key = re.escape(name.lower())
    before = re.compile(
        rf"(\w+)\s+(?:(?:is\s+)?(?:also\s+)?(?:called|named)\s+)?{key}\b"
        rf"|(\w+)\s+\d*,?\s*(?:we\s+|i\s+)?call\s+(?:her|him|it)\s+{key}\b"
    )
    for value in properties.values():
        if isinstance(value, str):
            for words in before.findall(value.lower()):
                word = next((w for w in words if w), "")
                if (species := species_class(word)) is not None:
                    return {**properties, "species": species}
    return properties


def noted_species(properties: Mapping[str, object]) -> str | None:
    """An animal's species as stated, or as the one species its note names when none is
    stated or the stated one is a breed the table does not know ("the college cat at St
    Hugh's"; a border collie, "my working dog"), None when neither tells."""
    stated = properties.get("species")
    if isinstance(stated, str) and (found := species_class(stated.split()[-1].lower())):
        return found
    note = properties.get("note")
    found = {c for w in _words(note) if (c := species_class(w))} if isinstance(note, str) else set()
    return found.pop() if len(found) == 1 else None


def another_of_the_name(name: str, said: Mapping[str, object]) -> bool:
    """Whether a note says the animal or person is another one called the same ("is also
    called Biscuit", "named her hamster Storm too", "тоже кот Барсик", "my wife's cousin,
    also called Zhang Wei", "named her newborn Amara after my daughter", "my other cousin Li
    Na", "same name as the Naples one")."""
    key = re.escape(name.lower())
    words = name.lower().split()
    if len(words) > 1:
        # "también se llama Nora, Nora Bianchi": the first word said before the whole; "a
        # different Chatsworth", said "The Chatsworth": the name without its article.
        part = " ".join(words[1:]) if words[0] in _ARTICLES else words[0]
        key = rf"(?:{key}|{re.escape(part)})"
    another = re.compile(
        rf"\b(?:also|too)\s+(?:called|named)\s+{key}\b"
        # Round 34: the same in Spanish, Portuguese, French, German, Italian and Dutch
        # ("la nueva inquilina también se llama Nora", "s'appelle aussi Madame Roux").
        rf"|\b(?:tambi[eé]n|tamb[eé]m)\s+se\s+(?:llama|chama)\s+{key}"
        rf"|\bse\s+(?:llama|chama)\s+(?:tambi[eé]n|tamb[eé]m)\s+{key}"
        rf"|\bs['’]appelle\s+aussi\s+{key}|\bhei(?:ß|ss)t\s+auch\s+{key}"
        rf"|\bsi\s+chiama\s+anche\s+{key}|\bheet\s+ook\s+{key}"
        rf"|\ba\s+different\s+{key}\b"
        rf"|\bnamed\b(?:\s+\w+){{0,4}}\s+{key}\s+after\b"
        rf"|\b(?:called|named)(?:\s+\w+){{0,3}}\s+{key}\s+(?:too|as well)\b"
        rf"|тоже(?:\s+\w+){{0,2}}\s+{key}"
        # Round 24: "my other cousin Li Na", "same name as the Naples one", "not the
        # Beijing one".
        rf"|\b(?:my|our|his|her|their)\s+other\s+(?:\w+\s+){{0,2}}{key}\b"
        rf"|\bsame name as\b|\bnot the\s+\w+(?:\s+\w+)?\s+one\b"
    )
    text = said_text(said)
    return bool(another.search(text) or _UNRELATED.search(text))


_ARTICLES = frozenset({"the", "a", "an", "el", "la", "le", "les", "il", "der", "die", "das", "o"})


# Round 34: a note that says the one said has nothing to do with another ("no relation to
# our watchman", "rien à voir avec la voisine", "não tem nada a ver com a daqui",
# "bizimkiyle alakası yok"): said beside a name the graph holds, a namesake.
_UNRELATED = re.compile(
    r"\bno relation (?:to|of)\b|\bnothing to do with\b|\brien à voir\b|\baucun rapport\b"
    r"|\bnada que ver\b|\bnada a ver\b|\bnichts zu tun\b|\bniente a che fare\b"
    r"|\balakası yok\b|\bilgisi yok\b|\bniets te maken\b"
)


# Words for a person said of someone unknown ("a guy called Sam", "a woman named Ruth").
_STRANGER_NOUNS = "guy|man|woman|lady|bloke|chap|girl|boy|person|fellow|dude|gentleman|kid|lad|lass"
# A note that wonders whether the stranger is someone known ("a Lukas Becker added me,
# could be my old pen pal?").
_WONDERED = re.compile(r"\b(?:might|could|maybe|perhaps|wonder|think|possibly|probably)\b")
# Words after a name that show "a" was Portuguese's article ("a Lurdes da Pastoral").
_ARTICLE_FOLLOWERS = frozenset({"da", "do", "das", "dos", "de", "e", "que", "pediu", "disse"})


def introduced_as_stranger(name: str, said: Mapping[str, object]) -> bool:
    """Whether a note speaks of the person as someone the user does not know: "Mia's new
    school has a Mr Ali", "a guy called Tom", "another Sophie" (round 17); and, unless the
    note wonders whether it is someone known, "a John Smith from Glasgow emailed", "some
    customer called Zhang Wei", "a boy called Zhang Xiaoming" (round 30), "a new iniciação
    científica student named Ana" (round 34). The name as said,
    capitalised, follows "a" only in English ("a Lurdes da Pastoral" is Portuguese's
    "the")."""
    text = said_text(said, as_written=True)
    if not text or not name.strip():
        return False
    lowered = re.escape(name.strip().lower())
    unknown = re.compile(
        rf"\b(?:(?:has|have|had|met|is|was|by|with|there's|there\s+is)\s+an?|another)\s+"
        rf"{lowered}\b|\b(?:someone|somebody|an?(?:\s+[\w-]+){{1,4}})\s+(?:called|named)\s+"
        rf"{lowered}\b"
    )
    if unknown.search(text.lower()):
        return True
    if _WONDERED.search(text.lower()):
        return False
    key = re.escape(name.strip())
    introduced = re.compile(
        rf"\b(?:an?|[Ss]ome)\s+{key}(?!\w)(?:\s+(\w+))?"
        rf"|\b[Ss]ome\s+(?:[\w-]+\s+){{0,2}}(?:called|named)\s+{key}(?!\w)()"
        rf"|\b[Ss]ome(?:one|body)\s+(?:called|named)\s+{key}(?!\w)()"
        rf"|\ban?\s+(?:[\w-]+\s+)?(?:{_STRANGER_NOUNS})\s+(?:called|named)\s+{key}(?!\w)()"
    )
    return any(
        (match.group(1) or "").lower() not in _ARTICLE_FOLLOWERS
        for match in introduced.finditer(text)
    )


# Round 31: the years a note gives of someone's life — born (or baptised), and died.
_YEAR_SAID = r"(1[5-9]\d\d|20\d\d)"
_BORN = re.compile(
    rf"\bborn\s+(?:in\s+)?(?:(?:about|around|circa|c\.)\s*)?{_YEAR_SAID}\b"
    rf"|\b{_YEAR_SAID}\s+(?:baptism|christening)\b|\b(?:baptised|baptized|christened)\s+(?:in\s+)?{_YEAR_SAID}\b"
)
_DIED = re.compile(rf"\b(?:died|passed away|buried)\s+(?:in\s+)?{_YEAR_SAID}\b")
# Birth years said of one person a few years apart are one person's, as records differ.
_BIRTH_SLACK = 5


def life_years(said: Mapping[str, object]) -> tuple[int | None, int | None]:
    """(born, died): the years a note gives of someone's life, each None when not said."""
    return _life_years_in(said_text(said))


@lru_cache(maxsize=16384)
def _life_years_in(text: str) -> tuple[int | None, int | None]:
    # Cached by text: every stored node's note is read again for each entity of a batch.
    born, died = _BORN.search(text), _DIED.search(text)
    year = next((g for g in born.groups() if g), None) if born else None
    return (int(year) if year else None, int(died.group(1)) if died else None)


def lives_apart(said: tuple[int | None, int | None], stored: Mapping[str, object]) -> bool:
    """Whether the years two notes give of someone's life cannot be one life: births more
    than ``_BIRTH_SLACK`` years apart ("born 1875 in Wisconsin", "born 1820 in Ribe"), or one
    born a year or more after the other died ("his grandson, born 1910", "died 1899"; "a 1955
    baptism", "died 1950") — a namesake of another generation (round 31). ``said``: the
    entity's ``life_years``, worked out once for every stored node."""
    born, died = said
    if born is None and died is None:
        return False
    held_born, held_died = life_years(stored)
    if born and held_born and abs(born - held_born) > _BIRTH_SLACK:
        return True
    return bool(
        (born and held_died and born > held_died + 1)
        or (held_born and died and held_born > died + 1)
    )


# Round 31: whose a thing is, as a note says it — opening with someone's ("Mum's stairlift
# at her house", "Dad's mobility scooter"), or for someone ("a blue badge for Dad", "a
# stairlift quoted for Auntie Joan's house", "bought Lily a scooter").
_OWNER_OPENING = re.compile(r"^\s*(?:my\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)['’]s?\s")
_OWNER_FOR = re.compile(r"\b(?:for|bought|got|gave)\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)\b")


def thing_owner(said: Mapping[str, object]) -> frozenset[str]:
    """Who a note says a thing is someone's or for, as kinship words' relations (Mum →
    mother) or a name's words; empty when it names no one."""
    note = said.get("note")
    return _owner_in(note) if isinstance(note, str) else frozenset()


@lru_cache(maxsize=16384)
def _owner_in(note: str) -> frozenset[str]:
    match = _OWNER_OPENING.match(note) or _OWNER_FOR.search(note)
    if not match:
        return frozenset()
    owner = fold_accents(match.group(1)).lower()
    if owner in _NOT_WHOSE:
        return frozenset()
    relation = role_word(owner.split()[-1])
    return frozenset({relation}) if relation in PEOPLE_ROLES else frozenset(owner.split())


def owned_by_others(said_owner: frozenset[str], stored: Mapping[str, object]) -> bool:
    """Whether the note of a thing said (``said_owner``: its ``thing_owner``, worked out once
    for every stored node) and a stored one of its name say two people's ("for Auntie Joan's
    house" / "Mum's stairlift"; "for Dad" / "Mum's badge"): two things."""
    held_owner = thing_owner(stored)
    return bool(said_owner) and bool(held_owner) and said_owner.isdisjoint(held_owner)


def someone_elses_animal(said: Mapping[str, object]) -> bool:
    """Whether what is said of an animal makes it someone else's: an ``owner`` stated, or a
    note naming it as someone's ("Derek's dog, also called Rusty"; "Jo's dog next door")."""
    owner = said.get("owner")
    if isinstance(owner, str) and owner.strip().lower() not in ("", "me", "user", "the user"):
        return True
    return any(
        species_class(word) is not None
        for v in said.values()
        if isinstance(v, str)
        for words in _SOMEONES_ANIMAL.findall(v.lower())
        for word in words
    )


# Whose a place or a thing is said to be, just before its name: a capitalised name's or a
# noun's possessive ("Dai's Nell", "the Hendersons' Top Field", "the neighbour's pug Rex"),
# or "his", "her", "their", with up to two words between ("Dai's young bitch Nell").
_WHOSE = r"(?:\b([A-Z][\w-]*|the\s+[a-z]+)(?:['’]s|s['’])|\b(?:his|her|their))\s+(?:[\w-]+\s+){0,2}"


def someone_elses_named(name: str, said: Mapping[str, object], *, kin: bool) -> bool:
    """Whether what is said names the place or thing as someone else's ("the Hendersons
    have put their Top Field into wheat"; "Dad's Purple Heart"). ``kin``: a relative's
    counts too ("Dad's"); else only someone outside the family's, since the user's family
    share what they own with the user ("Mum's car" is often the family car)."""
    text = said_text(said, as_written=True)
    for match in re.finditer(_WHOSE + re.escape(name) + r"\b", text):
        whose = (match.group(1) or "").lower().removeprefix("the ").strip()
        if kin or not whose or role_word(whose) not in _FAMILY_WORDS:
            return True
    return False


# The words for relatives whose things are the family's (``someone_elses_named``).
_FAMILY_WORDS = frozenset(
    {"mother", "father", "parent", "partner", "partner_f", "partner_m", "grandmother"}
    | {"grandfather", "sister", "brother", "son", "daughter", "mum", "mom", "dad", "family"}
)


# A thing said to replace another, or another copy of one ("a new Émonda SL 6 to replace the
# old one", "the 2024 reissue of Rumours"): not the one the user had.
_REPLACES = re.compile(
    r"\b(?:to replace|replac(?:es|ed|ing) (?:my|the|our|his|her|their)|upgrad(?:e|ed|ing) from)\b"
)
# Another copy or version of a thing of the same name: never the one the user had.
_ANOTHER_COPY = re.compile(r"\b(?:reissue|remake|another copy|second copy)\b")


def replaces_another(
    said: Mapping[str, object], *, same_name: bool = False, name: str = ""
) -> bool:
    """Whether what is said of a thing makes it a replacement of one the user has
    (``_REPLACES``: said of another name — "replaced the battery in my Pixel 8" is the
    Pixel 8) or another copy or version of it (a reissue, the 2017 remake of the Nokia 3310,
    even of the same name; "another box for Christmas" of a balikbayan box)."""
    text = said_text(said)
    if _ANOTHER_COPY.search(text) or (not same_name and _REPLACES.search(text)):
        return True
    head = name.lower().split()[-1] if same_name and name.split() else ""
    return bool(head) and bool(
        re.search(rf"\b(?:another|a second)\s+(?:\w+\s+){{0,2}}{re.escape(head)}\b", text)
    )


# Ages this far apart are two people, not one who aged while the graph remembered them.
_AGES_APART = 15


def _ages_apart(a: object, b: object) -> bool:
    """Kevin O'Brien aged 45, Kevin O'Brien aged 11: his son."""
    ages = [age for v in (a, b) if (age := stated_age(v)) is not None]
    return len(ages) == 2 and abs(ages[0] - ages[1]) >= _AGES_APART


def _country_said(properties: Mapping[str, object]) -> str | None:
    country, state = properties.get("country"), properties.get("state")
    if isinstance(country, str) and country.strip():
        return country_iso(country)
    return state_country(state) if isinstance(state, str) else None


def states_region(properties: Mapping[str, object]) -> bool:
    """Whether the properties say where within a country something is (a city, state,
    province, county or region)."""
    return any(properties.get(key) for key in _LOCATION_KEYS if key != "country")


def roles_differ(said: Mapping[str, object], stored: Mapping[str, object]) -> bool:
    """Whether a person's role as said now and as stored share no word ("plumber who fixed
    the boiler" / "software engineer", "Biscuit's vet" / "GP") or name two kinds of one trade
    ("occupational therapist" / "speech therapist"): not a contradiction — people
    are described many ways — but no ground to merge on part of a name either."""
    for key in ROLE_KEYS:
        if key in said and key in stored:
            a, b = _words(said[key]), _words(stored[key])
            if a and b and (not set(a) & set(b) or _kinds_of_one_trade(a, b)):
                return True
    return False


# Words before a trade that say where someone stands in it, not which trade it is.
_RANKS = frozenset(
    "senior junior head lead chief deputy assistant associate principal trainee student "
    "new former old main usual regular private personal family".split()
)


def _kinds_of_one_trade(a: list[str], b: list[str]) -> bool:
    """Whether two roles name one trade with two kinds of it ("occupational therapist" /
    "speech therapist", "maths teacher" / "piano teacher"): the words before the shared one
    differ, neither a rank ("senior", "head") nor said on the other side."""
    for word in set(a) & set(b):
        before_a = a[a.index(word) - 1] if a.index(word) else None
        before_b = b[b.index(word) - 1] if b.index(word) else None
        if (
            before_a
            and before_b
            and before_a != before_b
            and not {before_a, before_b} & _RANKS
            and before_a not in b
            and before_b not in a
        ):
            return True
    return False


# Words that say a person has moved on to the place said now ("Dr. Okafor has moved to
# Reddington", "she's now at Arup").
_MOVED_ON = re.compile(r"\b(?:moved|moving|transferred|switched|now (?:at|works|working))\b")


def affiliation_differs(said: Mapping[str, object], stored: Mapping[str, object]) -> bool:
    """Whether the company, school, course, team or practice a person is said to belong to
    now and as stored differ (compared as places are: words, containment, acronyms) — and
    nothing said has them move on to it ("has moved to Reddington")."""
    return _stated_apart(_AFFILIATION_KEYS, said, stored) and not _MOVED_ON.search(said_text(said))


def said_same_affiliation(said: Mapping[str, object], stored: Mapping[str, object]) -> bool:
    """Whether a company, school, course or team is stated on both sides, and every one
    stated on both agrees ("Ravi" at Infosys, Ravi Menon of Infosys)."""
    return _stated_alike(_AFFILIATION_KEYS, said, stored)


# Words of what was said about someone that single out nothing: how the user knows people,
# and words this common (wordfreq's Zipf scale, "today" 5.6, "work" 6.0) — "Sunday" (5.0),
# "church" (4.9), "climbing" (4.1) and "hostel" (3.4) are kept.
_CONTEXT_ZIPF = 5.2
# Trades a note may name someone by ("physio Tom"): telling, unlike "friend" or "sister".
_CONTEXT_TRADES = frozenset(
    {"doctor", "therapist", "physio", "dietitian", "coach", "teacher", "tutor", "vet"}
    | {"dentist", "lawyer", "accountant", "caseworker", "landlord", "mentor"}
)
_CONTEXT_NOISE = (PEOPLE_ROLES - _CONTEXT_TRADES) | {
    *("met", "told", "said", "says", "came", "went", "asked"),
}


def _context(properties: Mapping[str, object]) -> set[str]:
    """The telling words of what was said of someone, plurals folded and a role said as roles
    are named ("physiotherapist" / "physio" → physio)."""
    words = set()
    for value in properties.values():
        if not isinstance(value, str):
            continue
        for word in content_words(fold_accents(value)):
            word = role_word(word)
            if word.isdigit() or word in _CONTEXT_NOISE or word_zipf(word) > _CONTEXT_ZIPF:
                continue
            words.add(_stem(word))
    return words


def context_of(text: str) -> frozenset[str]:
    """The telling words of a text as ``context_shared`` compares them (a name said, to be
    left out of what two notes share: "rachel's wedding" → rachel, wedd)."""
    return frozenset(_context({"text": text}))


def _stem(word: str) -> str:
    """A context word without its ending ("cooks", "cooking", "cooked" → cook; "bouldering"
    → boulder), leaving a stem of four letters at least."""
    for ending in ("ing", "ed", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


def context_shared(
    said: Mapping[str, object],
    stored: Mapping[str, object],
    *,
    ignore: frozenset[str] = frozenset(),
) -> bool:
    """Whether what is said of someone now and what the graph holds about them share a word
    that says something ("the Aussie from the Hanoi hostel" / "Aussie I met at a hostel in
    Hanoi"; "rosary group on Wednesday" / "leads the rosary group"), plurals folded; words
    in ``ignore`` (the name said) are none."""
    return bool((_context(said) & _context(stored)) - ignore)


def with_named_type(kind: str, name: str, properties: Mapping[str, object]) -> Mapping[str, object]:
    """What was said of an organisation, with the type its name ends in when none was stated
    ("Sainsbury's Bank": a bank, so not Sainsbury's the supermarket; "St Mary's School": a
    school, not St Mary's the hospital). Only a word of the organisation classes counts."""
    if kind != "ORG" or properties.get("type"):
        return properties
    words = _words(name)
    if len(words) < 2 or words[-1] not in _ORG_TYPE_CLASS:
        return properties
    return {**properties, "type": words[-1]}


def types_differ(said: Mapping[str, object], stored: Mapping[str, object]) -> bool:
    """Whether a thing's ``type`` as said now and as stored share no word and neither is
    known to be of one class with the other ("internal project" / "web framework"). Not a
    contradiction, which needs two known classes (``properties_differ``: a book and a
    film) — but a question, never a merge on the name alone."""
    a, b = said.get("type"), stored.get("type")
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    wa, wb = set(_words(a)), set(_words(b))
    if not wa or not wb or wa & wb:
        return False
    for classes in (_THING_TYPE_CLASS, _ORG_TYPE_CLASS, _PLACE_TYPE_CLASS):
        ca, cb = _class_of(list(wa), classes), _class_of(list(wb), classes)
        if ca is not None and ca == cb:
            return False
    return True


# Another name a note says someone goes by ("in Toronto he goes by Daniel", "uses the
# English name William at work", "everyone called him Joe", "at work he uses the name Mike").
_GOES_BY = re.compile(
    r"\b(?i:goes by|uses the (?:\w+ )?name|(?:english|western|chinese|korean) name(?: is)?|"
    r"(?:everyone|people|they|we) calls? (?:him|her|them)|"
    r"(?:everyone|people|they|we) called (?:him|her|them))\s+([A-Z][a-z]+)\b"
)


def noted_names(properties: Mapping[str, object]) -> tuple[str, ...]:
    """The other given names a note says a person goes by ("goes by Daniel" → Daniel)."""
    return tuple(
        dict.fromkeys(
            m.group(1)
            for v in properties.values()
            if isinstance(v, str)
            for m in _GOES_BY.finditer(v)
        )
    )


# Words by which a note says a thing is called by another name, or was renamed (round 32):
# "became Northfield Academy when it joined the trust", "renamed the Mandela Building in
# 2023", "Orange, ex-France Télécom", "what Daimler is called now", "Feishu, which is Lark in
# China", "Mindtree merged into LTIMindtree".
_RENAMED = (
    r"renam(?:ed?|ing)|rebrand(?:ed|ing)?|bec(?:ame|omes?)|(?:now|is|are|was|were|got) called|"
    r"called (?:now|today)|new name|used to be|merged into|which is"
)
# ... and by which a note says a person is called so: "the kids call him 'Whitty'", "goes by
# Bea", "née Jenkins". A person's note names other people with any other word ("her son Tom
# got married", "became Tom's wife"), so only these count for a person.
_CALLED = (
    r"(?:formerly |previously |once |also )?known as|aka|a\.k\.a\.?|calls? (?:him|her|them)|"
    r"called (?:him|her|them)|nicknamed|goes by|n[ée]e|maiden name(?: is| was)?"
)
_THING_CUE = re.compile(rf"(?<!\w)(?:(?:{_RENAMED}|{_CALLED})(?!\w)|ex-(?=\w))")
_PERSON_CUE = re.compile(rf"(?<!\w)(?:{_CALLED})(?!\w)")
# A married name said by the person's given name: "Jessica Nguyen got married, she's Jessica
# Alvarez in Outlook now"; "was Miss Jenkins until she married".
_MARRIED = re.compile(r"(?<!\w)(?:got married|(?:she|he) married|until (?:she|he) married)(?!\w)")
# ... unless the same clause says it is another ("not to be confused with", "no relation").
# or that one owns the other ("it used to be owned by Walmart", "part of", "bought by").
_NAMING_DENIED = re.compile(
    r"\b(?:not|n't|no relation|confused|unlike|different|another|own(?:ed|s|er)|part of|"
    r"subsidiary|parent|bought|acquired|took over|spin-?off|spun)\b"
)
_CLAUSE = re.compile(r"[.;!?\n]+")
# How near a cue the name is written, in characters ("renamed the Mandela Building", "call
# him 'Whitty'", "what Daimler is called now").
_CUE_REACH = 14


def _named_with_cue(name: str, text: str, cue: re.Pattern) -> bool:
    """Whether ``name`` (folded, lower-case) is written in ``text`` as a whole word or
    phrase, not as someone's ("Tom's"), next to a ``cue`` saying it is another name of the
    thing, in a clause that does not deny it."""
    pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w|['’]s\b)")
    for clause in _CLAUSE.split(text):
        if _NAMING_DENIED.search(clause):
            continue
        cues = list(cue.finditer(clause))
        for m in pattern.finditer(clause):
            if any(
                0 <= m.start() - c.end() <= _CUE_REACH or 0 <= c.start() - m.end() <= _CUE_REACH
                for c in cues
            ):
                return True
    return False


def _folded_text(properties: Mapping[str, object]) -> str:
    return _folded(said_text(properties, as_written=True))


def folded_said(properties: Mapping[str, object]) -> str:
    """``said_text`` without accents (cached by the text: a stored node's note is folded
    once, not once per decision)."""
    return _folded(said_text(properties))


@lru_cache(maxsize=16384)
def _folded(text: str) -> str:
    return fold_accents(text).lower()


@lru_cache(maxsize=1024)
def _without_name(name: str, text: str) -> str:
    """A note folded, with the name said taken out of it."""
    return re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", _folded(text))


def named_in_note(
    kind: str,
    said: str,
    said_props: Mapping[str, object],
    forms: list[str],
    stored: Mapping[str, object],
) -> bool:
    """Whether one side's note gives the other's name as another name of it (round 32): the
    stored note names the name said next to a word of renaming or calling ("renamed the
    Mandela Building"; "the kids call him 'Whitty'") or in quotes ("'Big Tom', tallest in
    7K"), or the note said names one of the
    stored node's ``forms`` so ("Mindtree merged into LTIMindtree", said of LTIMindtree;
    "Orange, ex-France Télécom"). The name said is taken out of its own note first (Daimler
    in "Daimler Truck, the spin-off" is not Daimler). A person is named so only by words of
    calling, or by a marriage with the given name kept ("was Miss Jenkins until she married";
    Jessica Alvarez, "Jessica Nguyen got married"). Names compared folded, without case."""
    name = fold_accents(said).lower().strip()
    if len(name) < 3 or name.split()[0] in _NOT_A_NAME_LEAD:
        return False
    person = kind == "PERSON"
    cue = _PERSON_CUE if person else _THING_CUE
    held = _folded_text(stored)
    if name in held and (
        _named_with_cue(name, held, cue) or re.search(rf"['‘\"“]{re.escape(name)}['’\"”]", held)
    ):
        # ... or in quotes, as what they are called: "HOD Maths, 'Mrs Tan'".
        return True
    opening = rf"{re.escape(name)}\s*(?:[,(–—:-]|$)"
    if kind not in ("PERSON", "EVENT") and " " in name and re.match(opening, held):
        # Round 34: a stored acronym's note that opens with the name it stands for
        # ("KWSC": "Karachi Water and Sewerage Corporation, line water comes twice a week").
        # Not an event's: "office Diwali party, I organised …" opens the note of one edition.
        return True
    maiden = rf"\bwas {re.escape(name)},? until (?:she|he) (?:got )?married\b"
    if person and name in held and re.search(maiden, held):
        return True
    own = _without_name(name, said_text(said_props, as_written=True))
    for form in dict.fromkeys(fold_accents(f).lower().strip() for f in forms):
        if len(form) < 3 or form == name or form not in own or form.split()[0] in _NOT_A_NAME_LEAD:
            continue
        if _named_with_cue(form, own, cue):
            return True
        if person and form.split()[0] == name.split()[0] and _named_with_cue(form, own, _MARRIED):
            return True
    return False


# A description, not a name ("the trust", "my manager"): never found as another's name.
_NOT_A_NAME_LEAD = frozenset({"the", "my", "our", "his", "her", "their", "a", "an", "this"})


# Properties that state another name a thing is known by, as written: a course's code, a
# person's handle, an organisation's short name.
_IDENTIFIER_KEYS = (
    *("code", "course_code", "handle", "username", "discord", "slack", "github"),
    *("instagram", "twitter", "abbreviation", "acronym", "short_name", "ticker"),
    # A handle's real name, and the other names a person goes by (session 21).
    *("real_name", "full_name", "birth_name", "maiden_name", "known_as", "aka"),
    *("gamertag", "psn", "xbox", "steam", "twitch", "reddit", "tiktok", "youtube"),
)
_IDENTIFIER_KEY_SET = frozenset(_IDENTIFIER_KEYS)
_NOT_ALNUM = re.compile(r"[\W_]+")


def _compact(value: object) -> str:
    return _NOT_ALNUM.sub("", fold_accents(str(value)).lower())


def identified_by(
    name: str,
    said: Mapping[str, object],
    forms: list[str],
    stored: Mapping[str, object],
) -> bool:
    """Whether a name is another one a stored node is known by, as a property states it
    ("MATH 221", the code of Linear Algebra; "kdesai99", Kiran Desai's Discord handle), or
    the other way round (the course said with its code, stored by its code). Compared
    without case, spaces and punctuation ("@kdesai99", "MATH221")."""

    if _compact(name) in _identifiers(stored):
        return True
    given = _identifiers(said)
    return bool(given) and not given.isdisjoint(_compact(f) for f in forms)


def _identifiers(properties: Mapping[str, object]) -> set[str]:
    """The other names a node's (or a mention's) properties state, compacted."""
    return {
        c
        for key in _IDENTIFIER_KEY_SET.intersection(properties)
        if isinstance(properties[key], str | int) and len(c := _compact(properties[key])) >= 2
    }


# A handle's number or "_" ending ("OldTimer58", "MBellz_07"), often left out when said.
_HANDLE_ENDING = re.compile(r"[_\d]+$")
_HANDLE_STEM_MIN = 4


def handle_stem(name: str, forms: list[str], stored: Mapping[str, object]) -> bool:
    """Whether a name is a stored handle without its number or underscore ending ("OldTimer"
    for OldTimer58, "MBellz" for Marcus Bell's handle MBellz_07): the handle as written
    (a form, or a handle property), its ending digits or "_" left out, four letters or more."""
    said_stem = _compact(name)
    if len(said_stem) < _HANDLE_STEM_MIN or _HANDLE_ENDING.search(name):
        return False
    handles = [*forms, *(str(stored[k]) for k in _IDENTIFIER_KEYS if k in stored)]
    return any(
        _HANDLE_ENDING.search(h)
        and " " not in h.strip()
        and _compact(_HANDLE_ENDING.sub("", h)) == said_stem
        for h in handles
    )


def same_letters(a: str, b: str) -> bool:
    """Two names with the same letters and digits once spaces, case and punctuation are left
    out ("websummit" / Web Summit, "H1B" / "H-1B")."""
    ca = _compact(a)
    return len(ca) >= 3 and ca == _compact(b)


def species_class(word: str) -> str | None:
    """The animal a word names ("puppy" → "dog", "kitten" → "cat"), None for other words."""
    return _SPECIES_CLASS.get(word.lower())


def make_class(word: str) -> str | None:
    """What an object of a make or product line is ("toyota" → "car", "pickup" → "truck",
    "macbook" → "laptop"), None for other words."""
    return _MAKE_CLASS.get(word.lower())


def role_said(word: str, properties: Mapping[str, object]) -> bool:
    """Whether a word is one of a person's stated role ("GP", "professor"; "pastor" in
    "pastor, Jesus House")."""
    return any(
        isinstance(properties.get(key), str) and word in re.findall(r"\w+", properties[key].lower())
        for key in ROLE_KEYS
    )


# Where a note says someone is from ("Yuki from Hana's class", "Kenji from accounts",
# "Karen from the PTA"): the group, its possessor and determiners aside. Work is where a
# colleague is from.
_FROM_GROUP = re.compile(
    r"\bfrom\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+)?(?:\w+['’]s\s+)?"
    r"(\w+)(?:\s+(\w+))?"
)
_AT_WORK = frozenset({"work", "office", "job"})


def met_elsewhere(name: str, said: Mapping[str, object], stored: Mapping[str, object]) -> bool:
    """Whether a note says a person is from a group ("Yuki from Hana's class") that nothing
    held of the person of the name mentions ("Hana's violin teacher"): one name, perhaps two
    people — a question. Not when nothing is held of them, nor for work against a
    colleague."""
    note = said.get("note")
    text = note.lower() if isinstance(note, str) else ""
    at = text.find(name.lower().split()[-1])
    match = _FROM_GROUP.search(text[at:]) if at >= 0 else None
    if not match:
        return False
    group = {_stem(w) for w in match.groups() if w and w not in STOP_WORDS}
    held = {_stem(w) for w in content_words(fold_accents(said_text(stored)))}
    if not group or not held:
        return False
    if group & _AT_WORK and held & {"colleague", "coworker", "cowork"}:
        return False
    return group.isdisjoint(held)


def said_elsewhere(said: Mapping[str, object], stored: Mapping[str, object]) -> bool:
    """Whether a person's place as said now and as stored differ ("Tomás" in Medellín, Tomás
    Herrera in Bogotá): people move, so not a contradiction — but a question."""
    return _stated_apart(_LOCATION_KEYS, said, stored)


def said_same_place(said: Mapping[str, object], stored: Mapping[str, object]) -> bool:
    """Whether a place is stated on both sides, and every one stated on both agrees."""
    return _stated_alike(_LOCATION_KEYS, said, stored)


def _stated_apart(
    keys: tuple[str, ...], said: Mapping[str, object], stored: Mapping[str, object]
) -> bool:
    """Whether one of ``keys`` is stated on both sides with values that differ (compared as
    places and organisations are: words, containment, acronyms)."""
    return any(
        k in said and k in stored and _values_differ("ORG", k, said[k], stored[k]) for k in keys
    )


def _stated_alike(
    keys: tuple[str, ...], said: Mapping[str, object], stored: Mapping[str, object]
) -> bool:
    """Whether one of ``keys`` is stated on both sides, and every one stated on both agrees."""
    shared = [k for k in keys if said.get(k) and stored.get(k)]
    return bool(shared) and not _stated_apart(keys, said, stored)


def distinguishing_label(kind: str, properties: Mapping[str, object]) -> str:
    """A short label telling a new node from a stored one of the same name, from its own
    identifying properties (most specific first: "dog", "Chicago", "Massachusetts"); "" when
    it states none."""
    keys = IDENTIFYING_KEYS.get(kind.strip().upper(), ())
    for key in ("species", "year", *_LOCATION_KEYS, "type"):
        value = properties.get(key) if key in keys else None
        if isinstance(value, str | int) and str(value).strip():
            return str(value).strip()[:60]
    return ""


# What a referent is, as far as what the user said tells: kinds no extractor gives a pet or
# a person (TOPIC, PREFERENCE), and what properties and relations say.
_SUBJECT_KINDS = frozenset({"TOPIC", "PREFERENCE"})


def what_it_is(kind: str, properties: Mapping[str, object], roles: frozenset[str]) -> str:
    """ "animal" (a species, or the user's pet), "person" (a friend, a sister …), "object"
    (a type of thing: road bike, robot vacuum), "subject" (a topic or preference) or "" when
    nothing said tells. The kind alone says little: extractors type pets as PERSON or OTHER,
    so a PERSON with no relation is unknown (Biscuit the dog, later said as a PERSON)."""
    if properties.get("species") or "pet" in roles:
        return "animal"
    if roles & PEOPLE_ROLES:
        return "person"
    if kind.strip().upper() in _SUBJECT_KINDS:
        return "subject"
    if properties.get("type"):
        return "object"
    return ""
