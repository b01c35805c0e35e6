"""The stories of the seeded conversations (docs/benchmarks.md#episodic-recall).

Each story is one thing that happens to a person over a conversation (adopting a pet, a new job,
a move, a niece born...): the turns where they say it, the questions a reader would ask about it
(in several wordings), and on-topic talk around it that answers nothing. Written from what chats
between friends look like; nothing here reads a public set or graphmem's ranking.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

RELATIVES = ["Rosa", "Ben", "Nadia", "Theo", "Ivy", "Omar", "Clara", "Felix"]
KIDS = ["Mia", "Leo", "Ava", "Noah", "Zoe", "Eli", "Lily", "Max"]
PET_NAMES = ["Biscuit", "Pepper", "Mochi", "Juniper", "Waffles", "Olive", "Toast", "Clover"]
CITIES = ["Denver", "Austin", "Portland", "Boston", "Chicago", "Seattle", "Atlanta", "Phoenix"]
WHEN = ["yesterday", "last weekend", "last Saturday", "a few days ago", "last week", "on Sunday"]


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


@dataclass
class Plant:
    """A turn a story puts in a session (``tag`` names it for the questions)."""

    session: int
    speaker: str
    text: str
    tag: str
    reply: bool = True  # the other person reacts right after
    cue: str = ""  # the other person's lead-in right before, when the talk leads there


@dataclass
class Ask:
    """A question about tagged turns, in one or several wordings (see :func:`_wording`)."""

    text: str | list[str]
    category: str
    tags: list[str]
    old: list[str] = field(default_factory=list)
    kind: str = ""


@dataclass
class Story:
    """What one story adds to a conversation: planted turns, questions and echoes."""

    plants: list[Plant] = field(default_factory=list)
    asks: list[Ask] = field(default_factory=list)
    # (speaker, text, earliest session): on-topic talk that answers nothing
    echoes: list[tuple[str, str, int]] = field(default_factory=list)
    pastime: str = ""  # the tag of a turn where the person takes up something new


@dataclass
class Who:
    """A person and the words others use for them."""

    name: str
    they: str  # she / he

    @property
    def their(self) -> str:
        return {"she": "her", "he": "his"}[self.they]

    @property
    def them(self) -> str:
        return {"she": "her", "he": "him"}[self.they]


def _sessions(rng: random.Random, n: int, k: int, lo: int = 0) -> list[int]:
    return sorted(rng.sample(range(lo, n), k))


# -- stories ------------------------------------------------------------------------------------
# Each takes (rng, me, other, number of sessions) and returns a Story. Question words are chosen
# the way a reader would ask, not copied from the turn: a reader says "adopt", the turn "rescue".

StoryFn = Callable[[random.Random, Who, Who, int], Story]


def pet(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    kind, young, breed = rng.choice(
        [
            ("dog", "pup", rng.choice(["beagle mix", "lab mix", "scruffy terrier"])),
            ("cat", "kitten", rng.choice(["tabby", "ginger", "tuxedo"])),
        ]
    )
    name = rng.choice(PET_NAMES)
    a, b = _sessions(rng, n, 2)
    when = rng.choice(WHEN)
    got = rng.choice(
        [
            f"Big news, we brought home a little {breed} {young} from the rescue {when}! "
            "Super shy so far, hiding under the couch.",
            f"So {when} I finally did it, signed the papers at the shelter and came home "
            f"with a {kind}, a {breed}. Still can't believe it.",
            f"We adopted a {young} {when}! A tiny {breed}, the shelter said she was the last "
            "one of the litter.",
        ]
    )
    named = rng.choice(
        [
            f"{name} chewed through another pair of my sneakers this morning, "
            "I can't even be mad at her.",
            f"{name} slept on my feet all night again. Best decision I've made this year.",
            f"Guess who learned to open the treat drawer? {name}, of course. Little genius.",
        ]
    )
    s = Story(
        plants=[Plant(a, me.name, got, "got"), Plant(b, me.name, named, "named")],
        asks=[
            Ask(
                (
                    [
                        f"What is the name of the {kind} {me.name} adopted?",
                        f"What did {me.name} call {me.their} new {kind}?",
                        f"What did {me.name} name the {young} from the shelter?",
                    ]
                ),
                "multi-hop",
                ["got", "named"],
            ),
            Ask(
                (
                    [
                        f"When did {me.name} adopt a {kind}?",
                        f"When did {me.name} get a {young} from the shelter?",
                        f"When did {me.name} bring home a new pet?",
                    ]
                ),
                "temporal",
                ["got"],
            ),
            Ask(
                (
                    [
                        f"What breed is {me.name}'s {kind}?",
                        f"What breed is the {young} {me.name} got from the shelter?",
                    ]
                ),
                "single-hop",
                ["got"],
            ),
        ],
    )
    s.echoes += [
        (o.name, f"How is the little {young} settling in?", a),
        (o.name, f"My neighbor wants to adopt a {kind} too, any tips?", 0),
        (me.name, f"The vet said {name} is healthy, just needs a bit more exercise.", b),
        (me.name, f"I never thought I'd be a {kind} person, but here we are.", a),
        (o.name, f"Send me more pictures of the {kind}, please!", a),
        (me.name, "Sorry, I was at the park for an hour, someone wouldn't stop playing.", a),
        (o.name, f"We had a {kind} when I was little, I still miss him.", 0),
        (me.name, f"Took {name} to the park {{day}}, {{feeling}}.", b),
        (o.name, f"The shelter near me is having an adoption day, so many cute {kind}s.", 0),
        (me.name, f"Having a pet changes everything, my whole routine is about the {kind} now.", a),
        (o.name, f"Does {name} get along with other animals?", b),
    ]
    return s


def painting(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    subject = rng.choice(
        ["the lake at sunrise", "a field of sunflowers", "my grandmother's old house", "a fox"]
    )
    (a,) = _sessions(rng, n, 1)
    text = rng.choice(
        [
            f"Finished a painting of {subject} last night, it's drying on the kitchen table.",
            f"Here's my latest piece: {subject}, in acrylics. Took me three weekends!",
            f"I did {subject} for my mom's birthday in watercolor, she cried when she saw it.",
            f"I painted {subject} this week, first time I'm proud of something I made.",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, text, "art")],
        asks=[
            Ask(
                (
                    [
                        f"What did {me.name} paint recently?",
                        f"What is the subject of {me.name}'s latest painting?",
                    ]
                ),
                "single-hop",
                ["art"],
            )
        ],
        echoes=[
            (me.name, "I need new brushes, mine are falling apart.", 0),
            (o.name, "Are you still painting these days?", 0),
            (me.name, "Art class got cancelled this week, so no painting for me.", 0),
            (o.name, "I tried painting once, it was a total disaster haha.", 0),
            (me.name, "Painting is the only thing that really calms me down.", 0),
            (me.name, "I went to an art show {day}, so much talent in one room.", 0),
            (o.name, "You should sell your paintings, honestly.", a),
            (me.name, "Started sketching a new painting {day}, just rough shapes for now.", a),
        ],
    )


JOBS = [
    ("the hospital", "nurse"),
    ("the bakery", "baker"),
    ("the library", "librarian"),
    ("a law firm", "paralegal"),
    ("the city museum", "guide"),
    ("a tech startup", "designer"),
    ("the high school", "teacher"),
]


def job(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    (p1, r1), (p2, r2) = rng.sample(JOBS, 2)
    a, b = _sessions(rng, n, 2)
    old = rng.choice(
        [
            f"Things at {p1} are fine, the {r1} shifts are long but I like my team.",
            f"Another twelve hours at {p1} today. Being a {r1} is not for the faint-hearted.",
        ]
    )
    new = rng.choice(
        [
            f"I handed in my notice at {p1}! Starting my new job as a {r2} at {p2} on Monday.",
            f"First week as a {r2} at {p2} is done, already so much better than {p1}.",
            f"Guess who got the {r2} position at {p2}? I start next month!",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, old, "old", reply=False), Plant(b, me.name, new, "new")],
        asks=[
            Ask(
                (
                    [
                        f"Where does {me.name} work now?",
                        f"What is {me.name}'s current job?",
                        f"What new position did {me.name} get?",
                    ]
                ),
                "single-hop",
                ["new"],
                old=["old"],
                kind="changed",
            ),
            Ask(
                ([f"When did {me.name} change jobs?", f"When did {me.name} start at {p2}?"]),
                "temporal",
                ["new"],
            ),
        ],
        echoes=[
            (me.name, "Work has been crazy this week, I barely had time to eat.", 0),
            (o.name, "How's work going?", 0),
            (me.name, "My boss asked me to stay late again, ugh.", 0),
            (o.name, "My job is so boring lately, I need a change.", 0),
            (o.name, "How are you liking the new job?", b),
            (me.name, "One of my coworkers brought donuts, small wins.", 0),
            (o.name, "Do you think you'll stay in that job long term?", 0),
            (me.name, "Had a big meeting at work {day}, {feeling}.", 0),
            (o.name, "My sister just got a new job too, everyone is changing jobs lately.", 0),
        ],
    )


def moving(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    c1, c2 = rng.sample(CITIES, 2)
    a, b = _sessions(rng, n, 2)
    old = rng.choice(
        [
            f"Still loving life in {c1}, the coffee here is unreal.",
            f"{c1} in the fall is the best, I walk to the river every evening.",
        ]
    )
    new = rng.choice(
        [
            f"We moved! The movers dropped off the last boxes today, {c2} already feels like home.",
            f"Signed the lease! We're packing everything up and heading to {c2} next week.",
            f"First night in the new apartment in {c2}, sleeping on a mattress on the floor.",
            f"We're finally making the move to {c2}! Signed the lease today.",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, old, "old", reply=False), Plant(b, me.name, new, "new")],
        asks=[
            Ask(
                (
                    [
                        f"Which city does {me.name} live in now?",
                        f"Where is {me.name} living at the moment?",
                        f"Where did {me.name} move to?",
                    ]
                ),
                "single-hop",
                ["new"],
                old=["old"],
                kind="changed",
            ),
            Ask(
                ([f"When did {me.name} relocate?", f"When did {me.name} move to {c2}?"]),
                "temporal",
                ["new"],
            ),
        ],
        echoes=[
            (me.name, "The rent here keeps going up, it's ridiculous.", 0),
            (o.name, "I'd love to come visit your place someday.", 0),
            (me.name, "Still haven't unpacked the kitchen, we live on takeout.", b),
            (o.name, f"Have you ever been to {rng.choice(CITIES)}? I hear it's nice.", 0),
            (o.name, "How's the new neighborhood?", b),
            (me.name, "Found a great little coffee shop near where I live {day}.", 0),
            (o.name, "We keep talking about moving somewhere cheaper, but it's so much work.", 0),
            (me.name, "I miss my old city sometimes, the people mostly.", b),
        ],
    )


def class_(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    act, other_act = rng.sample(["pottery", "salsa", "cooking", "photography", "woodworking"], 2)
    (a,) = _sessions(rng, n, 1)
    when = rng.choice(WHEN)
    text = rng.choice(
        [
            f"Took my first {act} class {when}, I was terrible but it was so fun.",
            f"{_cap(when)} I went to a {act} workshop at the community center, loved it.",
            f"So I signed up for {act} lessons and had the first one {when}!",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, text, "class")],
        pastime="class",
        asks=[
            Ask(f"When did {me.name} take a {act} class?", "temporal", ["class"]),
        ],
        echoes=[
            (o.name, f"My cousin does {act}, she loves it.", 0),
            (me.name, f"I want to try {other_act} next, it looks fun.", 0),
            (o.name, f"Are you still going to {act}?", a),
            (me.name, f"The {act} teacher is so patient with me.", a),
            (o.name, "I keep meaning to take a class, but I never find the time.", 0),
            (me.name, f"Practiced some {act} at home {{day}}, {{feeling}}.", a),
        ],
    )


def trip(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    place = rng.choice(
        ["the Grand Canyon", "Yosemite", "the coast of Maine", "Banff", "the Smoky Mountains"]
    )
    (a,) = _sessions(rng, n, 1)
    text = rng.choice(
        [
            f"Just got back from four days camping at {place} with the kids, we saw a bear!",
            f"We spent last week roughing it at {place}, no phone signal, pure bliss.",
            f"Back from camping at {place}! The kids want to live in the tent now.",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, text, "trip")],
        asks=[
            Ask(
                ([f"When did {me.name} go camping?", f"When did {me.name} visit {place}?"]),
                "temporal",
                ["trip"],
            ),
            Ask(
                [
                    f"Where did {me.name} take the family camping?",
                    f"Where did {me.name} go with the kids?",
                ],
                "single-hop",
                ["trip"],
            ),
        ],
        echoes=[
            (me.name, "We love camping, I wish we could go more often.", 0),
            (o.name, "Camping is not my thing, I need a real bed haha.", 0),
            (me.name, "The kids keep asking when we're going on another trip.", a),
            (o.name, "We're planning a family trip this summer, maybe the beach.", 0),
            (me.name, "Bought a new tent, the old one leaked everywhere.", 0),
            (o.name, "Where should we go for a family vacation? I need ideas.", 0),
            (me.name, "Took the kids to the lake {day}, {feeling}.", 0),
        ],
    )


def niece(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    sib, sname = rng.choice([("sister", rng.choice(RELATIVES[::2])), ("brother", "Ben")])
    baby = rng.choice(KIDS[::2])
    a, b = _sessions(rng, n, 2)
    when = rng.choice(WHEN)
    auntie = "an aunt" if me.they == "she" else "an uncle"
    born = rng.choice(
        [
            f"I'm {auntie} now! My {sib} {sname} had a baby girl {when}.",
            f"My {sib} {sname} had a baby girl {when}! Everyone is doing great.",
            f"{sname} called at 3am {when}, the baby came early! A little girl, tiny but healthy.",
        ]
    )
    later = rng.choice(
        [
            f"{baby} smiled at me for the first time when I visited {sname} on Sunday, "
            "my heart melted.",
            f"Babysat {baby} for the afternoon so {sname} could nap. She has my nose!",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, born, "born"), Plant(b, me.name, later, "later")],
        asks=[
            Ask(
                (
                    [
                        f"What is the name of {me.name}'s niece?",
                        f"What is the name of {sname}'s baby girl?",
                    ]
                ),
                "multi-hop",
                ["born", "later"],
            ),
            Ask(
                (
                    [
                        f"When did {me.name} become {auntie}?",
                        f"When did {me.name}'s {sib} have a baby?",
                    ]
                ),
                "temporal",
                ["born"],
            ),
        ],
        echoes=[
            (me.name, f"{sname} and I used to fight so much when we were kids.", 0),
            (o.name, "How's your family doing?", 0),
            (me.name, "My parents are visiting next month, I need to clean.", 0),
            (o.name, "Babies are so much work, I don't know how people do it.", a),
            (me.name, f"{sname} is exhausted but so happy.", a),
            (me.name, f"Went to see {sname} and the baby {{day}}, {{feeling}}.", a),
            (o.name, "My cousin is expecting a baby too, it's baby season!", 0),
            (o.name, f"Tell {sname} congratulations from me!", a),
        ],
    )


def gift(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    giver = rng.choice(["brother", "sister", "dad", "partner"])
    item = rng.choice(["a vintage record player", "a pair of hiking boots", "a telescope"])
    (a,) = _sessions(rng, n, 1)
    text = rng.choice(
        [
            f"Look what my {giver} surprised me with when I turned thirty: {item}!",
            f"My {giver} went all out for my birthday this year, {item}. I had no idea.",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, text, "gift")],
        asks=[
            Ask(
                (
                    [
                        f"What did {me.name} receive for {me.their} birthday?",
                        f"What present did {me.name} get from {me.their} {giver}?",
                    ]
                ),
                "single-hop",
                ["gift"],
            )
        ],
        echoes=[
            (o.name, "Happy belated birthday, by the way!", a),
            (me.name, "I never know what to get people as presents.", 0),
            (o.name, f"My {giver} always forgets my birthday, classic.", 0),
            (me.name, "We had a small birthday dinner for me, just close friends.", a),
            (o.name, "What do you want for your birthday this year?", 0),
        ],
    )


def reading(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    title = rng.choice(
        ["'Becoming'", "'The Night Circus'", "'Educated'", "'Project Hail Mary'", "'Circe'"]
    )
    (a,) = _sessions(rng, n, 1)
    text = rng.choice(
        [
            f"I'm halfway through {title} and I can't put it down.",
            f"Best book I've read in years: {title}. Finished it in two nights.",
            f"Stayed up way too late finishing {title}, that ending!",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, text, "book")],
        asks=[
            Ask(
                ([f"What novel did {me.name} read?", f"Which book did {me.name} love?"]),
                "single-hop",
                ["book"],
            )
        ],
        echoes=[
            (o.name, "Any book recommendations? I need something new.", 0),
            (me.name, "I haven't been reading much lately, too tired.", 0),
            (o.name, "I joined a book club but I never finish the book in time.", 0),
            (me.name, "Read a few chapters in the bath {day}, {feeling}.", 0),
            (o.name, "What are you reading these days?", 0),
        ],
    )


def injury(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    hurt, ask = rng.choice(
        [
            ("sprained my ankle", "sprain an ankle"),
            ("broke my wrist", "break a wrist"),
            ("injured my back", "injure the back"),
        ]
    )
    (a,) = _sessions(rng, n, 1)
    when = rng.choice(WHEN)
    text = rng.choice(
        [
            f"I {hurt} on the trail {when}, so I'm stuck on the couch for a while.",
            f"Well, I {hurt} at the gym {when}. The doctor says six weeks of rest.",
            f"First real injury of my life: I {hurt} {when} playing soccer with my cousins.",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, text, "hurt")],
        asks=[
            Ask(
                ([f"What injury did {me.name} suffer?", f"How did {me.name} get injured?"]),
                "single-hop",
                ["hurt"],
            ),
            Ask(
                ([f"When did {me.name} get hurt?", f"When did {me.name} {ask}?"]),
                "temporal",
                ["hurt"],
            ),
        ],
        echoes=[
            (o.name, "Hope you feel better soon! Take it easy.", a),
            (me.name, "My knee has been bothering me after long walks.", 0),
            (o.name, "Is the pain any better?", a),
            (me.name, "Physical therapy {day}, {feeling}.", a),
            (o.name, "I hurt my shoulder last year, it took forever to heal.", 0),
        ],
    )


def music(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    inst = rng.choice(["violin", "cello", "piano", "guitar"])
    teacher = rng.choice(["Ms. Okafor", "Mr. Lindqvist", "Mrs. Haddad"])
    a, b = _sessions(rng, n, 2)
    start = rng.choice(
        [
            f"I started learning the {inst} this month, it sounds like a dying cat so far.",
            f"Bought a secondhand {inst} and booked weekly lessons, wish me luck!",
        ]
    )
    later = rng.choice(
        [
            f"{teacher} says I'm ready to play at the spring recital, I'm terrified!",
            f"{teacher} made me practice scales for the whole hour again today.",
        ]
    )
    return Story(
        plants=[Plant(a, me.name, start, "start"), Plant(b, me.name, later, "teacher")],
        pastime="start",
        asks=[
            Ask(
                (
                    [
                        f"Who teaches {me.name} to play an instrument?",
                        f"Who is {me.name}'s {inst} teacher?",
                    ]
                ),
                "multi-hop",
                ["start", "teacher"],
            ),
            Ask(
                (
                    [
                        f"What instrument is {me.name} learning?",
                        f"What is {me.name} taking lessons in?",
                    ]
                ),
                "single-hop",
                ["start"],
            ),
        ],
        echoes=[
            (o.name, "Play me something next time we see each other!", a),
            (me.name, "Practice was rough today, my fingers hurt.", a),
            (o.name, "I always wanted to learn an instrument.", 0),
            (me.name, "Music has been such a good outlet for me.", 0),
            (me.name, "My lessons got moved to Thursdays, which is annoying.", a),
            (o.name, "We went to a concert {day}, {feeling}.", 0),
        ],
    )


def car(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    c1, c2 = rng.sample(["Civic", "Corolla", "Subaru", "Jeep", "Prius"], 2)
    a, b = _sessions(rng, n, 2)
    return Story(
        plants=[
            Plant(a, me.name, f"My old {c1} broke down on the highway again.", "old", False),
            Plant(b, me.name, f"Finally traded the {c1} in, I'm driving a {c2} now!", "new"),
        ],
        asks=[
            Ask(
                (
                    [
                        f"What vehicle does {me.name} have now?",
                        f"What car is {me.name} driving these days?",
                        f"What does {me.name} drive now?",
                    ]
                ),
                "single-hop",
                ["new"],
                old=["old"],
                kind="changed",
            )
        ],
        echoes=[
            (o.name, "Traffic was a nightmare this morning.", 0),
            (me.name, "Gas prices are insane right now.", 0),
            (o.name, "We should do a road trip sometime!", 0),
            (me.name, "Drove to my parents' place {day}, {feeling}.", 0),
            (o.name, "My car needs new tires, so expensive.", 0),
        ],
    )


def charity(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    cause = rng.choice(["the children's hospital", "the animal shelter", "cancer research"])
    (a,) = _sessions(rng, n, 1)
    when = rng.choice(WHEN)
    return Story(
        pastime="run",
        plants=[
            Plant(
                a,
                me.name,
                rng.choice(
                    [
                        f"Ran my first 5k {when}, all the money goes to {cause}!",
                        f"{_cap(when)} I did the fun run for {cause}. Legs are dead.",
                    ]
                ),
                "run",
            )
        ],
        asks=[
            Ask(
                (
                    [
                        f"When did {me.name} take part in a race for charity?",
                        f"When did {me.name} run the 5k?",
                    ]
                ),
                "temporal",
                ["run"],
            ),
            Ask(
                (
                    [
                        f"Which cause did {me.name} raise money for?",
                        f"Who did {me.name}'s 5k raise money for?",
                        f"Which cause did {me.name} run for?",
                    ]
                ),
                "single-hop",
                ["run"],
            ),
        ],
        echoes=[
            (me.name, "Running has been my therapy lately.", 0),
            (o.name, "I could never run that far, respect.", 0),
            (me.name, "Went for a short jog this morning, felt great.", 0),
            (o.name, "We donated some old clothes to charity {day}.", 0),
            (me.name, "Thinking about signing up for a half marathon next.", a),
        ],
    )


# open-domain: an inference; the turns share (almost) no word with the question
TRAITS = [
    (
        "Would {n} enjoy a holiday in the wilderness?",
        [
            "Nothing beats waking up in a tent by the river.",
            "Hiked twelve miles into the wilderness today, sore but happy.",
        ],
    ),
    (
        "Is {n} likely a religious person?",
        [
            "Sunday service was lovely, the choir sang my favorite hymn.",
            "I pray every night before bed, it keeps me grounded.",
        ],
    ),
    (
        "Would {n} be considered an ally of the LGBTQ community?",
        [
            "Marched at the pride parade with my friends, so much love in one place.",
            "Our LGBTQ book club meets at my place now, I love hosting it.",
        ],
    ),
    (
        "Would {n} prefer a big party or a quiet night?",
        [
            "Honestly tea and a puzzle is my idea of a perfect Friday.",
            "Crowds drain me, I left the party early again.",
        ],
    ),
    (
        "What career might {n} pursue?",
        [
            "Spent Saturday at the youth center helping the teens with homework, best part of "
            "my week.",
            "I've been looking at counseling programs, maybe it's time to go back to school.",
        ],
    ),
    (
        "Does {n} care about the environment?",
        [
            "We started composting and biking everywhere, trying to cut our footprint.",
            "Spent the morning picking up plastic on the beach with volunteers.",
        ],
    ),
]


def _trait(rng: random.Random, me: Who, o: Who, n: int, pool: list[tuple[str, list[str]]]) -> Story:
    q, turns = rng.choice(pool)
    ss = _sessions(rng, n, len(turns))
    return Story(
        plants=[
            Plant(s, me.name, t, f"t{i}") for i, (s, t) in enumerate(zip(ss, turns, strict=True))
        ],
        asks=[Ask(q.format(n=me.name), "open-domain", [f"t{i}" for i in range(len(turns))])],
        echoes=[(o.name, "You always seem to know what you want, I admire that.", 0)],
    )


def trait(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    return _trait(rng, me, o, n, TRAITS[:3])


def leaning(rng: random.Random, me: Who, o: Who, n: int) -> Story:
    return _trait(rng, me, o, n, TRAITS[3:])


# what the other person says that leads to a story's turn (asked half of the time)
CUES = {
    "pet": {"got": "Did you end up going to the shelter?", "named": "How's the new pet?"},
    "painting": {"art": "Have you been painting lately?"},
    "job": {"old": "How's work these days?", "new": "Any news on the job front?"},
    "moving": {"old": "How do you like where you live?", "new": "So, are you moving or not?"},
    "class_": {"class": "Did you do anything fun lately?"},
    "trip": {"trip": "How was the trip?"},
    "niece": {"born": "How's your family doing?", "later": "How is the baby?"},
    "gift": {"gift": "How was your birthday?"},
    "reading": {"book": "Read anything good lately?"},
    "injury": {"hurt": "Are you okay? You sounded off last time."},
    "music": {"start": "Any new hobbies?", "teacher": "How are the lessons going?"},
    "car": {"old": "Is the car fixed yet?", "new": "Did you sort out the car situation?"},
    "charity": {"run": "How was your weekend?"},
}


STORIES: list[StoryFn] = [
    pet,
    painting,
    job,
    moving,
    class_,
    trip,
    niece,
    gift,
    reading,
    injury,
    music,
    car,
    charity,
    trait,
    leaning,
]
