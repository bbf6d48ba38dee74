"""The base of libmfa's plain value classes (users, factors, secrets, results, events).

A small stand-in for ``dataclasses`` (whose import, with ``inspect``, costs
more than the rest of the package): the fields are the class's
``__slots__``; instances compare and hash by value, are read-only unless the
class says otherwise, and leave the fields named in ``_hidden`` (secrets,
tokens, codes) out of ``repr``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, FrozenSet, Tuple


class Record:
    """A value with named fields (those of ``__slots__``)."""

    __slots__: ClassVar[Tuple[str, ...]] = ()
    #: Fields left out of ``repr`` (secrets, tokens, codes).
    _hidden: ClassVar[FrozenSet[str]] = frozenset()
    #: Whether fields may be assigned after construction.
    _mutable: ClassVar[bool] = False

    def _set(self, **values: Any) -> None:
        """Set fields during construction (also on read-only classes)."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _values(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._mutable:
            raise AttributeError("cannot assign to field %r: %s is read-only" % (name, type(self).__name__))
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError("cannot delete field %r of %s" % (name, type(self).__name__))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        if self._mutable:
            raise TypeError("unhashable type: %r" % type(self).__name__)
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join("%s=%r" % (name, getattr(self, name)) for name in self.__slots__ if name not in self._hidden)
        return "%s(%s)" % (type(self).__name__, shown)

    def __getstate__(self) -> Tuple[Any, ...]:
        return self._values()

    def __setstate__(self, state: Tuple[Any, ...]) -> None:
        for name, value in zip(self.__slots__, state):
            object.__setattr__(self, name, value)
