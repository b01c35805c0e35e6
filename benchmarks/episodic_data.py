"""Seeded long conversations for the episodic recall benchmark (docs/benchmarks.md#episodic-recall).

Written from what chats between two friends look like, never from a public set: nothing here
reads LoCoMo or anything derived from it, and nothing is shaped after graphmem's ranking.

A conversation is two friends talking over two dozen dated sessions (500-odd turns). Each person
lives through a dozen **stories** (:mod:`benchmarks.episodic_stories`: adopting a pet, a new job,
a move, a niece born, a trip, a class...). A story plants a few turns in chosen sessions and asks
questions about them the way a reader of the whole chat would, in LoCoMo's four categories:

- **single-hop**: one turn answers, in other words ("What did Gina receive for her birthday?"
  against "Look what my dad surprised me with when I turned thirty: a telescope!");
- **multi-hop**: two or more turns, often sessions apart ("What is the name of Gina's niece?"
  needs "my sister Rosa had a baby girl" and, later, "Mia smiled at me"; "What new hobbies did
  Gina pick up?" needs every turn where she took one up);
- **temporal**: "When did ...": the turn says "yesterday" or "last week", the answer is the
  session's date;
- **open-domain**: an inference from turns that share almost no word with the question
  ("Would Gina enjoy a holiday in the wilderness?" against "Nothing beats waking up in a tent");

and a fifth, **changed**, that LoCoMo lacks: a value that changed ("Where does Gina work now?"),
the newest turn the evidence and the older ones kept as ``old`` (reported apart, not in
"overall"). A question reuses a word of its evidence, often in another form, with chance
:data:`REUSE`, as people who read a turn and ask about it do; otherwise it uses none.

Around the stories, sessions are filled the way chats are: greetings and goodbyes, everyday
chatter (combined from parts, so no two turns are the same), reactions, the friend's lead-in
question before news half of the time, the talk going on about the news for a turn or two, and
**echoes**: on-topic turns of every story by both people (the dog, work, painting, the family)
that share the questions' words without answering them, each said once.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field

from benchmarks.episodic_stories import CUES, STORIES, Ask, Plant, Story, Who, _cap

PEOPLE = [
    ("Caroline", "she"),
    ("Melanie", "she"),
    ("Jonathan", "he"),
    ("Gina", "she"),
    ("Tobias", "he"),
    ("Priya", "she"),
    ("Samuel", "he"),
    ("Eleanor", "she"),
    ("Marcus", "he"),
    ("Aisha", "she"),
    ("Daniel", "he"),
    ("Lucia", "she"),
]
CATEGORIES = ("multi-hop", "temporal", "open-domain", "single-hop")  # LoCoMo's four
CHANGED = "changed"  # not one of LoCoMo's: asked about a value that changed; not in "overall"

OPENERS = [
    "Hey! How have you been?",
    "Hi! It's been a while, what's new with you?",
    "Hey you! Sorry I went quiet, life got busy.",
    "Good to hear from you! How was your week?",
]
CLOSERS = [
    "Talk soon! Take care of yourself.",
    "Gotta run, but let's catch up again soon!",
    "Bye! Say hi to everyone for me.",
    "Okay, I should get some sleep. Talk later!",
]
SMALL_TALK = [
    "Haha, totally.",
    "That's so true.",
    "I know what you mean, honestly.",
    "Aww, that's lovely to hear.",
    "Thanks, that really means a lot to me.",
    "Anyway, enough about me. How are things on your end?",
    "Not much, just trying to keep up with everything.",
    "Same old, same old. Busy week, but a good one.",
    "I've been so tired lately, I think I need a proper break.",
    "The weather has been gorgeous here, we've been outside a lot.",
    "It's been raining nonstop, I'm going a bit stir crazy.",
    "I'm really glad we keep in touch like this.",
    "Wow, I didn't expect that at all.",
    "That sounds like a lot. How are you holding up?",
    "You always know how to cheer me up.",
    "I'm so happy for you, you deserve it.",
    "Yeah, it was a crazy few weeks, but things are calmer now.",
    "Honestly I just spent the weekend resting and catching up on shows.",
    "I keep telling myself I'll get more organized, but here we are.",
    "We had friends over for dinner, it went late but it was fun.",
    "Did you see the news this morning? Wild times.",
    "I've been trying to drink more water and sleep earlier, slowly getting there.",
    "That's such a good point, I never thought of it that way.",
    "Totally agree, it's the little things that make a difference.",
    "Ha, you would say that!",
    "Sorry it took me a while to reply, it's been hectic.",
    "Oh no, that sounds frustrating. I hope it gets better.",
    "Let me know if there's anything I can do to help.",
    "I made a big pot of soup and it lasted all week.",
    "My phone died in the middle of the day, total chaos.",
    "I finally cleaned out the garage, you'd be proud of me.",
]


# everyday chatter, combined so that no two turns say exactly the same thing
DAYS = [
    "this morning",
    "after work",
    "over the weekend",
    "last night",
    "over lunch",
    "on my day off",
    "yesterday evening",
]
DOINGS = [
    "tried a new ramen place downtown",
    "went to the farmers market",
    "binge-watched a whole season of a cooking show",
    "cleaned the entire apartment",
    "had coffee with an old coworker",
    "fixed the leaky sink myself",
    "walked around the park for an hour",
    "reorganized my closet",
    "baked banana bread",
    "caught up with my cousin on the phone",
    "watched the sunset from the roof",
    "finally did my taxes",
    "went to a friend's birthday dinner",
    "took a very long nap",
    "planted tomatoes on the balcony",
    "got lost looking for a new bakery",
    "played board games with the neighbors",
    "went to see a movie",
    "made pancakes for everyone",
    "repainted the bathroom door",
    "helped a friend move a couch",
    "went to a trivia night at the pub",
    "spent hours at the hardware store",
    "visited my parents",
]
FEELINGS = [
    "it was exactly what I needed",
    "honestly not bad at all",
    "and now I'm exhausted",
    "it made my whole week",
    "I'd totally do it again",
    "it was a bit of a disaster",
    "it felt good to slow down",
    "I laughed the whole time",
]
QUESTIONS = [
    "How about you, anything fun planned?",
    "What have you been up to?",
    "Do you have plans for the weekend?",
    "How's everyone at home?",
    "Have you tried anything new lately?",
    "How are you feeling these days?",
]
ANSWERS = [
    "That sounds lovely!",
    "Ha, that's so you.",
    "Oh nice, I've been wanting to do that.",
    "Sounds like a good time.",
    "I need to do that more often.",
    "Love that.",
]


def chatter(rng: random.Random) -> str:
    """A turn of everyday talk about nothing the questions ask about."""
    day, doing, feeling = rng.choice(DAYS), rng.choice(DOINGS), rng.choice(FEELINGS)
    form = rng.randrange(5)
    if form == 0:
        return f"{_cap(day)} I {doing}, {feeling}."
    if form == 1:
        return f"I {doing} {day}. {rng.choice(QUESTIONS)}"
    if form == 2:
        return f"{rng.choice(ANSWERS)} I {doing} {day} too, {feeling}."
    if form == 3:
        return f"{rng.choice(ANSWERS)} {rng.choice(QUESTIONS)}"
    return " ".join(rng.sample(SMALL_TALK, rng.choice((1, 2))))


# what people add after news: feelings, plans, no facts
ELABORATIONS = [
    "It's been a rollercoaster, honestly.",
    "I'll send you pictures later.",
    "I still can't quite believe it.",
    "My family thinks I'm a bit crazy, but I'm so happy about it.",
    "It took a lot of courage, but I'm glad I did it.",
    "I've been wanting to tell you for ages!",
    "It's the kind of thing that reminds me why I love my life.",
    "Honestly, it was a lot more emotional than I expected.",
    "We'll see how it goes, fingers crossed.",
    "I keep thinking about it every day since.",
    "Life has been full of surprises lately.",
    "I wish you could have been there with me.",
]
REACTIONS = [
    "Wow, that's amazing! How do you feel about it?",
    "No way! Tell me everything.",
    "That's huge, congratulations!",
    "Oh I love that for you.",
    "Really? That's so exciting!",
    "Aw, that sounds wonderful.",
    "Good for you, seriously.",
    "Ha, I can totally picture it.",
]


@dataclass
class Question:
    """A question, its LoCoMo-style category and its evidence turn ids (``D3:7``)."""

    text: str
    category: str
    evidence: list[str]
    kind: str = ""
    old: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    """Two speakers, sessions ``(n, started_at, [(speaker, text)])`` and questions."""

    speakers: tuple[str, str]
    sessions: list[tuple[int, dt.datetime, list[tuple[str, str]]]]
    questions: list[Question]


# -- assembling a conversation --------------------------------------------------------------------


# Who reads a turn and asks about it mostly reuses one of its words, often in another form
# ("paint" for "painted"), and sometimes none: about three questions in four do.
REUSE = 0.75
_STOP = frozenset(
    re.findall(
        r"\w+",
        "what when where which who whom whose why how does did do is are was were have has had "
        "the a an of to in on at for from with and or now these days new get got",
    )
)


def _stems(text: str) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z]+", text.lower()):
        if len(w) < 4 or w in _STOP:
            continue
        for end in ("ing", "ed", "es", "s", "e"):
            if w.endswith(end) and len(w) - len(end) >= 4:
                w = w[: -len(end)]
                break
        out.add(w[:4])
    return out


def _wording(rng: random.Random, ask: Ask, evidence: list[str], names: set[str]) -> str:
    """One wording of ``ask``: one that reuses a word of the evidence with chance REUSE."""
    if isinstance(ask.text, str):
        return ask.text
    said = set().union(*(_stems(t) for t in evidence)) - names
    reuse = [q for q in ask.text if (_stems(q) - names) & said]
    other = [q for q in ask.text if q not in reuse]
    if reuse and (not other or rng.random() < REUSE):
        return rng.choice(reuse)
    return rng.choice(other)


Echo = tuple[str, str, int, int]  # speaker, text, earliest session, story


def _echo(rng: random.Random, echo: Echo) -> str:
    return echo[1].format(day=rng.choice(DAYS), feeling=rng.choice(FEELINGS))


def _thread(rng: random.Random, echoes: list[Echo], speaker: str, story: int, s: int) -> str:
    """A turn that carries on story ``story``'s thread, by ``speaker`` (``""``: none left)."""
    on = [e for e in echoes if e[3] == story and e[0] == speaker and e[2] <= s]
    if not on:
        return ""
    echo = rng.choice(on)
    echoes.remove(echo)
    return _echo(rng, echo)


