"""The rules that turn one clause into claims, and their order.

A rule is called as ``rule(reader, clause, negated, previous_subject, speaker)`` on a clause
whose negation is already taken out (:func:`graphmem.text.cleanup.denegate`). It returns the
clause's claims (``[]``: the clause matched but says nothing usable), or ``None`` when it does
not match; the reader (:meth:`graphmem.text.reader.Reader._clause`) tries :data:`RULES` in
order and the first rule that matches a clause gives its claims.

Rules, in order (S subject, O object, T thing, A old value, B new value):

1. :func:`~graphmem.text.rules.change._replaced`: "S replaced A with B", "A was replaced by B",
   "B replaced A", "S swapped A for B";
2. :func:`~graphmem.text.rules.change._ownership`: "ownership of T moved to B", "S took over T
   [from A]", "S handed T over to B";
3. :func:`~graphmem.text.rules.copular._schedule`: days a thing recurs on, "PE is on Mondays
   and Thursdays", "dnd is every other Friday at 7", "PE moves to Tuesdays" (``schedule``);
4. :func:`~graphmem.text.rules.events.event_date_claims`: when a one-off thing happens, "the
   dinner is Saturday 30th, 6pm", "Noor's checkup is booked for Oct 12", "the install got moved
   to Monday the 15th" (the thing's slot; a move replaces its value);
5. :func:`~graphmem.text.rules.change._change`: change with old and new value, "S moved/
   migrated/switched/... [T] from A to B", and without the old value, "S migrated/ported/
   rewrote/upgraded/bumped/switched/moved [T] to/in/onto B";
6. :func:`~graphmem.text.rules.change._amount`: a quantity that moved, "T went up to B",
   "T rose to B", "Raising T to B";
7. :func:`~graphmem.text.rules.verbs._verbs`: port ("listens on port N"), works_at, lives_in,
   located_in, written_in, runs_on, hosted_on, deploys_with, reports_to, owner ("Grace owns
   billing" is billing's owner), team_lead ("Bob leads the platform team"), member_of,
   married_to, prefers, likes, uses, version;
8. :func:`~graphmem.text.rules.negative._negative_verbs`: "S left O" (works_at), "moved out of
   O" (lives_in), "dropped / got rid of / retired / deprecated O" (whatever the subject's
   current facts say about O);
9. :func:`~graphmem.text.rules.copular._update_mine`: "update my email, it is O", "set our
   timezone to O";
10. :func:`~graphmem.text.rules.copular._copular`: copular and possessive, "our/the/X's Z is O"
    and "O is our/X's Z" (the slot Z becomes the predicate, e.g. ``embeddings_provider``), "the
    Z of T is O", "B is the new Z [of T]", "the new Z is B", "Z is now B", and role ("Alice is
    the CTO", "was promoted to VP of Sales");
11. :func:`~graphmem.text.rules.copular._bare_copula`: "S is V" with a typed value and no slot
    ("Emma is 8", "it is 10.20.0.15"): a change placed by the subject's slots of V's kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graphmem.text.rules.change import _amount, _change, _ownership, _replaced
from graphmem.text.rules.copular import _bare_copula, _copular, _hours, _schedule, _update_mine
from graphmem.text.rules.events import event_date_claims
from graphmem.text.rules.negative import _negative_verbs
from graphmem.text.rules.verbs import _verbs

if TYPE_CHECKING:
    from graphmem.text.claims import Claim
    from graphmem.text.reader import Reader

__all__ = ["RULES", "Rule"]

Rule = Callable[["Reader", str, bool, "str | None", "str | None"], "list[Claim] | None"]

#: The rules, in the order they are tried on a clause (the first that matches wins).
RULES: tuple[Rule, ...] = (
    _replaced,
    _ownership,
    _schedule,
    event_date_claims,
    _change,
    _amount,
    _hours,
    _verbs,
    _negative_verbs,
    _update_mine,
    _copular,
    _bare_copula,
)
