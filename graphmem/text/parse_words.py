"""The words the open reader knows: verbs of change and ending, hedges, light verbs, times.

Pure tables for :mod:`graphmem.text.parse` (docs/concepts/text.md#open-relations): which
verbs state a change or an ending, which hedge a clause, which name no relation on their own,
and which prepositions and words are times rather than values.
"""

from __future__ import annotations

import re

#: Verbs whose clause states a change of value.
CHANGE_VERBS = frozenset(
    """move migrate switch swap replace change upgrade downgrade bump port rewrite transition
    shift convert jump transfer""".split()  # noqa: SIM905
)
#: Phrasal verbs that say a thing moved to another value ("auth-service cut over to OAuth 2.0",
#: "the primary failed over to db-2", "we rolled back to 1.4").
PHRASAL_CHANGES = frozenset(
    {("cut", "over"), ("flip", "over"), ("roll", "back"), ("fail", "over"), ("switch", "over")}
)
#: Participles and adjectives that say a thing is over ("Redis is gone").
ENDED = frozenset(
    """gone dead retired deprecated decommissioned sunset sunsetted removed dropped
    discontinued shut deleted archived terminated uninstalled""".split()  # noqa: SIM905
)
#: Verbs that set a value ("the budget was revised to $2.1M", "rate adjusted to $175").
VALUE_VERBS = frozenset(
    """revise adjust raise lower increase decrease cut reduce set approve reprice""".split()  # noqa: SIM905
)
#: Verb-and-preposition relations that are an ontology relation by another name.
RELATIONS: dict[str, str | None] = {
    "works in": None,  # "works in Walldorf", "works in sales": a place or a field
    "stays on": None,  # "we're staying on Webflow": a decision, nothing new
    "stays with": None,
    "remains on": None,
    "works as": "role",
    "serves as": "role",
    "starts as": "role",
    "started as": "role",
    "joins as": "role",
    "works for": "works at",
    "starts at": "works at",
    "becomes": "role",
}
#: What a name can be *to the owner* ("Globex is a customer", "is one of our vendors").
MEMBERSHIP = frozenset(
    """customer client vendor supplier partner investor sponsor competitor contractor
    reseller distributor subsidiary""".split()  # noqa: SIM905
)
#: Verbs that say, without an object, that their subject is over ("Globex churned").
ENDING_VERBS = frozenset({"churn", "disband", "fold"})
#: Verbs whose simple past starts a state that still holds ("started as head of data").
INCEPTION_VERBS = frozenset({"start", "join", "become", "begin"})
#: Verbs under which a clause is not asserted: wishes, plans, opinions, reports of others.
HEDGING = frozenset(
    """want plan hope consider think believe guess suppose wish need try propose suggest
    decide expect intend aim prefer like love hate say claim mention argue doubt wonder ask
    imagine assume recommend discuss debate evaluate explore""".split()  # noqa: SIM905
)
#: Auxiliaries that hedge or defer a clause.
MODALS = frozenset(
    [
        "might",
        "may",
        "could",
        "should",
        "would",
        "must",
        "can",
        "shall",
        "ought",
        "will",
        "wo",
        "'ll",
    ]
)
#: Subordinators that make a clause a condition or a time reference, not a statement.
CONDITIONS = frozenset(
    ["if", "unless", "whether", "once", "when", "whenever", "until", "before", "after"]
)
#: Relations that hold many values at once ("the app talks to the gateway and to auth").
MANY_VERBS = frozenset(
    """talk connect integrate call send support include contain use depend know like enjoy
    speak read publish subscribe listen feed""".split()  # noqa: SIM905
)
_MANY_PASSIVE = frozenset({"use", "include", "support", "contain", "connect", "integrate"})
#: Verbs that name no relation worth keeping on their own ("have", "get", "do", "be" ...).
LIGHT_VERBS = frozenset(
    """be have get do make take give let see look seem feel say tell know think go come
    keep put find happen need want hear thank care mean miss hope wish guess appreciate
    understand bring help express show inspire remind encourage admire celebrate share ask
    remember forget worry sound love enjoy lift reset pass fall stand hit""".split()  # noqa: SIM905
)
#: Prepositions of time and manner: their objects are not values.
NOT_VALUE_PREPS = frozenset(
    [
        "for",
        "during",
        "since",
        "until",
        "after",
        "before",
        "around",
        "about",
        "like",
        "than",
        "per",
        "despite",
    ]
)
#: Where something comes from: "keys come from Vault", "traffic comes in through the LB".
_ORIGINS = frozenset(["from", "through", "via"])
_PRONOUNS = frozenset(
    """it this that these those they them he she him her everything anything something
    nothing all everyone someone one there here what which who you ya yourself""".split()  # noqa: SIM905
)
_FIRST = frozenset(["i", "we", "me", "us"])
_DATEISH = re.compile(r"\d{1,2}/\d{1,2}(?:/\d{2,4})?")
_CLOCK = re.compile(r"\d{1,2}(?::\d{2})?(?:am|pm)?|noon|midnight", re.IGNORECASE)
_NOUNS = frozenset({"NOUN", "PROPN"})
_NOT_VALUES = frozenset({"ADP", "ADV", "PART", "DET", "CCONJ", "SCONJ", "AUX", "INTJ", "PUNCT"})
#: What a value's head never is: a description ("tough"), a degree ("much"), a verb.
_NOT_NAMES = _NOT_VALUES | {"ADJ", "VERB", "PRON"}
_MODIFIERS = frozenset(
    {"compound", "amod", "nmod", "nummod", "poss", "det", "quantmod", "npadvmod"}
)
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj"})
#: Present-tense verb tags: a phrasal light verb states a fact only in the present.
_PRESENT = frozenset(["VBZ", "VBP"])
_WEEKDAYS = frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
)
_TIME_WORDS = frozenset(
    """now today yesterday tomorrow morning evening night week month year quarter day
    sprint monday tuesday wednesday thursday friday saturday sunday weekend while time
    moment""".split()  # noqa: SIM905
)

#: Plural nouns a count of which is a span of time or an errand, not a thing's parts
#: ("I have 3 meetings today"; docs/concepts/text.md#counts).
NOT_PARTS = frozenset(
    """seconds minutes hours days weeks months years times questions meetings calls things
    ideas issues problems kids children""".split()  # noqa: SIM905
)


def third_person(lemma: str) -> str:
    """The present third-person form of a verb's lemma: "go" → "goes", "run" → "runs".

    >>> [third_person(v) for v in ("go", "run", "cost", "push", "carry", "be", "have")]
    ['goes', 'runs', 'costs', 'pushes', 'carries', 'is', 'has']
    """
    irregular = {"be": "is", "have": "has", "do": "does", "go": "goes"}
    if lemma in irregular:
        return irregular[lemma]
    if lemma.endswith(("s", "x", "z", "ch", "sh", "o")):
        return lemma + "es"
    if len(lemma) > 1 and lemma.endswith("y") and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ies"
    return lemma + "s"
