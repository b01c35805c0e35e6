"""Log forms: commit messages and clipped statements, read as the statements they stand for.

See docs/concepts/text.md#log-formats. A conventional commit ("feat(api): ...") says what the
commit did ("migrate X to B" is "we migrated X to B"); a list item or commit subject that
drops its verb ("job queue backed by RabbitMQ") or its article ("default log level is INFO")
reads as the full sentence.
"""

from __future__ import annotations

import re

__all__ = ["commit_statement", "unclip"]

#: A conventional commit's type and scope: "feat(api): ", "ci: ", "refactor(search)!: "
#: ("CI: GitHub Actions" in capitals is a setting).
_COMMIT = re.compile(
    r"^(?!(?-i:[A-Z]{2,}):)(?:feat|fix|chore|ci|docs|refactor|perf|build|style|revert|test|deps)"
    r"(?:\((?P<scope>[^)]{0,40})\))?!?:\s*(?=\S)",
    re.IGNORECASE,
)
#: A commit body without a verb that names what a part is done with: "structured logs via
#: logrus", "rate limiting using Redis" (docs/concepts/text.md#log-formats).
_DONE_WITH = re.compile(r"(?i)^[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}\s+(?:via|using)\s+(?P<v>\S+)$")
#: A scope that names a part of a system: a word or two, no path or list.
_SCOPE = re.compile(r"[a-z][\w-]*(?: [a-z][\w-]*)?")
#: The verbs a commit message starts with, in the imperative, and their past tense.
_COMMIT_VERBS = {
    # a change or an ending: what the commit did
    **{
        v: v + "d"
        for v in [
            "move",
            "migrate",
            "replace",
            "upgrade",
            "downgrade",
            "retire",
            "deprecate",
            "remove",
            "change",
        ]
    },
    **{v: v + "ed" for v in ["switch", "port"]},
    **{"drop": "dropped", "swap": "swapped", "bump": "bumped", "rewrite": "rewrote"},
    # a state the commit sets up: what now holds ("index products in Elasticsearch")
    **{
        v: v
        for v in [
            "use",
            "store",
            "index",
            "host",
            "deploy",
            "send",
            "run",
            "build",
            "sign",
            "serve",
            "route",
            "log",
            "cache",
        ]
    },
}


#: Commit verbs that tend the code rather than set something up ("fix typo in README").
_UPKEEP_VERBS = frozenset(
    """fix add update clean refactor tidy format test document improve tweak adjust rename
    revert merge wip correct simplify optimise optimize polish reword prepare release handle
    allow avoid ensure make support enable disable skip ignore check guard log print""".split()  # noqa: SIM905
)
_SETUP_PREP = re.compile(r"(?i)\b(?:on|in|with|through|via|using|into|onto|behind|to)\b")


#: Determiners and pronouns: a phrase that starts with one is no bare thing.
_NOT_A_THING = (
    "a|an|our|my|your|their|his|her|its|this|that|these|those|it|they|we|i|you|he|she|there|"
    "here|what|who|which"
)
#: A lower-case noun phrase without a determiner, then "is"/"are" ("default log level is X").
_BARE_THING = re.compile(
    rf"^(?!(?:the|{_NOT_A_THING}|everything|everyone|nothing|all|each|every|some|no)\b)"
    r"[a-z][\w-]*(?:\s+[a-z][\w-]*){1,3}\s+(?:is|are)\s"
)


#: A noun phrase, a past participle and a value, with no verb: "job queue backed by RabbitMQ".
_CLIPPED_PASSIVE = re.compile(
    rf"(?i)^(?!(?:{_NOT_A_THING})\b)(?P<np>(?:the\s+)?[a-z][\w-]*(?:\s+(?!(?:is|are|was|"
    r"were|be|been|being|has|have|had|gets|got|and|or)\b)[a-z][\w-]*){0,3}?)"
    r"\s+(?P<v>[a-z]+ed|built|run|written|kept|held|sent|made|done|hosted)\s+"
    r"(?:by|on|in|with|via|through|behind)\s+\S"
)
#: Participles that state a change or an ending: their own forms read them.
_NOT_CLIPPED = frozenset(
    """moved migrated switched replaced swapped upgraded downgraded bumped changed dropped
    removed deprecated retired ported renamed merged closed fixed added updated released
    shipped started stopped ended used""".split()  # noqa: SIM905
)


def _as_statement(body: str) -> str:
    """A commit's imperative as a statement: "migrate X to B" → "we migrated X to B".

    A verb not in the table that sets something up with a value ("provision the queue on
    Amazon MQ", "bundle the web app with webpack") reads as what we do now.
    """
    first, _, rest = body.partition(" ")
    verb = first.casefold()
    past = _COMMIT_VERBS.get(verb)
    if past and rest:
        return f"we {past} {rest}"
    if rest and verb.isalpha() and verb not in _UPKEEP_VERBS and _SETUP_PREP.search(rest):
        return f"we {verb} {rest}"
    return body


def commit_statement(text: str) -> str | None:
    """A conventional commit as a statement, or ``None`` when ``text`` is not one.

    A body without a verb that names a tool ("via logrus") says what the scope uses:

    >>> commit_statement("feat(logging): structured logs via logrus")
    'the logging uses logrus'
    """
    commit = _COMMIT.match(text)
    if not commit:
        return None
    body = text[commit.end() :]
    scope = (commit.group("scope") or "").strip()
    done_with = _DONE_WITH.match(body.rstrip("."))
    first = body.split()[0].casefold()
    if done_with and _SCOPE.fullmatch(scope) and first not in {*_COMMIT_VERBS, *_UPKEEP_VERBS}:
        return f"the {scope} uses {done_with.group('v')}"
    return _as_statement(body)


#: "Log level defaults to info", "the region defaults to eu-west-1".
_DEFAULTS_TO = re.compile(
    r"(?i)^(?:the\s+)?(?P<thing>[a-z][\w-]*(?:\s+[\w-]+){0,2}?)\s+defaults?\s+to\s+(?P<v>\S+(?:\s+\S+)?)$"
)


def unclip(text: str) -> str:
    """A clipped passive or a bare thing as a full sentence; other text unchanged.

    >>> unclip("job queue backed by RabbitMQ"), unclip("default log level is INFO")
    ('the job queue is backed by RabbitMQ', 'the default log level is INFO')
    """
    default = _DEFAULTS_TO.match(text)
    if default:  # "Log level defaults to info": the default log level is info
        return f"the default {default.group('thing').casefold()} is {default.group('v')}"
    clipped = _CLIPPED_PASSIVE.match(text)
    if clipped and clipped.group("v").casefold() not in _NOT_CLIPPED:
        be = " are " if clipped.group("np").casefold().endswith("s") else " is "
        text = clipped.group("np") + be + text[clipped.end("np") :].lstrip()
    return "the " + text if _BARE_THING.match(text) else text
