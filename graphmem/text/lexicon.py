"""Word lists the text rules read (pure data).

Kept apart from the rules so that a reader can see, in one place, which words change what the
pipeline does: the cues that make a sentence a question, a plan or past history (never a
supersession), the negation cues, the job titles, and the value categories that let a change
statement find the one slot it can fill ("migrated the API to Go": Go is a language or
framework, so it can replace Laravel but not a port number).
"""

from __future__ import annotations

import re

__all__ = [
    "CATEGORIES",
    "is_speaker",
    "plan_tier",
    "DISCOURSE",
    "FAMILY_SLOTS",
    "HYPOTHETICAL",
    "PAST",
    "ROLES",
    "SLOT_STOPWORDS",
    "category",
]

#: Leading words that carry no content ("fyi the staging db is on postgres 13").
DISCOURSE = (
    "fyi",
    "btw",
    "quick context",
    "some context",
    "for context",
    "context",
    "background",
    "small update",
    "minor update",
    "quick note",
    "big news",
    "news flash",
    "side note",
    "ugh",
    "lol",
    "fwiw",
    "tl;dr",
    "tldr",
    "by the way",
    "heads up",
    "heads-up",
    "just so you know",
    "quick update",
    "status update",
    "note",
    "news",
    "psa",
    "for the record",
    "ok",
    "okay",
    "no",
    "nope",
    "small correction",
    "quick correction",
    "so",
    "well",
    "oh",
    "oh and",
    "also fyi",
    "hey",
    "hi",
    "hello",
    "yes",
    "yeah",
    "yep",
    "right",
    "great",
    "good news",
    "as you know",
    "anyway",
    "anyways",
    "remember",
    "reminder",
    "just a reminder",
    "got it",
    "noted",
    "sure",
    "thanks",
    "thank you",
    "cool",
)

#: Words that make a clause a question, plan, wish or hypothesis: it never changes a fact.
HYPOTHETICAL = frozenset(
    """if unless whether suppose supposing imagine assuming hypothetically maybe perhaps
    probably possibly might could would should shall will 'll won't wouldn't shouldn't
    couldn't gonna wanna planning planned intend intends intending propose
    proposed proposal considering consider considered thinking wonder wondering hope hoping
    hopefully want wants wanted aim aims aiming evaluate evaluating trial trialing piloting
    prototype prototyping exploring explore discussing discussed debating debate maybe
    eventually someday soon tomorrow next upcoming need needs must let's lets try trying
    tried attempt attempting evaluated trialed trialled piloted prototyped explored
    investigated""".split()  # noqa: SIM905
)
#: Phrases of the same kind that are more than one word.
HYPOTHETICAL_PHRASES = (
    # "plan" alone is often a noun ("the Team plan costs $20"): only the verb is a cue
    "plan to",
    "plans to",
    "plan on",
    "plans on",
    "plan is to",
    "plan was to",
    "going to",
    "about to",
    "decided not to",
    "decided against",
    "decided to",
    "in case",
    "what if",
    "in theory",
    "not sure",
    "would like",
    "ought to",
    "has to",
    "have to",
    "is supposed to",
    "are supposed to",
    "in the future",
    "at some point",
    "for a while we considered",
    "instead of moving",
)

#: Phrases of reported history: true once, not now ("he used to work at Oracle").
PAST = (
    "used to",
    "previously",
    "formerly",
    "originally",
    "before joining",
    "before that",
    "before moving",
    "at the time",
    "in the past",
    "once upon",
    "years ago",
    "had been",
    "was once",
    "were once",
    "long ago",
    "initially",
    "at first",
)

#: The relation a migration to a value of a family implies when nothing is stored
#: ("we migrated the billing service to Go": written in Go;
#: docs/concepts/text.md#resolution-against-the-graph).
FAMILY_SLOTS = {
    "language": "written_in",
    "cloud": "hosted_on",
    "deploy": "runs_on",
    "database": "database",
    "ci": "ci",
}
#: Job titles: "Alice is the CTO" is a role, "Carol is the new team lead" a slot.
ROLES = frozenset(
    """ceo cto cfo coo cio ciso cpo cmo vp president founder co-founder cofounder chairman
    chairwoman chair director engineer developer designer architect analyst scientist
    researcher manager intern consultant contractor advisor accountant recruiter sre devops
    pm tpm em owner principal fellow editor writer lawyer doctor nurse teacher professor
    student admin administrator operator specialist coordinator officer associate partner
    secretary treasurer head""".split()  # noqa: SIM905
)
ROLE_MODIFIERS = frozenset(
    """senior junior staff principal lead chief associate assistant deputy interim acting
    new former software backend frontend front-end back-end fullstack full-stack data ml ai
    platform infrastructure security product project program engineering marketing sales
    design qa test mobile ios android web cloud site reliability solutions research
    general technical executive managing regional""".split()  # noqa: SIM905
)

