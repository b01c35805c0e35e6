"""Negative verbs: "S left O" (works_at), "moved out of O" (lives_in), "dropped O".

"left / quit O [for B]", "stepped down as O", "T has no Z", "moved out of O", "dropped / got rid
of / retired / deprecated O" (whatever the subject's current facts say about O).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphmem.text.claims import Claim
from graphmem.text.names import is_name_like
from graphmem.text.rules.common import _S, _is_role, _subj

if TYPE_CHECKING:
    from graphmem.text.reader import Reader


def _negative_verbs(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    m = re.match(_S + r"(?:left|quit)\s+for\s+(?P<b>.+)$", c, re.IGNORECASE)
    if m and not neg:  # "Zainab left for Canva"
        subject, new = _subj(r, m.group("s"), prev, spk), r.value(m.group("b"))
        if subject and new and is_name_like(new):
            return [Claim(subject, None, new, change=True, hint="works_at")]
    m = re.match(
        _S + r"(?:left|has left|have left|quit|resigned from|was laid off from|"
        r"was fired from|departed|exited)\s+(?P<o>.+?)(?:\s+for\s+(?P<b>.+))?$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:
        subject, obj = _subj(r, m.group("s"), prev, spk), r.value(m.group("o"))
        if not subject or not obj or obj.casefold() in ("company", "the company", "job", "team"):
            return [Claim(subject, "works_at", None, polarity=False)] if subject else []
        if not is_name_like(obj) and not r.chat:
            return []
        new = r.value(m.group("b")) if m.group("b") else None
        if new and is_name_like(new):  # "Eoin left Dublin for Galway"
            return [Claim(subject, None, new, replaces=obj, change=True)]
        # "left Acme", "left Dublin", "left the platform team": whatever holds that value
        return [Claim(subject, None, obj, polarity=False, hint="works_at")]
    m = re.match(
        _S + r"(?:stepped down|resigned|retired|was removed|stepped away)\s+(?:as|from)\s+"
        r"(?:the\s+|our\s+|their\s+)?(?P<o>.+)$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:  # "Beatrix stepped down as chair of the board"
        subject, obj = (
            _subj(r, m.group("s"), prev, spk),
            r.value(m.group("o"), keep_prepositions=True),
        )
        if subject and obj and _is_role(obj, loose=True):
            return [Claim(subject, "role", obj, polarity=False)]
        return [Claim(subject, None, obj, polarity=False)] if subject and obj else []
    m = re.match(
        r"^(?P<t>.+?)\s+(?:has|have)\s+no\s+(?P<z>[\w -]+?)"
        r"(?:\s+(?:for now|yet|anymore|at the moment|"
        r"right now))?$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:  # "the payments team has no lead for now"
        thing = r.subject(m.group("t"), spk)
        if thing and len(m.group("z").split()) <= 3:
            return [Claim(thing, m.group("z"), None, polarity=False)]
    m = re.match(_S + r"(?:moved out of|moved away from)\s+(?P<o>.+)$", c, re.IGNORECASE)
    if m and not neg:
        subject, obj = _subj(r, m.group("s"), prev, spk), r.value(m.group("o"))
        return [Claim(subject, "lives_in", obj, polarity=False)] if subject and obj else []
    m = re.match(
        _S + r"(?:dropped|got rid of|retired|deprecated|sunset|sunsetted|decommissioned|"
        r"ditched|abandoned|removed|turned off|shut down|phased out|killed)\s+(?P<o>.+)$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:
        subject, obj = _subj(r, m.group("s"), prev, spk), r.value(m.group("o"))
        return [Claim(subject, None, obj, polarity=False)] if subject and obj else []
    return None
