"""Sealed state: what the process's cache shares between threads, made read-only.

The ledger keeps the aggregates it last read or saved and hands each command a copy to
decide on (application/cache.py). The entry itself is read by every thread, so nothing may
change it in place: it is sealed when the cache takes it. Sealing turns an engine's lists,
dicts, deques and counters into read-only ones of the same kind (they still compare equal,
index, iterate and serialise as before; every method that would change them raises
`SharedStateChanged`), and the engine itself, its hands and its aggregate refuse new values
for their attributes. Facts, postings and rules are frozen already and shared as they are.

`thawed` is the copy a command decides on: mutable again, sharing only what is frozen.
"""

from __future__ import annotations

import copy
from collections import Counter, deque
from typing import Any, NoReturn

from domain.errors import SharedStateChanged

_ATOMS = frozenset({str, int, bool, float, type(None)})
# Frozen types shared by sealed state and its copies alike (facts.py adds facts and
# postings; rules.py adds TableRules); FLAT: those of them that hold no list or dict.
SHARED: set[type] = set()
FLAT: set[type] = set()


def refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise SharedStateChanged(f"this {type(self).__name__} is shared by the process's cache "
                             "and is read-only: decide on a copy (copy.deepcopy)")


class SealedList(list[Any]):
    __slots__ = ()
    append = extend = insert = pop = remove = clear = sort = reverse = refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = refuse


class SealedDict(dict[Any, Any]):
    __slots__ = ()
    pop = popitem = setdefault = update = clear = refuse
    __setitem__ = __delitem__ = __ior__ = refuse


class SealedCounter(Counter[Any]):
    __slots__ = ()
    pop = popitem = setdefault = update = subtract = clear = refuse
    __setitem__ = __delitem__ = __ior__ = __iadd__ = __isub__ = __iand__ = refuse


class SealedDeque(deque[Any]):
    __slots__ = ()
    append = appendleft = extend = extendleft = pop = popleft = insert = remove = refuse
    clear = rotate = reverse = refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = refuse


def sealed(value: Any) -> Any:
    """The read-only form of `value`: containers as their sealed kinds (new ones), objects
    that seal themselves (an engine, a hand) sealed in place."""
    kind = type(value)
    if kind in _ATOMS or kind in _SEALED_KINDS:
        return value
    if kind in SHARED:  # frozen: a fact seals the containers it holds, once
        seal_fields = getattr(value, "seal", None)
        if seal_fields is not None:
            seal_fields()
        return value
    # Containers of strings and numbers only (cards, players, flags: most of a deal's state)
    # are copied whole, their items' types checked in C.
    if kind is list:
        kinds = set(map(type, value))
        if kinds <= _ATOMS:
            return SealedList(value)
        if kinds.isdisjoint(_CONTAINERS):  # postings, hands: frozen, or sealed in place
            if not kinds - _ATOMS <= FLAT:
                for item in value:
                    if type(item) not in _ATOMS:
                        sealed(item)
            return SealedList(value)
        return SealedList([item if type(item) in _ATOMS else sealed(item) for item in value])
    if kind is dict:
        if _ATOMS.issuperset(map(type, value.values())):
            return SealedDict(value)
        return SealedDict({key: item if type(item) in _ATOMS else sealed(item)
                           for key, item in value.items()})
    if kind is deque:
        if _ATOMS.issuperset(map(type, value)):
            return SealedDeque(value)
        return SealedDeque(item if type(item) in _ATOMS else sealed(item) for item in value)
    if kind is Counter:
        counter = SealedCounter.__new__(SealedCounter)  # Counter's __init__ would update
        dict.update(counter, value)
        return counter
    if kind is tuple:
        return tuple(sealed(item) for item in value)
    seal = getattr(value, "seal", None)
    if seal is not None:
        seal()
        return value
    raise SharedStateChanged(f"a {kind.__name__} cannot be shared by the cache: it has no "
                             "read-only form")


def thawed(value: Any, memo: dict[int, Any]) -> Any:
    """A fresh mutable copy of `value`, sealed or not (what `copy.deepcopy` would make),
    sharing atoms and frozen values."""
    kind = type(value)
    if kind in _ATOMS or kind in SHARED:
        return value
    # Items that are strings or numbers (cards, players, flags) are taken as they are,
    # without a call each: most of a deal's state is lists of them.
    if kind is list or kind is SealedList:
        return [item if type(item) in _ATOMS else thawed(item, memo) for item in value]
    if kind is dict or kind is SealedDict:
        return {key: item if type(item) in _ATOMS else thawed(item, memo)
                for key, item in value.items()}
    if kind is deque or kind is SealedDeque:
        return deque(item if type(item) in _ATOMS else thawed(item, memo) for item in value)
    if kind is Counter or kind is SealedCounter:
        return Counter(dict(value))
    return copy.deepcopy(value, memo)  # an engine or a hand copies itself, open


_SEALED_KINDS = frozenset({SealedList, SealedDict, SealedCounter, SealedDeque})
_CONTAINERS = frozenset({list, dict, deque, Counter, tuple})
_SEALED_CLASSES: dict[type, type] = {}


def sealed_class(cls: type) -> type:
    """`cls` whose instances refuse new attribute values: an object sealed in place takes
    this class (the same layout, so `__class__` may change); `opened(cls)` undoes it."""
    found = _SEALED_CLASSES.get(cls)
    if found is None:
        found = _SEALED_CLASSES[cls] = type(f"Sealed{cls.__name__}", (cls,), {
            "__slots__": (), "__setattr__": refuse, "__delattr__": refuse,
            "__module__": cls.__module__, "_open_class": cls})
    return found


def opened(cls: type) -> type:
    """The class a copy of a sealed object takes (itself for a class not sealed)."""
    found: type = cls.__dict__.get("_open_class", cls)
    return found


def seal_attributes(obj: Any) -> None:
    """Seal an object with a `__dict__` in place: each value read-only, then its class."""
    if "_open_class" in type(obj).__dict__:
        return  # sealed already
    values = obj.__dict__
    for name, value in list(values.items()):
        if type(value) not in _ATOMS:
            values[name] = sealed(value)
    object.__setattr__(obj, "__class__", sealed_class(type(obj)))