#: Slot words that are not attributes ("our goal is speed", "the problem is latency").
SLOT_STOPWORDS = frozenset(
    """goal goals plan plans problem problems issue issues idea ideas thing things question
    questions reason reasons point answer best worst same first last only rest weather
    mood feeling hope fear concern worry bottleneck priority focus mistake bug risk result
    outcome decision agreement consensus story truth fact deal catch trick key secret
    difference situation status quo""".split()  # noqa: SIM905
)

#: Categories of common values, so a change statement can find the slot it fills.
CATEGORIES: dict[str, frozenset[str]] = {
    "language": frozenset(
        """go golang rust python java kotlin scala typescript javascript ruby php elixir
        erlang haskell c c++ c# csharp swift clojure ocaml zig perl lua dart r julia
        fortran cobol nim crystal f#""".split()  # noqa: SIM905
    ),
    "framework": frozenset(
        """laravel django flask fastapi rails express nestjs spring next.js nextjs nuxt
        react vue angular svelte gin echo fiber phoenix symfony asp.net .net dotnet node
        node.js nodejs deno bun actix axum rocket tornado starlette sinatra hapi koa
        remix gatsby ember electron flutter""".split()  # noqa: SIM905
    ),
    "database": frozenset(
        """postgres postgresql mysql mariadb sqlite mongodb mongo redis cassandra dynamodb
        cockroachdb cockroach oracle mssql sqlserver elasticsearch opensearch clickhouse
        snowflake bigquery redshift neo4j kuzu duckdb couchdb firestore supabase
        planetscale timescaledb memcached etcd""".split()  # noqa: SIM905
    ),
    "cloud": frozenset(
        """aws gcp azure heroku vercel netlify fly.io digitalocean linode hetzner
        cloudflare render railway ovh vultr on-prem""".split()  # noqa: SIM905
    ),
    "ci": frozenset(
        """jenkins circleci travis travisci buildkite teamcity bamboo drone
        github-actions gitlab-ci""".split()  # noqa: SIM905
    ),
    "deploy": frozenset(
        """docker kubernetes k8s helm nomad ansible terraform pulumi chef puppet
        argocd argo flux docker-compose compose swarm ecs eks gke aks openshift
        capistrano""".split()  # noqa: SIM905
    ),
    "llm": frozenset(
        """openai anthropic cohere mistral gemini claude gpt-4 gpt-4o llama voyage
        huggingface ollama""".split()  # noqa: SIM905
    ),
}
_PHRASES = {
    "github actions": "ci",
    "gitlab ci": "ci",
    "docker compose": "deploy",
    "docker swarm": "deploy",
    "google cloud": "cloud",
    "amazon web services": "cloud",
    "ruby on rails": "framework",
    "spring boot": "framework",
    "sql server": "database",
}


#: Words that fill one of a person's slots on their own ("I'm vegan": diet).
ATTRIBUTES = {
    **dict.fromkeys(
        """vegan vegetarian pescatarian pescetarian keto paleo omnivore flexitarian
        gluten-free dairy-free lactose-free halal kosher""".split(),  # noqa: SIM905
        "diet",
    ),
}
_TIMEZONE = re.compile(
    r"(?i)^(?:(?:eastern|pacific|central|mountain|atlantic|alaska|hawaii)"
    r"(?: standard| daylight)? time|(?:utc|gmt)(?:\s?[+-]\s?\d{1,2}(?::?\d{2})?)?|"
    r"[ecmp][sd]?t|cet|cest|eet|wet|bst|ist|jst|kst|aest|aedt|nzst|sgt|hkt|"
    r"[A-Za-z]+/[A-Za-z_]+(?:/[A-Za-z_]+)?)$"
)


