"""What kind of question a visitor asked, so that the answer can lead with what was asked.

`classify()` reads the wording only (no model, no corpus): it is cheap, deterministic and
the same in extractive and LLM mode. The composer keeps a table from `Intent` to a lead
picker (leads.py), so a new intent is one enum member, one rule here and one table entry.

Example:
    >>> classify("does nccl work over roce?").intent
    <Intent.YES_NO: 'yes_no'>
    >>> classify("how fast is an xdr port").units
    ('bandwidth',)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Intent(StrEnum):
    """The kinds of question the composer answers differently."""

    DEFINITION = "definition"  # what is X
    YES_NO = "yes_no"  # does / is / can / should X ...
    QUANTITY = "quantity"  # how fast / how many / which port / what bandwidth
    CAUSE = "cause"  # why
    MECHANISM = "mechanism"  # how does X work
    COMPARISON = "comparison"  # X vs Y, difference between
    CHOICE = "choice"  # which should I buy / use
    PROCEDURE = "procedure"  # how do I configure / set up
    COST = "cost"  # how much does X cost, is X expensive (no numbers to calculate)
    DRAWBACK = "drawback"  # what's the catch, downsides of X, what can go wrong
    GENERAL = "general"  # anything else: the best-matching sentences


@dataclass(frozen=True)
class Shape:
    """The intent of a question and what its answer must contain."""

    intent: Intent
    units: tuple[str, ...] = ()  # kinds of quantity asked for (see UNIT_PATTERNS)
    negated: bool = False  # "isn't", "doesn't": a yes/no question asked the other way round


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


_AUX = (r"(is|are|was|were|does|do|did|can|could|should|shall|will|would|must|may|might|"
        r"has|have|had|isn't|aren't|doesn't|don't|can't|won't|shouldn't)")
_YES_NO = _rx(rf"^(and\s+|so\s+|but\s+|ok(ay)?,?\s+)?{_AUX}\b(?!\s+(?:you\s+)?(?:tell|explain|"
              r"describe|show|give|list|compare|walk)\b)")
_YES_NO_TAIL = _rx(r"\b(right|correct|true|yes or no)\s*\??\s*$|\b(are|is)\s+(they|these|those|"
                  r"the\s+two|both|it)\s+(really\s+|just\s+)?(the\s+)?(same|different|identical|"
                  r"compatible|related|interchangeable)\b")
#: "with GPUDirect Storage, does the CPU still copy the data?": a yes/no question after a
#: leading phrase that sets the scene.
_YES_NO_LATE = _rx(rf"^(so\s+)?(if|with|when|once|after|without|for|on|in|during|given)\b"
                   rf"(?!.*\b(how|what|which|why|where|who|when)\b.*\b{_AUX}\b)\s+(?!{_AUX}\b)"
                   rf"[^?]{{1,80}}?"
                   rf"(,\s*|\s)(then\s+)?{_AUX}\s+(i|we|you|it|they|there|the|a|an|my|our|this|"
                   rf"that|these|those|[\w-]+)\b")
#: The word zero, not DeepSpeed's ZeRO ("ZeRO stage 3", "zero-3", "zero++", "zero offload").
ZERO = (r"(?!(?-i:ZeRO)\b)(?<!deepspeed\s)zero(?![\s-]*\d|\s+stages?\b|\s*\+\+|"
        r"[\s-]+(?:offload|optimi|redundan|infinity|dp\b))")
_NEGATED = _rx(r"^(is|are|was|were|does|do|did|can|could|should|would|has|have|had|wo|ai)"
               r"n'?t\b|^\w+\s+\w+\s+not\b"
               # "is a passive DAC basically zero power?": a claim of nothing (not ZeRO-3)
               r"|\b(" + ZERO + r"|none|nothing)\b"
               # "passive dacs draw no power, right?": a claim of none ("yes or no" is not)
               r"|(?<!\bor\s)\bno\s+(?!longer\b|matter\b|more\b|one\b|doubt\b)[a-z]")
_WHY = _rx(r"^(and\s+|so\s+|but\s+)?(why|how\s+come|what\s+is\s+the\s+reason|what's\s+the\s+"
           r"reason|what\s+causes|what\s+makes)\b")
_PROCEDURE = _rx(r"\bhow\s+(do|can|should|would)\s+(i|we|you|one)\s+(configure|set\s*up|setup|"
                 r"enable|install|tune|check|verify|test|debug|troubleshoot|fix|build|wire|cable|"
                 r"deploy|measure|monitor|turn\s+on|make|get|use|run|estimate|calculate|size|"
                 r"plan|pick|choose|reduce|avoid|improve|know|tell|find\s+out|see)\b|\b(steps?\s+to|guide\s+to|checklist\s+"
                 r"for|how\s+to)\s+\w+|^(configure|set\s*up|enable|tune|troubleshoot)\b")
_CHOICE = _rx(r"\b(which|what)\b.{0,40}\b(should|would\s+you|do\s+you\s+recommend|is\s+(the\s+)?"
              r"best|is\s+better|to\s+(buy|choose|pick|use))\b|\b(should\s+i|should\s+we)\s+"
              r"(use|buy|choose|pick|go\s+with|get)\b.{0,60}\bor\b|\brecommend\w*\b|"
              r"\b(best|right)\s+(choice|option)\b")
_COMPARE = _rx(r"\b(vs\.?|versus|compared?\s+(to|with)|comparison|differen(ce|t)\s+(between|"
               r"from)|differ\w*|same\s+(thing\s+)?as|better\s+than|faster\s+than|cheaper\s+than|"
               r"slower\s+than)\b")
_MECHANISM = _rx(r"\bhow\s+(does|do|is|are)\b(?!.{0,30}\b(cost|much|many|fast|long|big|far|"
                 r"slow|quick)\b)|\bhow\s+\w+\s+works?\b|\bmechanism\b|\bunder\s+the\s+hood\b|"
                 r"\bwhat\s+happens\s+(when|if)\b")
_COST = _rx(r"\b(cost|costs|costly|price|prices|pricing|expensive|cheap|cheaper|budget|spend|"
            r"dollars?|\$|capex|opex|per\s+gpu-?hour|afford)\b")
_DRAWBACK = _rx(r"\b(catch|downsides?|drawbacks?|disadvantages?|cons|pitfalls?|gotchas?|"
                r"trade-?offs?|weakness(es)?|limitations?)\b|\bwhat\s+(can|could)\s+go\s+wrong\b|"
                r"\bwhat('s|\s+is)\s+wrong\s+with\b")
_DEFINITION = _rx(r"^(so\s+|and\s+|ok(ay)?,?\s+)?(what\s*(is|are|'s|s)|whats|define|definition|"
                  r"meaning\s+of|explain|tell\s+me\s+about|what\s+does\s+\S+(\s+\S+)?\s+(mean|"
                  r"stand\s+for))\b|\b(mean|means|stand\s+for)\s*\??\s*$|\bexplained\b|"
                  # "can you explain SHARP?", "could you tell me what nvlink is"
                  r"^(can|could|would)\s+you\s+(please\s+)?(explain|describe|define)\b|"
                  r"\b(tell\s+me|explain)\s+what\s+[\w-]+(\s+[\w-]+){0,2}\s+(is|are)\s*\??\s*$|"
                  r"^\W*[\w-]+(\s+[\w-]+){0,2}\s*\?*\s*$")

#: Quantities a question can ask for, and how each is written in a sentence that answers it.
UNIT_PATTERNS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "bandwidth": (_rx(r"\b(bandwidth|bandwith|how\s+fast|speed|throughput|gb/?s|tb/?s|gbps|tbps|"
                      r"data\s+rate|line\s+rate|lane\s+rate|signal\w*\s+rate|how\s+quick)\b"),
                  _rx(r"\d\s*(gb/s|gbps|tb/s|tbps|gbit|gigabits?|terabits?|gt/s|gbe\b)|"
                      r"\d+\s*(gb|tb)e\b")),
    "latency": (_rx(r"\b(latency|latencies|delay|round[\s-]?trip|how\s+long\s+does\s+a\s+hop)\b"),
                _rx(r"(\d|\b(one|two|a\s+few|few|single-digit|sub-?))[\s-]*(µs|us\b|"
                    r"microseconds?|ns\b|nanoseconds?|ms\b|milliseconds?)")),
    "time": (_rx(r"\bhow\s+long\b(?!\s+(can|is|are|may)\b)|\b(duration|how\s+much\s+time)\b"),
             _rx(r"\d\s*(seconds?|s\b|ms\b|µs|minutes?|hours?|days?|weeks?)")),
    "port": (_rx(r"\b(which|what)\s+(udp\s+|tcp\s+)?port\b|\bport\s+number\b"),
             _rx(r"\bport\s+\d{2,5}\b|\b\d{4}\b")),
    "count": (_rx(r"\bhow\s+many\b|\bnumber\s+of\b"), _rx(r"\b\d[\d,]*\b|\b(one|two|three|four|"
                                                         r"five|six|eight|sixteen)\b")),
    "power": (_rx(r"\b(power|watts?|kw|how\s+much\s+energy|electricity)\b"),
              _rx(r"\d\s*(w\b|watts?|kw\b|kilowatts?|kwh|mw\b|megawatts?)")),
    "size": (_rx(r"\b(mtu|how\s+big|size|bytes?|how\s+much\s+(memory|buffer)|capacity|"
                 r"headroom)\b"),
             _rx(r"\d\s*(bytes?|kb\b|mb\b|gb\b|tb\b|kib|mib|gib)|\b\d{3,5}\b")),
    "distance": (_rx(r"\b(reach|how\s+far|distance|how\s+long\s+(can|is|are|may)\b|length)\b"),
                 _rx(r"\d\s*(m\b|meters?|metres?|km\b|kilometers?)")),
    "money": (_rx(r"\bhow\s+much\s+(does|do|did|would|will|is)\b.{0,40}\bcost|\bprice\s+of\b|"
                  r"\bhow\s+much\s+(money|\$)"),
              _rx(r"\$\s?\d|\b\d[\d,.]*\s*(dollars|usd)\b|\bpercent\b|%")),
    "value": (_rx(r"\b(what\s*(is|'s|s)|whats)\s+(a|an|the)\s+(good|typical|normal|healthy|"
                  r"reasonable|realistic|usual|target)\b"),
              _rx(r"\d")),
    "frequency": (_rx(r"\bhow\s+often\b|\bhow\s+frequently\b|\bfrequency\b"),
                  _rx(r"\b(per|every|each)\s+(\d[\d,.]*\s*)?(µs|us|microseconds?|ms|"
                      r"milliseconds?|seconds?|minutes?|hours?|days?|time\s+window|step)\b|"
                      r"\d\s*(times|x)\s+(per|a|an|every)\b|\bonce\s+(per|every|a)\b|"
                      r"\d\s*(µs|microseconds?|ms\b|milliseconds?|hz|khz|mhz)")),
    "ratio": (_rx(r"\b(how\s+much\s+(faster|slower|more|less|higher|lower)|what\s+share|what\s+"
                  r"percent(age)?|what\s+fraction|ratio)\b"),
              _rx(r"\d\s*(×|x\b|times|percent|%)|\b(twice|half|double)\b")),
}
_QUANTITY = _rx(r"\bhow\s+(fast|many|much|long|big|far|quick|large|small|high|low|often)\b|"
                r"\b(which|what)\s+(udp\s+|tcp\s+)?(port|speed|bandwidth|latency|mtu|size|rate|"
                r"generation|version)\b|\bwhat\s+is\s+the\s+(bandwidth|latency|speed|throughput|"
                r"mtu|reach|power|size|port)\b|\b(bandwidth|latency|throughput|speed|mtu)\s+of\b|"
                r"\b(what|how)\s+about\s+(the\s+|its\s+)?(bandwidth|latency|speed|throughput|mtu|"
                r"reach|power)\b")


_HOW_MANY = _rx(r"\bhow\s+many\s+(?P<what>[\w/]+)")


def asked_units(question: str) -> tuple[str, ...]:
    """Return the kinds of quantity a question asks for ("bandwidth", "count", ...).

    "How many watts" asks for power, not for a count: a count is dropped when what is
    counted is itself a unit.
    """
    units = tuple(name for name, (asks, _) in UNIT_PATTERNS.items() if asks.search(question))
    counted = _HOW_MANY.search(question)
    if counted and "count" in units and any(
            UNIT_PATTERNS[u][0].search(counted.group("what")) for u in units if u != "count"):
        units = tuple(u for u in units if u != "count")
    return units


def has_unit(sentence: str, units: tuple[str, ...]) -> bool:
    """Return True if a sentence states a number in one of the asked kinds of quantity."""
    return any(UNIT_PATTERNS[u][1].search(sentence) for u in units if u in UNIT_PATTERNS)


#: A bare noun phrase naming a measure ("connectx-7 speed", "h100 nvlink bandwidth?").
_BARE = _rx(r"^(?!(what|who|where|when|how|why|which|define|explain|tell|is|are|does|do|can|"
            r"should)\b)[\w./:+-]+(\s+[\w./:+-]+){1,6}\s*\??$")
#: "what is the H100's memory bandwidth": a measure asked about with "what is".
_WHAT_MEASURE = _rx(r"^(what\s*(is|'s|s|are)|whats)\s+(the|a|an)\s+([\w.'-]+\s+){0,4}"
                    r"(bandwidth|bandwith|latency|speed|throughput|mtu|reach|power|size|rate|"
                    r"port|draw)\b")


#: A "what is" question that gives a figure for its case asks for a value, not a definition.
_GIVEN_FIGURE = _rx(r"^(what\s*(is|'s|s|are)|whats)\s+the\b.*\b(for|with|on|at|across|over)\s+"
                    r"(a\s+|an\s+)?\d[\d,.]*\s*[a-z]*\b")


def classify(question: str, comparing: bool = False) -> Shape:
    """Decide what kind of question this is; `comparing` when two terms are compared."""
    q = " ".join(question.strip().split())
    units = asked_units(q)
    if _YES_NO.search(q) or _YES_NO_TAIL.search(q) or _YES_NO_LATE.search(q):
        # "how do I ..." and "why ..." and "which should I ..." win over a yes/no look
        if not (_PROCEDURE.search(q) and not _YES_NO.search(q)) and not _WHY.search(q) \
                and not _CHOICE.search(q):
            return Shape(Intent.YES_NO, units, negated=negated(q))
    for rule, intent in _RULES:
        if rule(q, units, comparing):
            return Shape(intent, units or (("value",) if intent is Intent.QUANTITY else ()))
    return Shape(Intent.GENERAL, units)


def asked_part(question: str) -> str:
    """The message up to its last question mark when a remark follows it ("roce uses the
    same verbs api as ib, right? dont want to rewrite our code"): the remark asks nothing."""
    end = question.rfind("?")
    if not 0 <= end < len(question.rstrip()) - 1 or _ASKS.match(question[end + 1:]):
        return question  # no remark after it, or one more question typed without its "?"
    return question[:end + 1]


#: How simply to explain is no part of what is asked: "explain ecn like im 5" asks what
#: "explain ecn" does, and led with a detail of ECN once the words of "like im 5" joined the
#: search.
_PLAINLY = re.compile(r"[\s,]*(?:\b(?:like|as\s+if)\s+(?:i'?m|im|i\s+am|i\s+was|you'?re\s+"
                      r"talking\s+to)\s+(?:5|five|a\s+(?:kid|child|beginner|newbie))\b|"
                      r"\beli5\b:?|\bin\s+(?:plain|simple)\s+(?:english|terms|words)\b|"
                      r"\bfor\s+(?:dummies|a\s+beginner|beginners)\b)", re.I)


def plainly(question: str) -> str:
    """The question without a request to keep it simple ("like im 5", "eli5", "in plain
    english"); the question itself when nothing else is left."""
    rest = _PLAINLY.sub("", question).strip()
    return rest if rest.strip("?.! ") else question


_ASKS = re.compile(r"\s*(?:is|are|was|were|does|do|did|can|could|will|would|should|shall|may|"
                   r"might|must|has|have|what|whats|how|why|which|when|where|who|isn'?t|"
                   r"aren'?t|doesn'?t|won'?t)\b", re.I)  # ("dont want to ..." is a remark)


def negated(question: str) -> bool:
    """True if a yes/no question is asked the other way round ("isn't", "doesnt X ..."), in
    its own clause when context comes first ("we use RoCE. doesn't that need PFC?")."""
    q = asked_part(" ".join(question.strip().split()))
    last = [p.strip() for p in re.split(r"[.!?;]\s+|,\s+(?:so\s+|but\s+)?", q) if p.strip()]
    if len(last) > 1 and _TAG.match(last[-1]):
        last.pop()  # "..., right?" asks of the clause before it
    return bool(_NEGATED.search(last[-1] if last else q))


_TAG = re.compile(r"(right|correct|true|yeah|yes|yep|ok|okay|no)\W*$", re.I)


def _measured(q: str, units: tuple[str, ...]) -> bool:
    if _DEFINITION.search(q) and _GIVEN_FIGURE.search(q) and not _COST.search(q):
        return True  # "what's the ring all-reduce traffic factor for 8 GPUs": a value
    return bool(units) and set(units) != {"money"} and bool(
        _QUANTITY.search(q) or _BARE.match(q) or _WHAT_MEASURE.match(q) or "value" in units)


#: The intents after yes/no, in order: the first rule that holds decides.
_RULES = (
    (lambda q, u, c: bool(_PROCEDURE.search(q)) and not _YES_NO.search(q), Intent.PROCEDURE),
    (lambda q, u, c: bool(_WHY.search(q)), Intent.CAUSE),
    (lambda q, u, c: bool(_CHOICE.search(q)), Intent.CHOICE),
    (lambda q, u, c: c or bool(_COMPARE.search(q)), Intent.COMPARISON),
    (lambda q, u, c: bool(_DRAWBACK.search(q)), Intent.DRAWBACK),
    (lambda q, u, c: _measured(q, u), Intent.QUANTITY),
    (lambda q, u, c: bool(_COST.search(q)) or "money" in u, Intent.COST),
    (lambda q, u, c: bool(_MECHANISM.search(q)), Intent.MECHANISM),
    (lambda q, u, c: bool(_QUANTITY.search(q)) and bool(u), Intent.QUANTITY),
    (lambda q, u, c: bool(_DEFINITION.search(q)), Intent.DEFINITION),
)
