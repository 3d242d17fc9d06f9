"""Calculator forms: the fields of a plain HTML form, read from a calculator's input model.

Every calculator in the registry (assistant/calculators) gets a form with no code of its own:
one labelled text field per number input (its unit, a hint from the field's description and
the calculator's example as the default), and rows of fields for a list of sub-inputs (the
quotes of a quote comparison). Submitted text is read by the chat's own amount parser
(quantities.amount: "$7", "1,000", "1.5k", "40%", "2 weeks", "12 cents"), checked against the
same bounds as the tool schema, and the calculator's own function does the arithmetic, so the
page and the chat agree.

Example:
    >>> form = CalculatorForm(REGISTRY["gpu_hour_cost"])
    >>> outcome = form.submit({"gpus": "256", "price_per_gpu_hour": "$7", "hours": "100"})
    >>> outcome.result.formula
    '256 GPUs × $7.00/GPU-hour × 100 h = $179,200'
    >>> form.submit({"gpus": "-1", "price_per_gpu_hour": "7", "hours": "100"}).errors
    {'gpus': 'GPUs must be a positive whole number (got -1)'}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from assistant import calculators as calc
from assistant import quantities
from assistant.calculators._base import MissingInput, Unit, check, number_kind

#: Rows of a list of sub-inputs shown at first: the example's, at least the minimum. The rest,
#: up to the list's maximum, are in the page too (marked spare): the page's script hides them
#: behind an "Add" button, and without script they are all there.
#: Longest text read from one field; anything longer is a typo or an attack.
MAX_FIELD_CHARS = 200

# Words of a field name written the way people read them.
_WORDS = {"gpu": "GPU", "gpus": "GPUs", "mfu": "MFU", "pue": "PUE", "kwh": "kWh",
          "tflops": "TFLOPS", "cpu": "CPU", "cpus": "CPUs", "kv": "KV"}
# Name endings that are units: the label drops them and the unit says them.
_UNIT_SUFFIXES = {"pct": ("%", ""), "gb": ("GB", "size"), "gbps": ("Gb/s", "speed"),
                  "us": ("µs", ""), "ms": ("ms", ""), "w": ("W", "")}
_UNIT_TEXT = {"dollars": "$", "h": "hours"}


def label_of(name: str, info: Any = None) -> str:
    """Return a field's label: its pydantic `title` if set, else its name in words."""
    if info is not None and getattr(info, "title", None):
        return str(info.title)
    words = name.split("_")
    if words[-1] in _UNIT_SUFFIXES and len(words) > 1:
        extra = _UNIT_SUFFIXES[words[-1]][1]
        words = words[:-1] + ([extra] if extra else [])
    text = " ".join(_WORDS.get(w, w) for w in words)
    text = text.replace("GPU hour", "GPU-hour")
    return text[:1].upper() + text[1:]


def unit_of(model: type[BaseModel], name: str) -> str:
    """Return the unit a field is entered in ("$", "hours", "%", "Gb/s"), or ""."""
    info = model.model_fields[name]
    for m in info.metadata:
        if isinstance(m, Unit):
            text = m.text.strip()
            return _UNIT_TEXT.get(text, text)
    last = name.split("_")[-1]
    if last in _UNIT_SUFFIXES and "_" in name:
        return _UNIT_SUFFIXES[last][0]
    if number_kind(model, name) == "fraction":
        return "0 to 1, or %"
    return ""


def format_value(value: Any) -> str:
    """Return a default as a person would type it: 7 not 7.0, 7e9 not 7000000000.0."""
    if value is None or isinstance(value, bool):
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e6:
            return str(int(value))
        return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{value:g}")
    return str(value)


@dataclass(frozen=True)
class FormField:
    """One input box: `key` is its form name and error key ("gpus", "quotes.1.hours")."""

    key: str
    name: str  # the input model's field name
    label: str
    unit: str
    hint: str
    kind: str  # "whole", "number", "fraction" or "text"
    required: bool
    default: str
    row: int | None = None  # the row of a list of sub-inputs

    @property
    def html_id(self) -> str:
        """Return the element id of the input (the key with dots as dashes)."""
        return "f-" + self.key.replace(".", "-").replace("_", "-")

    @property
    def inputmode(self) -> str:
        """Return the on-screen keyboard a phone should show."""
        return {"whole": "numeric", "text": "text"}.get(self.kind, "decimal")