def _filler(rng: random.Random, speaker: str, echoes: list[Echo], s: int, share: float) -> str:
    """One turn of talk by ``speaker`` in session ``s``: an echo (each said once) or chatter."""
    # after the session of the news it follows (in that session only once told: see _thread)
    mine = [e for e in echoes if e[0] == speaker and (e[2] < s or e[2] == 0)]
    if mine and rng.random() < share:
        echo = rng.choice(mine)
        echoes.remove(echo)
        text = _echo(rng, echo)
        if rng.random() < 0.7:
            return f"{text} {chatter(rng)}"
        return text
    text = chatter(rng)
    if rng.random() < 0.5:
        more = chatter(rng)
        return text if more == text else f"{text} {more}"
    return text


def make_conversation(
    seed: int, n_sessions: int = 24, stories_each: int = 13, echo_share: float = 0.6
) -> Conversation:
    """One conversation between two friends, fully determined by ``seed``."""
    rng = random.Random(seed)
    (an, ap), (bn, bp) = rng.sample(PEOPLE, 2)
    a, b = Who(an, ap), Who(bn, bp)
    stories: list[tuple[Who, Story]] = []
    for me, other in ((a, b), (b, a)):
        for fn in rng.sample(STORIES, stories_each):
            st = fn(rng, me, other, n_sessions)
            for p in st.plants:
                if rng.random() < 0.5:
                    p.cue = CUES.get(fn.__name__, {}).get(p.tag, "")
            stories.append((me, st))
    # dates: a session every 5-25 days, at some hour of the day
    day = dt.datetime(2023, 1, 1, 12, tzinfo=dt.timezone.utc) + dt.timedelta(
        days=rng.randrange(365)
    )
    dates = []
    for _ in range(n_sessions):
        day += dt.timedelta(days=rng.randrange(5, 26), minutes=rng.randrange(-240, 240))
        dates.append(day)
    # a story comes up again and again, each time in other words (no sentence said twice)
    echoes: list[Echo] = list(
        {e[1]: (*e, k) for k, (_, st) in enumerate(stories) for e in st.echoes}.values()
    )
    planted: list[list[tuple[int, Plant]]] = [[] for _ in range(n_sessions)]
    for k, (_, st) in enumerate(stories):
        for p in st.plants:
            planted[p.session].append((k, p))
    sessions = []
    where: dict[tuple[int, str], str] = {}  # (story, tag) -> turn id
    for s in range(n_sessions):
        length = rng.randrange(16, 30)
        todo = list(planted[s])
        rng.shuffle(todo)
        speaker = rng.choice((a.name, b.name))
        turns: list[tuple[str, str]] = [(speaker, rng.choice(OPENERS))]

        while len(turns) < length - 1 or todo:
            speaker = b.name if turns[-1][0] == a.name else a.name
            other = b.name if speaker == a.name else a.name
            due = [x for x in todo if (x[1].speaker == speaker) != bool(x[1].cue)]
            if due and (rng.random() < 0.3 or len(turns) >= length - 1):
                k, p = due[0]
                todo.remove(due[0])
                if p.cue:
                    turns.append((speaker, p.cue))
                    speaker, other = other, speaker
                text = p.text
                if rng.random() < 0.35:
                    text = f"{rng.choice(['Oh, and guess what?', 'Anyway!', 'Okay, news.'])} {text}"
                if rng.random() < 0.6:
                    text = f"{text} {rng.choice(ELABORATIONS)}"
                turns.append((speaker, text))
                where[(k, p.tag)] = f"D{s + 1}:{len(turns)}"
                if p.reply:
                    # news is talked through: the friend reacts or asks on, the teller goes on
                    reaction = rng.choice(REACTIONS)
                    if rng.random() < 0.5:
                        reaction = _thread(rng, echoes, other, k, s) or reaction
                    turns.append((other, reaction))
                    more = _thread(rng, echoes, speaker, k, s) if rng.random() < 0.6 else ""
                    if more:
                        turns.append((speaker, more))
            else:
                turns.append((speaker, _filler(rng, speaker, echoes, s, echo_share)))
        turns.append((b.name if turns[-1][0] == a.name else a.name, rng.choice(CLOSERS)))
        sessions.append((s + 1, dates[s], turns))
    questions = []
    texts = {(k, p.tag): p.text for k, (_, st) in enumerate(stories) for p in st.plants}
    names = _stems(f"{a.name} {b.name}")
    # multi-hop over several stories: what did each person take up? (LoCoMo-style list question)
    for who in (a, b):
        tags = [(k, st.pastime) for k, (me, st) in enumerate(stories) if me is who and st.pastime]
        if len(tags) >= 2:
            said = [texts[t] for t in tags]
            wording = [
                f"What activities has {who.name} taken up?",
                f"What new hobbies did {who.name} pick up?",
                f"Which pastimes has {who.name} tried lately?",
            ]
            questions.append(
                Question(
                    _wording(rng, Ask(wording, "multi-hop", []), said, names),
                    "multi-hop",
                    [where[t] for t in tags],
                )
            )
    for k, (_, st) in enumerate(stories):
        for q in st.asks:
            said = [texts[(k, t)] for t in q.tags]
            questions.append(
                Question(
                    _wording(rng, q, said, names),
                    CHANGED if q.kind == "changed" else q.category,
                    [where[(k, t)] for t in q.tags],
                    q.kind,
                    [where[(k, t)] for t in q.old],
                )
            )
    return Conversation((a.name, b.name), sessions, questions)
