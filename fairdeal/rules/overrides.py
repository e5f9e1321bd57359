"""House rules as data: a convention's differences from its registered system, as ``group.field`` → JSON value.

The log header carries them (``"convention": {"raspasy.price_per_trick": 2}``), ``--rule group.field=VALUE``
makes them, and every reader rebuilds the same frozen value from the system's name and these overrides. Field
names are those of ``docs/conventions.md``; the agreed pulya size travels in the header's own ``pulya`` field.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from functools import cache
from typing import Any, Literal, Union

from fairdeal.errors import ConventionError
from fairdeal.rules.convention import Convention
from fairdeal.rules.table import GROUPS

# Carried by the header's own fields, or naming the system itself: never an override.
_NOT_OVERRIDABLE = frozenset({"pulya.size"})
_TOP_LEVEL = ("players",)
_WORDS = {"yes": True, "true": True, "no": False, "false": False}

JsonValue = Any


@cache
def _group_types(group: str) -> dict[str, Any]:
    factory = Convention.__dataclass_fields__[group].default_factory
    if not callable(factory):  # every group of a Convention has a default factory
        raise KeyError(group)
    cls = type(factory())
    return typing.get_type_hints(cls)


@cache
def parameter_types() -> dict[str, Any]:
    """Every overridable ``group.field`` (and ``players``) with its type."""
    types_: dict[str, Any] = {"players": tuple[int, ...]}
    for group in GROUPS:
        for name, hint in _group_types(group).items():
            path = f"{group}.{name}"
            if path not in _NOT_OVERRIDABLE:
                types_[path] = hint
    return types_


def _value_of(convention: Convention, path: str) -> Any:
    if path in _TOP_LEVEL:
        return getattr(convention, path)
    group, name = path.split(".", 1)
    return getattr(getattr(convention, group), name)


def to_json(value: Any) -> JsonValue:
    """A parameter value in the header's JSON form: fractions as ``"p/q"``, sets as sorted lists."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, frozenset):
        return sorted(to_json(v) for v in value)
    if isinstance(value, tuple):
        return [to_json(v) for v in value]
    return value


def _fail(path: str, message: str) -> ConventionError:
    return ConventionError(message, field=f"convention.{path}")


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if hint is Fraction:
        return "a fraction such as 1/2"
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(hint))
    if hint is type(None):
        return "null"
    if origin is frozenset:
        return f"a list of {_describe(typing.get_args(hint)[0])}"
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_describe(args[0])}"
        return "a list [" + ", ".join(_describe(a) for a in args) + "]"
    return {bool: "true or false", int: "a whole number", str: "a string"}.get(hint, str(hint))


def _from_json(value: JsonValue, hint: Any, path: str) -> Any:
    """``value`` read as ``hint``; raises ``ConventionError`` naming the field and the expected type."""
    origin = typing.get_origin(hint)
    wrong = _fail(path, f"expected {_describe(hint)}, got {json.dumps(value, ensure_ascii=False)[:60]}")
    if origin in (Union, types.UnionType):
        for option in typing.get_args(hint):
            try:
                return _from_json(value, option, path)
            except ConventionError:
                continue
        raise wrong
    if hint is type(None):
        if value is None:
            return None
        raise wrong
    if origin is Literal:
        if isinstance(value, str) and value in typing.get_args(hint):
            return value
        raise wrong
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _WORDS:
            return _WORDS[value.lower()]
        raise wrong
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise wrong
    if hint is str:
        if isinstance(value, str):
            return value
        raise wrong
    if hint is Fraction:
        return _fraction(value, wrong)
    if origin is frozenset:
        if not isinstance(value, list):
            raise wrong
        return frozenset(_from_json(v, typing.get_args(hint)[0], path) for v in value)
    if origin is tuple:
        return _tuple(value, typing.get_args(hint), path, wrong)
    raise wrong


def parameter_forms() -> dict[str, JsonValue]:
    """Every parameter's type as data, for a reader in another language that checks a value as ``_from_json``
    does: each node ``{"expected": words for the message, "kind": ...}``, with ``"of"`` the parts it is made of."""
    return {path: _form(hint) for path, hint in parameter_types().items()}


def _form(hint: Any) -> JsonValue:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    form: dict[str, JsonValue] = {"expected": _describe(hint)}
    if origin in (Union, types.UnionType):
        return form | {"kind": "any", "of": [_form(a) for a in args]}
    if origin is Literal:
        return form | {"kind": "one of", "of": list(args)}
    if origin is frozenset or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
        return form | {"kind": "list", "of": _form(args[0])}
    if origin is tuple:
        return form | {"kind": "tuple", "of": [_form(a) for a in args]}
    return form | {"kind": {type(None): "null", bool: "bool", int: "int", str: "str", Fraction: "fraction"}[hint]}


def _fraction(value: JsonValue, wrong: ConventionError) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise wrong
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise wrong from None


def _tuple(value: JsonValue, args: tuple[Any, ...], path: str, wrong: ConventionError) -> tuple[Any, ...]:
    if not isinstance(value, list):
        raise wrong
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_from_json(v, args[0], path) for v in value)
    if len(value) != len(args):
        raise wrong
    return tuple(_from_json(v, a, path) for v, a in zip(value, args))


def with_overrides(convention: Convention, overrides: Mapping[str, JsonValue]) -> Convention:
    """``convention`` with the given ``group.field`` values (JSON form); one clear error for an unknown field, a
    value of the wrong type, or a combination the convention refuses."""
    known = parameter_types()
    grouped: dict[str, dict[str, Any]] = {}
    top: dict[str, Any] = {}
    for path, raw in overrides.items():
        if path not in known:
            raise _fail(path, f"no such parameter (see docs/conventions.md){_suggestion(path)}")
        value = _from_json(raw, known[path], path)
        if path in _TOP_LEVEL:
            top[path] = value
        else:
            group, name = path.split(".", 1)
            grouped.setdefault(group, {})[name] = value
    try:
        changed = {group: replace(getattr(convention, group), **values) for group, values in grouped.items()}
        return replace(convention, **changed, **top)
    except ConventionError as exc:
        paths = ", ".join(sorted(overrides))
        raise ConventionError(f"convention ({paths}): {exc}") from None


def _suggestion(path: str) -> str:
    tail = path.rsplit(".", 1)[-1]
    near = sorted(p for p in parameter_types() if p.rsplit(".", 1)[-1] == tail)
    return f"; did you mean {' or '.join(near)}?" if near else ""


def overrides_of(convention: Convention, base: Convention) -> dict[str, JsonValue]:
    """Every parameter where ``convention`` differs from ``base``, in JSON form, in ``docs/conventions.md`` order."""
    return {
        path: to_json(_value_of(convention, path))
        for path in parameter_types()
        if _value_of(convention, path) != _value_of(base, path)
    }


def parse_rule(text: str) -> tuple[str, JsonValue]:
    """``group.field=VALUE`` from the command line: VALUE is JSON (``2``, ``true``, ``[9, 10]``, ``"1/2"``) or
    a bare word (``geometric``, ``yes``, ``1/2``)."""
    path, sep, raw = text.partition("=")
    path = path.strip()
    if not sep or not path:
        raise ConventionError(f"--rule {text!r}: expected group.field=VALUE, e.g. raspasy.price_per_trick=2")
    raw = raw.strip()
    try:
        return path, json.loads(raw)
    except json.JSONDecodeError:
        return path, raw