@dataclass(frozen=True)
class FieldGroup:
    """A list input shown as rows of fields (quotes), with its own label and hint."""

    key: str
    label: str
    item: str  # what one row is called ("Quote")
    hint: str
    min_rows: int
    rows: list[list[FormField]]
    shown_rows: int = 0  # rows shown before the visitor adds one (the rest are spare)

    @property
    def max_rows(self) -> int:
        """Return how many rows the list takes at most."""
        return len(self.rows)


@dataclass
class Outcome:
    """What a submitted form gave: the result, or messages naming each bad field.

    `values` echoes what was typed, so a form with an error keeps the visitor's text.
    """

    values: dict[str, str] = field(default_factory=dict)
    args: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    result: Any = None

    @property
    def ok(self) -> bool:
        """Whether the calculation ran."""
        return self.result is not None and not self.errors


def _list_model(info: Any) -> type[BaseModel] | None:
    if get_origin(info.annotation) is list:
        (item,) = get_args(info.annotation) or (None,)
        if isinstance(item, type) and issubclass(item, BaseModel):
            return item
    return None


def _hint(info: Any) -> str:
    return " ".join(str(info.description or "").split())


def _kind(model: type[BaseModel], name: str) -> str:
    return number_kind(model, name) or "text"


def _bounds(model: type[BaseModel], name: str) -> tuple[int, int]:
    low, high = 0, calc.MAX_QUOTES
    for m in model.model_fields[name].metadata:
        low = getattr(m, "min_length", low)
        high = getattr(m, "max_length", high)
    return low, high