def attribute(value: str) -> str | None:
    """The slot a value fills on its own: "vegan" → diet, "Pacific Time" → timezone.

    >>> attribute("vegan"), attribute("Pacific Time"), attribute("Europe/Berlin"), attribute("Go")
    ('diet', 'timezone', 'timezone', None)
    """
    low = " ".join(value.casefold().split())
    if low in ATTRIBUTES:
        return ATTRIBUTES[low]
    return "timezone" if _TIMEZONE.match(low) else None


#: Plans that are no subscription: "meal plan", "the migration plan", "a treatment plan".
_NOT_TIERS = frozenset(
    """meal floor action project migration treatment care lesson lessons training study
    exercise rollout backup recovery test release business marketing game battle escape
    seating savings retirement workout diet birth new old current different better cheaper
    same other another this that which what whole entire""".split()  # noqa: SIM905
)
#: Names of a plan said without the word "plan" ("Vandelay is on Enterprise").
TIERS = frozenset(
    """free basic starter standard pro professional premium plus team teams business
    enterprise growth scale unlimited family individual student essentials advanced
    ultimate""".split()  # noqa: SIM905
)
_TIER = re.compile(r"(?i)^(?:the\s+|our\s+|my\s+|a\s+|an\s+)?((?:[\w$.+-]+\s+){1,3})(?:plan|tier)$")


def plan_tier(value: str) -> bool:
    """Whether a value names a subscription plan or tier ("the pro plan", "Business tier").

    The word before "plan" must name a tier: "the meal plan" or "a migration plan" is no
    plan anyone is subscribed to, and a lower-case "business plan" is a document
    (docs/concepts/text.md#plans).

    >>> plan_tier("the pro plan"), plan_tier("Business tier"), plan_tier("Team plan")
    (True, True, True)
    >>> plan_tier("the meal plan"), plan_tier("business plan"), plan_tier("plan")
    (False, False, False)
    """
    m = _TIER.match(" ".join(value.split()))
    if m is None:
        return False
    last = m.group(1).split()[-1]
    return last.casefold() not in _NOT_TIERS or last[:1].isupper()


#: A cloud region or zone: AWS "eu-west-1" (and its zones, "us-east-1a"), GCP "us-central1",
#: "europe-west4-b", Azure "westeurope", "eastus2".
_REGION = re.compile(
    r"(?:(?:us|eu|ap|sa|ca|me|af|il|mx|cn)-(?:gov-)?(?:north|south)?(?:east|west|central)?-\d+[a-z]?"
    r"|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-"
    r"(?:north|south)?(?:east|west|central)?\d+(?:-[a-z])?"
    r"|(?:(?:north|south|west)?central|(?:north|south)?(?:east|west))(?:us|europe|asia)\d?)"
)


def category(value: str) -> str | None:
    """Return the category of a value ("Go" → language), or ``None`` when unknown.

    Numbers are ``number``, e-mail addresses ``email``, version strings ``version``, cloud
    regions ``region``.

    >>> category("Go"), category("Postgres 13"), category("8080"), category("Acme")
    ('language', 'database', 'number', None)
    >>> category("eu-west-1"), category("us-central1"), category("westeurope")
    ('region', 'region', 'region')
    """
    low = " ".join(value.casefold().split())
    if not low:
        return None
    if low.isdigit():
        return "number"
    if _REGION.fullmatch(low):
        return "region"
    if "@" in low and "." in low.split("@")[-1]:
        return "email"
    if low.lstrip("v").replace(".", "").isdigit() and "." in low:
        return "version"
    if low in _PHRASES:
        return _PHRASES[low]
    if attribute(low):
        return attribute(low)
    words = low.split()
    for n in (len(words), 1):
        head = " ".join(words[:n])
        for name, members in CATEGORIES.items():
            if head in members:
                return name
        if head in _PHRASES:
            return _PHRASES[head]
    return None


