"""What the rules share: the subject pattern, the subject of a clause, job titles, tool names."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphmem.text import lexicon

if TYPE_CHECKING:
    from graphmem.text.reader import Reader

_MULTI = frozenset({"uses", "likes", "member_of", "knows", "depends_on", "works_on", "owns"})
_S = r"^(?P<s>.*?)\s*\b"


def _subj(r: Reader, raw: str | None, previous: str | None, speaker: str | None) -> str | None:
    if raw is None or not raw.strip() or raw.strip().casefold() in ("and", "but", "then"):
        # "bumped the staging db to postgres 16": chat without a subject is the speaker's own
        found = previous or (
            r.first_person(speaker) if raw is not None and not raw.strip() else None
        )
    else:
        found = r.subject(raw, speaker)
    r.grammatical = found
    return found


def _tool_word(value: str) -> bool:
    """Whether a value is a tool's name ("npm", "cron"): one word, not an English inflection."""
    return (
        " " not in value
        and len(value) >= 2
        and not re.search(r"(?:ed|ing|ly|ness|tion)$", value)
        and value.casefold() not in _NOT_TOOLS
    )


_NOT_TOOLS = frozenset(
    """it them this that these those everything something anything nothing time money
    tabs spaces less more much many some all both less fewer most""".split()  # noqa: SIM905
)


#: What a piece of software called "X manager" manages ("our password manager is Bitwarden").
_SOFTWARE_MANAGED = frozenset(
    """password passwords package packages secret secrets window file task display version
    download boot certificate credential credentials key keys dependency node""".split()  # noqa: SIM905
)


def _is_role(text: str, *, loose: bool = False) -> bool:
    """A job title: "CTO", "release manager", "head of design", "chair of the board".

    ``loose`` (after "as a"): any word ending like a job ("geologist", "technician").
    """
    words = [w for w in re.split(r"[\s/]+", text.casefold()) if w]
    if not words or len(words) > 5:
        return False
    if any(
        w in ("a", "an") or (w.endswith("ing") and w not in lexicon.ROLE_MODIFIERS) for w in words
    ):
        return False  # "hiring a CTO" is no title
    if "of" in words:  # "head of design", "VP of Sales", "chair of the board"
        head = words[: words.index("of")]
        return bool(head) and head[-1] in lexicon.ROLES | {"chair", "dean", "vp"}
    if words[0] in ("vp", "head", "director", "chief") and len(words) > 1:
        return True
    if words[-1] in lexicon.ROLES and len(words) <= 3:
        # "password manager", "package manager": software named like a job
        return not (len(words) > 1 and words[-1] == "manager" and words[-2] in _SOFTWARE_MANAGED)

    return (
        loose
        and len(words) <= 3
        and words[-1] not in _NO_JOBS
        and bool(re.search(r"(?:ist|er|or|ian|ant|ent|ect|eer|ive)$", words[-1]))
    )


#: Words that end like a job and name none ("a member at Crux", "a regular at Joe's").
_NO_JOBS = frozenset(
    """member customer user regular subscriber visitor guest patient passenger resident player
    supporter fan follower beginner newcomer believer lover reader viewer listener""".split()  # noqa: SIM905
)