class CalculatorForm:
    """The form of one calculator: its fields, and `submit()` to run it on submitted text."""

    def __init__(self, spec: calc.Calculator):
        self.spec = spec
        self.model = spec.inputs
        self.fields: list[FormField] = []
        self.groups: list[FieldGroup] = []
        example = dict(spec.example)
        for name, info in self.model.model_fields.items():
            item = _list_model(info)
            if item is None:
                self.fields.append(self._field(self.model, name, name, example.get(name),
                                               required=info.is_required()
                                               or name in spec.required))
                continue
            low, high = _bounds(self.model, name)
            given = list(example.get(name) or [])
            shown = min(high, max(low, len(given), 1))
            rows = []
            for i in range(high):
                values = given[i] if i < len(given) else {}
                rows.append([self._field(item, sub, f"{name}.{i}.{sub}", values.get(sub),
                                         required=sub_info.is_required(), row=i)
                             for sub, sub_info in item.model_fields.items()])
            singular = _singular(label_of(name))
            self.groups.append(FieldGroup(key=name, label=label_of(name, info), item=singular,
                                          hint=_hint(info), min_rows=low, rows=rows,
                                          shown_rows=shown))

    def _field(self, model: type[BaseModel], name: str, key: str, example: Any, *,
               required: bool, row: int | None = None) -> FormField:
        info = model.model_fields[name]
        # A required field has no default (pydantic's PydanticUndefined is not one to show).
        default = example if example is not None or info.is_required() else info.get_default()
        label, unit = label_of(name, info), unit_of(model, name)
        if unit.casefold() in label.casefold():
            unit = ""  # "Hours", not "Hours (hours)"
        return FormField(key=key, name=name, label=label,
                         unit=unit, hint=_hint(info), kind=_kind(model, name),
                         required=required,
                         default=format_value(default if default is not None else None),
                         row=row)

    def all_fields(self) -> list[FormField]:
        """Return every field, rows included, in form order."""
        return self.fields + [f for g in self.groups for row in g.rows for f in row]

    def defaults(self) -> dict[str, str]:
        """Return the form's initial text per key: the calculator's example."""
        return {f.key: f.default for f in self.all_fields()}

    def label(self, key: str) -> str:
        """Return the label of a field key, with its row ("Hours of quote 2")."""
        for f in self.all_fields():
            if f.key == key:
                if f.row is None:
                    return f.label
                group = next(g for g in self.groups if key.startswith(g.key + "."))
                return f"{f.label} of {group.item.lower()} {f.row + 1}"
        for g in self.groups:
            if g.key == key:
                return g.label
        return key

    # -- reading and running ----------------------------------------------------------------

    # One pass over the fields, the list rows and the calculator's own checks, each a short
    # branch that records a message by field; splitting it would scatter that order.
    def submit(self, data: Mapping[str, Any]) -> Outcome:  # noqa: C901
        """Read submitted text, check each field, run the calculator; never raise on input."""
        values = {f.key: _text(data.get(f.key)) for f in self.all_fields()}
        outcome = Outcome(values=values)
        args: dict[str, Any] = {}
        for f in self.fields:
            value = self._read(f, values[f.key], outcome.errors)
            if value is not None:
                args[f.name] = value
        row_of: dict[int, int] = {}  # calculator index -> row on the page
        for g in self.groups:
            items = []
            for row in g.rows:
                if not any(values[f.key] for f in row):
                    continue  # an empty spare row
                item = {}
                for f in row:
                    value = self._read(f, values[f.key], outcome.errors)
                    if value is not None:
                        item[f.name] = value
                row_of[len(items)] = row[0].row or 0
                items.append(item)
            if len(items) < g.min_rows:
                outcome.errors.setdefault(
                    g.key, f"{g.label}: fill in at least {g.min_rows} {g.item.lower()}s")
            args[g.key] = items
        outcome.args = args
        if outcome.errors:
            return outcome
        try:
            outcome.result = self.spec.function(**args)
        except MissingInput as e:
            for name in e.names:
                outcome.errors[name] = f"{self.label(name)} is needed for this calculation"
        except calc.CalculatorError as e:
            key = _row_key(e.input or "", row_of)
            outcome.errors[key if key in values or key in self._group_keys() else ""] = str(e)
        except (ArithmeticError, ValueError) as e:  # a limit the calculator did not foresee
            outcome.errors[""] = f"These inputs cannot be calculated: {e}"
        return outcome

    def _group_keys(self) -> set[str]:
        return {g.key for g in self.groups}

    def _read(self, f: FormField, text: str, errors: dict[str, str]) -> Any:
        label = self.label(f.key)
        if not text:
            if f.required:
                errors[f.key] = f"{label} is required"
            return None
        if f.kind == "text":
            return text
        try:
            # The chat's amount parser: "$7", "1.5k", "40%", "2 weeks", "12 cents", "700 W".
            number = quantities.amount(text, f.name, f.kind)
        except ValueError:
            errors[f.key] = f"{label} must be a number (got {text!r})"
            return None
        model = self._model_of(f)
        try:
            return check(model, f.name, number, label=label, key=f.key)
        except calc.CalculatorError as e:
            errors[f.key] = str(e)
            return None

    def _model_of(self, f: FormField) -> type[BaseModel]:
        if f.row is None:
            return self.model
        group = f.key.split(".")[0]
        item = _list_model(self.model.model_fields[group])
        assert item is not None
        return item

    # -- the chat's wording -----------------------------------------------------------------

    def question(self, args: Mapping[str, Any]) -> str:
        """Return the chat question that asks for this calculation with these inputs."""
        parts = []
        for name, value in args.items():
            if isinstance(value, list):
                group = next((g for g in self.groups if g.key == name), None)
                word = group.item.lower() if group else name
                items = []
                for item in value:
                    known = calc.describe_inputs(self.spec.name,
                                                 {k: v for k, v in item.items() if k != "name"})
                    items.append(f"{word} {item.get('name', '')}: {known}".replace("  ", " "))
                parts.append(" vs ".join(items))
            else:
                known = calc.describe_inputs(self.spec.name, {name: value})
                if known:
                    parts.append(known)
        inputs = ", ".join(p for p in parts if p)
        return f"What is the {self.spec.label} for {inputs}?" if inputs else (
            f"How do I work out the {self.spec.label}?")


def _singular(label: str) -> str:
    # What one row of a list input is called: "Quotes" -> "Quote", "Entries" -> "Entry".
    if label.endswith("ies"):
        return label[:-3] + "y"
    return label[:-1] if label.endswith("s") and not label.endswith("ss") else label


def _text(value: Any) -> str:
    if isinstance(value, list | tuple):
        value = value[0] if value else ""
    return str(value or "").strip()[:MAX_FIELD_CHARS]


def _row_key(key: str, row_of: Mapping[int, int]) -> str:
    # The calculator numbers the quotes it was given; spare rows left empty shift them.
    m = re.fullmatch(r"(\w+)\.(\d+)(\..+)?", key)
    if not m:
        return key
    return f"{m.group(1)}.{row_of.get(int(m.group(2)), int(m.group(2)))}{m.group(3) or ''}"


__all__ = ["CalculatorForm", "FieldGroup", "FormField", "Outcome", "format_value", "label_of",
           "unit_of"]