#: Slot words in "our Z is ..." / "X's Z is ..." that mean a general relation, used when the
#: memory's ontology does not know the word itself (the user's vocabulary wins).
SLOT_PREDICATES = {
    "employer": "works_at",
    "company": "works_at",
    "workplace": "works_at",
    "job": "works_at",
    "home": "lives_in",
    "home city": "lives_in",
    "city": "lives_in",
    "residence": "lives_in",
    "manager": "reports_to",
    "boss": "reports_to",
    "lead": "team_lead",
    "team lead": "team_lead",
    "tech lead": "team_lead",
    "owner": "owner",
    "maintainer": "owner",
    "deploy tool": "deploys_with",
    "deployment tool": "deploys_with",
    "email": "email",
    "email address": "email",
    "e-mail": "email",
    "phone": "phone",
    "phone number": "phone",
    "number": "phone",
    "mobile": "phone",
    "cell": "phone",
    "title": "role",
    "job title": "role",
    "position": "role",
    "role": "role",
    "language": "written_in",
    "programming language": "written_in",
    "host": "hosted_on",
    "hosting": "hosted_on",
    "hosting provider": "hosted_on",
    "port": "port",
    "version": "version",
    "spouse": "married_to",
    "wife": "married_to",
    "husband": "married_to",
    "partner": "married_to",
    "timezone": "timezone",
    "time zone": "timezone",
    "birthday": "birthday",
    "preference": "prefers",
    "favorite": "prefers",
    "favourite": "prefers",
}

#: A thing that is one of the owner's settings: one or two lower-case words and a head noun
#: naming a setting ("default region", "email provider", "billing plan").
SLOT_THING = re.compile(
    r"(?:[a-z][a-z-]*\s+){0,2}(?:region|zone|provider|vendor|plan|tier|registry|timezone|"
    r"domain|cdn|dns|broker|queue|bus|backend|runtime|cadence|schedule|venue|room|budget|"
    r"quota|retention|limit)"
)

#: Relations whose values are people: a technical change ("migrated X to Go") never fills them.
PEOPLE_SLOTS = frozenset(
    {"owner", "team_lead", "reports_to", "married_to", "role", "email", "phone", "knows"}
)


#: Speaker labels of transcripts that mean the user or the agent itself.
SELF_SPEAKERS = frozenset({"user", "me", "human", "assistant", "ai", "bot", "agent", "system"})
#: A first-person word: the writer speaks of themselves or their team ("we moved ...").
FIRST_PERSON = re.compile(r"(?i)\b(?:we|our|us|i|my|me)\b")
_NOT_SPEAKERS = frozenset(
    """correction update note fyi psa news reminder todo warning important context summary
    background decision result results status question answer edit erratum idea ideas
    proposal proposals draft brainstorm joke rumor rumour wishlist option options agenda
    todo goal goals plan plans retro standup minutes changelog subject re fwd fw cc bcc
    date from to sent also ps""".split()  # noqa: SIM905
) | frozenset(
    # a setting's name in a list ("Queue: SQS", "1) Auth: Auth0"): a key, not who speaks
    # (docs/concepts/text.md#log-formats)
    """queue auth db database cache ci cd cdn dns hosting host storage search email payments
    monitoring logging logs metrics tracing errors analytics python node region runtime
    frontend backend orm framework stack infra deploys deploy deployment backups secrets cron
    scheduler broker gateway proxy ingress lint linter formatter bundler build registry wiki
    chat tickets crm timezone editor os browser orchestration containers llm embeddings
    observability alerts alerting paging on-call uptime flags experiments mobile web api
    language cloud k8s kubernetes postgres mysql redis java go rust ruby php""".split()  # noqa: SIM905
)


def is_setting(label: str, body: str) -> bool:
    """An acronym before a short name is a setting, not a speaker: "APM: Datadog".

    >>> is_setting("APM", "Datadog"), is_setting("MRR", "$2,400/mo"), is_setting("AJ", "we moved")
    (True, True, False)
    """
    body = re.sub(r"\s*\([^()]*\)\s*$", "", body)  # "JVM: 11.0.21 (Eclipse Adoptium 11.0.21+9)"
    words = body.split()
    return bool(
        ACRONYM.fullmatch(label.strip())
        and 0 < len(words) <= 3
        and not body.rstrip().endswith((".", "!", "?"))
        and (words[0][:1].isupper() or words[0][:1].isdigit() or words[0][:1] in "$€£")
    )


#: A label in capitals: "APM", "CI", "DNS".
ACRONYM = re.compile(r"[A-Z][A-Z0-9]{1,5}")


