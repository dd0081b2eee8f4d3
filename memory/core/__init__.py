"""The pure algorithm core of Pegasus memory (SPEC §5).

Everything in this package works on plain dataclasses, dicts and numpy arrays and
never imports Django: services load rows in bulk, call these functions, and write
the results back. Time is always a parameter (timezone-aware datetimes), so tests,
benchmarks and replays of dated conversations control the clock.

Modules:
    words        content words of a message (§5.1 step 1)
    seeding      mean-centred key scoring and the seed gate (§5.1)
    activation   spreading activation, co-episode bonus, firing budget (§5.2)
    injection    the [MEMORY] / [CONTEXT] blocks (§5.3)
    decay        strength over time and reinforcement (§5.4)
    cleaning     the deterministic pass over an extractor batch (§5.5, §6.2)
    merge_rules  the deterministic merge rules and LLM confidence bands (§5.6)
    merge_types  what the merge rules take and return (stored nodes, mentions, verdicts)
    merge_people the merge rules for people: first names, titles, clipped forms (§5.6)
    person_names how first names relate: nicknames, respellings, clipped and pet forms
    person_roles what the user said about someone: roles, gender, contradictions
    first_names  the nickname table and the first-name lists (gender, given names)
"""
