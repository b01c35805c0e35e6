"""A Python agent loop on graphmem: recall before answering, then remember and log the session."""

import graphmem as gm
from graphmem.timeutil import ManualClock


def answer(question: str, context: str) -> str:
    """Stands in for the LLM call: a real agent sends the context and the question to its model."""
    return f"(answer to {question!r} from {len(context.splitlines())} line(s) of memory)"


clock = ManualClock("2026-06-01T09:00:00Z")  # a real agent leaves the clock out: the wall clock
with gm.open("agent.kuzu", clock=clock) as mem:
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    turns = [
        ("What does the api run on?", "The api now runs on Go.", "2026-06-01"),
        ("Which runtime does the api use today?", None, "2026-06-02"),
    ]
    for question, learned, day in turns:
        clock.set(f"{day}T09:00:00Z")
        context = mem.context(question, budget_tokens=200)  # 1. recall before answering
        print(context)
        print(answer(question, context))
        if learned:  # 2. remember what the user taught
            result = mem.remember(learned, subject="api")
            print(result.decision, "-", result.fact)
        # 3. log the session: its mentions feed hot_topics, its facts are extracted
        transcript = f"{question}\n{learned or 'The answer came from memory.'}"
        logged = mem.add_session(
            transcript, started_at=day, title=question, session_id=f"chat-{day}"
        )
        print("session", logged.id, sorted(logged.mentions))
    print([t.topic for t in mem.hot_topics(limit=3)])