def is_speaker(label: str) -> bool:
    """Whether ``label`` before a colon names who speaks ("user:", "Caroline:", "Dr Lee:").

    >>> is_speaker("assistant"), is_speaker("Caroline"), is_speaker("Research log")
    (True, True, False)
    >>> [is_speaker(label) for label in ("Correction", "Also", "Premium", "Event Update")]
    [False, False, False, False]
    """
    words = label.split()
    low = label.casefold().strip()
    if low in SELF_SPEAKERS:
        return True
    return (
        0 < len(words) <= 3
        and low not in _NOT_SPEAKERS
        and all(w[:1].isupper() for w in words)
        and not any(ch.isdigit() for ch in label)
        and words[-1].casefold() not in _FIELD_HEADS
    )


#: Last words of a record's field names: "Primary Contact:", "Close Date:", "Premium:" name no
#: one who speaks (docs/concepts/text.md#log-formats).
_FIELD_HEADS = frozenset(
    """contact owner date address phone number email plan status stage amount region priority
    assignee reporter provider vendor carrier version balance premium deductible price
    fee time location venue policy type tier id insurance reason update rent copay salary
    check-in check-out arrival departure""".split()  # noqa: SIM905
)


#: Names of one technology or environment written several ways (docs/concepts/text.md#names):
#: the reader looks a thing up under each spelling. Whole names only, except
#: :data:`ALIAS_WORDS`.
ALIASES = {
    "postgresql": "Postgres",
    "postgre": "Postgres",
    "pg": "Postgres",
    "k8s": "Kubernetes",
    "kube": "Kubernetes",
    "golang": "Go",
    "js": "JavaScript",
    "ts": "TypeScript",
    "nodejs": "Node.js",
    "gh actions": "GitHub Actions",
    "gha": "GitHub Actions",
    "github action": "GitHub Actions",
    "mongo": "MongoDB",
    "google cloud": "GCP",
    "google cloud platform": "GCP",
    "amazon web services": "AWS",
    "prod": "production",
    "stg": "staging",
    "gitlab ci/cd": "GitLab CI",
    "elastic": "Elasticsearch",
    "ms teams": "Microsoft Teams",
    "gsuite": "Google Workspace",
    "g suite": "Google Workspace",
}
#: Aliases that also stand for themselves inside a longer name ("prod k8s" is "production
#: Kubernetes").
ALIAS_WORDS = frozenset({"postgresql", "k8s", "golang", "prod"})


def canonical(name: str) -> str:
    """A name with a technology's aliases resolved ("prod k8s" → "production Kubernetes").

    >>> canonical("k8s"), canonical("prod k8s"), canonical("PostgreSQL 16")
    ('Kubernetes', 'production Kubernetes', 'Postgres 16')
    >>> canonical("Acme"), canonical("node version")
    ('Acme', 'node version')
    """
    text = name.strip()
    low = " ".join(text.casefold().split())
    if low in ALIASES:
        return ALIASES[low]
    words = text.split()
    if len(words) > 1 and words[0].casefold() in ALIASES and _version(words[1:]):
        return " ".join([ALIASES[words[0].casefold()], *words[1:]])  # "PostgreSQL 16"
    if any(w.casefold() in ALIAS_WORDS for w in words):
        return " ".join(ALIASES[w.casefold()] if w.casefold() in ALIAS_WORDS else w for w in words)
    return text


def _version(words: list[str]) -> bool:
    return len(words) == 1 and bool(re.fullmatch(r"v?\d+(?:\.\d+)*", words[0]))


def spellings(name: str) -> list[str]:
    """Other spellings of a name under :data:`ALIASES`, word by word, the name first.

    >>> spellings("prod k8s")
    ['prod k8s', 'production Kubernetes', 'production k8s', 'prod Kubernetes']
    >>> spellings("Acme")
    ['Acme']
    """
    words = name.split()
    options: list[list[str]] = []
    for w in words:
        low = w.casefold()
        alts = [w]
        if low in ALIASES:
            alts.append(ALIASES[low])
        alts += [alias for alias, canon in ALIASES.items() if canon.casefold() == low]
        options.append(list(dict.fromkeys(alts))[:3])
    out = [name, canonical(name)]
    for i, alts in enumerate(options):
        for alt in alts[1:]:
            out.append(" ".join([*words[:i], alt, *words[i + 1 :]]))
    return list(dict.fromkeys(out))[:8]
