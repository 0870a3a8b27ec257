"""A snapshot's schema: msgspec types derived from the state's own annotations, and the conversions
between a state and what its msgpack holds.

Why msgpack through msgspec: a snapshot is read back under the user's key, and a key can be stolen
(or a defect write a bad row), so what decodes it must build nothing but the state's own values, of
the state's own types, within their bounds, in time proportional to its bytes. msgpack names no class
and no function (nothing in it can run), has no references (no object shared, no cycle: the decoded
tree has at most as many items as the body has bytes, so no walk of it can meet an item twice), and
msgspec's typed decoder checks every value against the type it is decoded as, in one pass, before any
code of this project reads it: a wrong type, a value out of bounds, an unknown tag, an ext type, a
container nested where the schema has a scalar, or an array longer than the bytes left is refused
(msgspec.ValidationError or DecodeError).

The types are derived, never written by hand (as events.derive derives the events' structs), so the
state's annotations stay the one schema:
- a state's struct (msgspec's `Struct`) or a pydantic model becomes a struct of its fields, encoded as
  an array in field order;
- a pydantic field's bounds (`Ge`, `Le`, `Gt`, `Lt`, `MinLen`, `MaxLen`) become msgspec `Meta`
  constraints, checked by the decoder; the models' validators (which normalise a sheet's input, or
  refuse a name with `=`) are not run, as a value read from a store is never re-validated;
- a `Mapping` field is `[persistent, {key: value}]`: a persistent map (engine.kernel.pmap.PMap) comes back
  a `PMap`, a dict a dict, since an undo's change names the keys of a persistent map (engine.kernel.rewind);
- `FightState.part`, the ruleset's own part of the state, is a union of each built-in ruleset's part
  class (and the empty `RulesPart`), tagged by the class's name: a part of another class is refused
  when it is written, so a snapshot is never written that could not be read back as it was;
- `FightState.events` keeps its keys alone: the event at each seq stays in the log (`EventMap.in_log`);
- the undo history's `Change` holds, for each field it puts back, a value of that field's own type:
  a union tagged by the field's name (one struct per field of the state); and for each persistent
  map the keys it set with the value before (nil: the key was not bound; for `events`, true: the
  event is the log's);
- an annotation not listed here (`Any`, a bare `object`, a type variable) has no derived type: the
  schema refuses it when it is built (TypeError), so a field cannot be added to the state without a
  type the decoder checks.
"""

from __future__ import annotations

import collections.abc as abc
import dataclasses
import functools
import operator
import sys
import threading
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

import msgspec
from msgspec import Struct

from fudge_combat.engine.kernel.pmap import KINDS, LOGGED, MISSING, EventMap, PMap
from fudge_combat.engine.kernel.rewind import Change, History
from fudge_combat.engine.kernel.registry import RULESETS
from fudge_combat.engine.kernel.state import Combatant, FightState, RulesPart, initial_part

# Types built at run time from the state's annotations: subscripted through these names, as values
_TUPLE: Any = tuple
_UNION: Any = Union

Convert = Callable[[Any], Any]


class Codec(Struct, frozen=True):
    """What one annotation becomes: the msgspec type its values are decoded as, and how a state's value
    becomes what msgpack holds (`encode`) and back (`decode`); None: the value is the same on both sides."""

    wire: Any
    encode: Convert | None = None
    decode: Convert | None = None

    @property
    def same(self) -> bool:
        return self.encode is None and self.decode is None


# msgspec's Meta has the names annotated_types gives pydantic's bounds (Ge has `ge`...), and which of two
# bounds of one kind is the stricter.
_STRICTER = {"ge": max, "gt": max, "le": min, "lt": min, "min_length": max, "max_length": min}


def _is_model(cls: Any) -> bool:
    """A pydantic model's class. The state holds structs; a ruleset of another package may hold a model in its
    part, whose class loaded pydantic's models: where they are not loaded, no class is one, and a command
    never loads them to ask."""
    main = sys.modules.get("pydantic.main")
    return main is not None and isinstance(cls, type) and issubclass(cls, main.BaseModel)


def _is_field(item: Any) -> bool:
    """A pydantic `Field(...)` in an annotation's metadata (its bounds are its own metadata)."""
    fields = sys.modules.get("pydantic.fields")
    return fields is not None and isinstance(item, fields.FieldInfo)


def _bounds(metadata: typing.Iterable[Any], into: dict[str, Any] | None = None) -> dict[str, Any]:
    """The bounds a field's metadata gives, as msgspec's Meta takes them (the stricter of two of a kind)."""
    found: dict[str, Any] = {} if into is None else into
    for item in metadata:
        if _is_field(item):
            _bounds(item.metadata, found)
            continue
        if isinstance(item, msgspec.Meta):  # a generated struct's bound (events.structs): the same names
            for name in _STRICTER:
                limit = getattr(item, name)
                if limit is not None:
                    found[name] = _STRICTER[name](found[name], limit) if name in found else limit
            continue
        kinds = [name for name in _STRICTER if hasattr(item, name)]
        if len(kinds) != 1 or not dataclasses.is_dataclass(item) or len(dataclasses.fields(item)) != 1:
            raise TypeError(f"{item!r}: a constraint the snapshot's schema does not derive")
        name, limit = kinds[0], getattr(item, kinds[0])
        found[name] = _STRICTER[name](found[name], limit) if name in found else limit
    return found


def _constrained(wire: Any, bounds: dict[str, Any]) -> Any:
    """`wire` with `bounds` (a union's members bounded each; None is left as it is)."""
    if not bounds:
        return wire
    origin, args = typing.get_origin(wire), typing.get_args(wire)
    if origin in (Union, types.UnionType):
        return Union[tuple(arg if arg is types.NoneType else _constrained(arg, bounds) for arg in args)]
    if origin is typing.Annotated:  # bounds of its own already: merged, the stricter kept
        base, *metas = args
        merged = dict(bounds)
        for meta in metas:
            for name, limit in _meta_bounds(meta).items():
                merged[name] = _STRICTER[name](merged[name], limit) if name in merged else limit
        return typing.Annotated[base, msgspec.Meta(**merged)]
    return typing.Annotated[wire, msgspec.Meta(**bounds)]


def _meta_bounds(meta: msgspec.Meta) -> dict[str, Any]:
    return {name: getattr(meta, name) for name in _STRICTER if getattr(meta, name) is not None}


def _hints(cls: Any) -> list[tuple[str, Any]]:
    """The fields a snapshot stores of a struct or pydantic model, with their annotations (and bounds)."""
    if _is_model(cls):
        return [(name, typing.Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation)
                for name, field in cls.model_fields.items()]
    hints = typing.get_type_hints(cls, include_extras=True)
    return [(name, hints[name]) for name in cls.__struct_fields__]


# Each combatant of the state this thread last decoded, by his id: (the combatant, kept so that the id stays
# his, and what msgpack held for him). A combatant the next snapshot still holds (one the command left alone:
# the state is immutable, so he is the same object) is written as he was read, not taken apart again field by
# field with his fighter, sheet and track (a roster of hundreds is written at every command). Only the last
# body a thread decoded is kept, for that thread: a command decodes and writes in one. A combatant holding a
# persistent map is not kept: that map's newest version changes the dict it was read into
# (engine.kernel.pmap), so what msgpack held is no longer his.
_LOCAL = threading.local()


def _read() -> dict[int, tuple[Combatant, Any]]:
    """This thread's combatants of the last body it decoded (`_LOCAL`)."""
    found: dict[int, tuple[Combatant, Any]] | None = getattr(_LOCAL, "read", None)
    if found is None:
        found = _LOCAL.read = {}
    return found


class _Deriver:
    """Walks the state's annotations once: a codec per annotation, a struct per class."""

    def __init__(self) -> None:
        self.classes: dict[type, Codec | None] = {}  # None: being derived (a recursive type is refused)
        self.derived: dict[Any, Codec] = {}  # each annotation once (the change's values repeat the state's)

    def codec(self, hint: Any) -> Codec:
        try:
            return self.derived[hint]
        except KeyError:
            found = self.derived[hint] = self._codec(hint)
            return found

    def _codec(self, hint: Any) -> Codec:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is typing.Annotated:
            base = self.codec(args[0])
            return msgspec.structs.replace(base, wire=_constrained(base.wire, _bounds(args[1:])))
        if hint in (str, int, bool):
            return Codec(hint)
        if hint is None or hint is types.NoneType:
            return Codec(types.NoneType)
        if origin is Literal and all(type(arg) in (str, int, bool) for arg in args):
            return Codec(hint)
        if origin in (Union, types.UnionType):
            return self.union(args, hint)
        if origin is tuple:
            return self.sequence(args, hint)
        if origin in (frozenset, abc.Set):
            item = self.codec(args[0])
            if not item.same:
                raise TypeError(f"{hint!r}: a set of values that change when stored")
            return Codec(frozenset[item.wire])  # type: ignore[name-defined]  # a type built at run time
        if origin is dict:
            return self.plain(*args)
        if origin is abc.Mapping:
            return self.mapping(*args)
        if hint is EventMap:
            return Codec(tuple[int, ...], _event_keys, EventMap.in_log)
        if hint is Change:
            return self.change()
        if hint is RulesPart:
            return self.part()
        if isinstance(hint, type) and (issubclass(hint, msgspec.Struct) or _is_model(hint)):
            return self.struct(hint)
        raise TypeError(f"{hint!r}: the snapshot's schema derives no type for it")

    def union(self, args: tuple[Any, ...], hint: Any) -> Codec:
        members = [self.codec(arg) for arg in args]
        wire: Any = Union[tuple(member.wire for member in members)]
        changing = [member for member in members if not member.same]
        if not changing:
            return Codec(wire)
        if len(members) != 2 or types.NoneType not in args:
            raise TypeError(f"{hint!r}: a union of values that change when stored, other than `X | None`")
        inner = changing[0]
        return Codec(wire, _unless_none(inner.encode), _unless_none(inner.decode))

    def sequence(self, args: tuple[Any, ...], hint: Any) -> Codec:
        if len(args) == 2 and args[1] is Ellipsis:
            item = self.codec(args[0])
            wire: Any = _TUPLE[item.wire, ...]
            if item.same:
                return Codec(wire)
            return Codec(wire, _each(item.encode), _each(item.decode))
        items = [self.codec(arg) for arg in args]
        wire = _TUPLE[tuple(item.wire for item in items)]
        if all(item.same for item in items):
            return Codec(wire)
        encodes, decodes = [item.encode for item in items], [item.decode for item in items]
        return Codec(wire, lambda value: tuple(_apply(encodes, value)), lambda value: tuple(_apply(decodes, value)))

    def plain(self, key_hint: Any, item_hint: Any) -> Codec:
        key, item = self.codec(key_hint), self.codec(item_hint)
        if not key.same:
            raise TypeError(f"{key_hint!r}: a map's key that changes when stored")
        wire = dict[key.wire, item.wire]  # type: ignore[name-defined]  # a type built at run time
        if item.same:
            return Codec(wire)
        return Codec(wire, _values(item.encode), _values(item.decode))

    def mapping(self, key_hint: Any, item_hint: Any) -> Codec:
        """A map that may be persistent (engine.rulesets.fudge.evolving.with_item): [persistent, {key: value}]."""
        plain = self.plain(key_hint, item_hint)
        encode_items, decode_items = plain.encode or _same, plain.decode or _same

        def encode(value: Any) -> tuple[bool, Any]:
            if type(value) is dict:
                return False, encode_items(value)
            if type(value) in KINDS and type(value) is not EventMap:
                return True, encode_items(value._data())  # noqa: SLF001 - its current dict, as it is read
            raise TypeError(f"a {type(value).__name__} where a map is stored")

        def decode(value: tuple[bool, Any]) -> Any:
            persistent, items = value
            items = decode_items(items)
            return PMap.holding(items) if persistent else items

        return Codec(_TUPLE[bool, plain.wire], encode, decode)

    def part(self) -> Codec:
        """A ruleset's part of the state (`FightState.part`): each built-in ruleset's part class (and the
        empty one) as an array tagged by the class's name, one member of a union each."""
        kinds: set[type[RulesPart]] = {RulesPart, *(type(initial_part(name)) for name in RULESETS)}
        classes = sorted(kinds, key=lambda cls: cls.__name__)
        members = {cls: self.struct(cls, tag=cls.__name__) for cls in classes}
        by_wire = {codec.wire: codec for codec in members.values()}

        def encode(value: Any) -> Any:
            codec = members.get(type(value))
            if codec is None or codec.encode is None:
                raise TypeError(f"a {type(value).__name__} where a ruleset's part of the state is stored")
            return codec.encode(value)

        def decode(value: Any) -> Any:
            convert = by_wire[type(value)].decode
            assert convert is not None
            return convert(value)

        return Codec(_UNION[tuple(codec.wire for codec in members.values())], encode, decode)

    def struct(self, cls: type, tag: str | None = None) -> Codec:
        """A class's fields as an array; a struct is rebuilt by its own __init__ (which sets its fields and
        does nothing else: a `__post_init__` is refused), a pydantic model as its own pickling would restore
        it (its fields' dict, all of them set).
        `tag`: the array starts with it (a member of a tagged union, `part`)."""
        if cls in self.classes:
            found = self.classes[cls]
            if found is None:
                raise TypeError(f"{cls.__name__} holds itself: the snapshot's schema has no recursive type")
            return found
        self.classes[cls] = None
        if issubclass(cls, msgspec.Struct) and hasattr(cls, "__post_init__"):
            raise TypeError(f"{cls.__name__} has a __post_init__: a snapshot rebuilds a value from its fields alone")
        fields = _hints(cls)
        names = tuple(name for name, _ in fields)
        codecs = [self.codec(hint) for _, hint in fields]
        wire = msgspec.defstruct(cls.__name__, [(name, codec.wire) for name, codec in zip(names, codecs)],
                                 array_like=True, gc=False, tag=tag)
        read: Callable[[Any], Any]
        if len(names) > 1:
            read = operator.attrgetter(*names)
        else:
            read = (lambda value: (getattr(value, names[0]),)) if names else (lambda value: ())
        tagged = () if tag is None else (tag,)
        encodes = [(number, codec.encode) for number, codec in enumerate(codecs) if codec.encode is not None]
        decodes = [(number, codec.decode) for number, codec in enumerate(codecs) if codec.decode is not None]

        def encode(value: Any) -> Any:
            was = _read().get(id(value)) if remember else None
            if was is not None and was[0] is value:
                return was[1]  # as msgpack held him: the same array
            if type(value) is not cls and not (cls is FightState and isinstance(value, FightState)):
                raise TypeError(f"a {type(value).__name__} where a {cls.__name__} is stored")
            held = read(value)
            if not encodes:
                return (*tagged, *held) if tagged else held
            out = list(held)
            for number, convert in encodes:
                out[number] = convert(out[number])
            return [*tagged, *out]

        build = _model(cls, names) if _is_model(cls) else _struct(cls)

        remember = cls is Combatant

        def decode(value: Any) -> Any:
            held: Any = msgspec.structs.astuple(value)
            if decodes:
                held = list(held)
                for number, convert in decodes:
                    held[number] = convert(held[number])
            made = build(held)
            if remember and not any(type(item) in KINDS for item in held):
                _read()[id(made)] = (made, value)
            return made

        codec = self.classes[cls] = Codec(wire, encode, decode)
        return codec

    def change(self) -> Codec:
        """An undo's change (engine.kernel.rewind.Change): each value it puts back typed as the state's field it
        names, each map's keys and values before typed as that map's."""
        values: dict[str, tuple[Any, Codec]] = {}  # field -> (its tagged struct, its codec)
        keys: dict[str, tuple[Any, Convert, Convert]] = {}  # map field -> (its struct, encode, decode of a value)
        for name, hint in _hints(FightState):
            if name == "last_seq":  # the log's, never put back (engine.kernel.rewind)
                continue
            codec = self.codec(hint)
            values[name] = (_tagged(f"Before_{name}", name, [("value", codec.wire)]), codec)
            if hint is EventMap:  # a key's event is the log's: true, or false when it was not bound
                keys[name] = (_tagged(f"Keys_{name}", name, [("entries", tuple[tuple[int, bool], ...])]),
                              lambda before: before is not MISSING, lambda bound: LOGGED if bound else MISSING)
            elif typing.get_origin(hint) is abc.Mapping:
                key_hint, item_hint = typing.get_args(hint)
                key, item = self.codec(key_hint), self.codec(item_hint)
                if types.NoneType in typing.get_args(item.wire) or item.wire is types.NoneType:
                    raise TypeError(f"{name}: a map whose values may be None (nil stands for a key not bound)")
                entries: Any = _TUPLE[_TUPLE[key.wire, _UNION[item.wire, None]], ...]
                keys[name] = (_tagged(f"Keys_{name}", name, [("entries", entries)]),
                              _unless_missing(item.encode), _unless_none_missing(item.decode))
        wire = msgspec.defstruct("Change", [
            ("command", str), ("first", int),
            ("values", tuple[Union[tuple(struct for struct, _ in values.values())], ...]),  # type: ignore[misc]  # a type built at run time
            ("keys", tuple[Union[tuple(struct for struct, _, _ in keys.values())], ...]),  # type: ignore[misc]  # a type built at run time
        ], array_like=True, gc=False)
        value_of = {struct: (name, codec.decode or _same) for name, (struct, codec) in values.items()}
        keys_of = {struct: (name, decode) for name, (struct, _, decode) in keys.items()}

        def encode(change: Change) -> Any:
            return (change.command, change.first,
                    [(name, _encoded(values[name][1], value)) for name, value in change.values],
                    [(name, [(key, keys[name][1](before)) for key, before in items]) for name, items in change.keys])

        def decode(wire: Any) -> Change:
            put_back = []
            for before in wire.values:
                name, convert = value_of[type(before)]
                put_back.append((name, convert(before.value)))
            set_keys = []
            for entries in wire.keys:
                name, convert = keys_of[type(entries)]
                set_keys.append((name, tuple((key, convert(before)) for key, before in entries.entries)))
            return Change(wire.command, wire.first, tuple(put_back), tuple(set_keys))

        return Codec(wire, encode, decode)


def _same(value: Any) -> Any:
    return value


def _event_keys(value: Any) -> tuple[int, ...]:
    """An event map as a snapshot keeps it: its keys, the events left in the log."""
    if isinstance(value, EventMap):
        return value.logged_keys()
    if type(value) is dict:
        return tuple(value)
    raise TypeError(f"a {type(value).__name__} where the events are stored")


def _encoded(codec: Codec, value: Any) -> Any:
    return value if codec.encode is None else codec.encode(value)


def _apply(converts: list[Convert | None], value: Any) -> typing.Iterator[Any]:
    return (item if convert is None else convert(item) for convert, item in zip(converts, value))


def _each(convert: Convert | None) -> Convert:
    assert convert is not None
    return lambda value: tuple(map(convert, value))


def _values(convert: Convert | None) -> Convert:
    assert convert is not None
    return lambda value: {key: convert(item) for key, item in value.items()}


def _unless_none(convert: Convert | None) -> Convert | None:
    if convert is None:
        return None
    return lambda value: None if value is None else convert(value)


def _unless_missing(convert: Convert | None) -> Convert:
    """A map's value before a change, stored: nil for MISSING (a key that was not bound)."""
    if convert is None:
        return lambda value: None if value is MISSING else value
    return lambda value: None if value is MISSING else convert(value)


def _unless_none_missing(convert: Convert | None) -> Convert:
    if convert is None:
        return lambda value: MISSING if value is None else value
    return lambda value: MISSING if value is None else convert(value)


def _tagged(name: str, tag: str, fields: list[tuple[str, Any]]) -> Any:
    return msgspec.defstruct(name, fields, array_like=True, gc=False, tag=tag)


def _struct(cls: Any) -> Callable[[Any], Any]:
    """Builds a struct from its stored fields, in order (by name where its fields are keyword-only: the
    events' structs, events.structs)."""
    names = cls.__struct_fields__
    if len(cls.__match_args__) == len(names):
        return lambda values: cls(*values)
    return lambda values: cls(**dict(zip(names, values)))


def _model(cls: Any, names: tuple[str, ...]) -> Callable[[Any], Any]:
    """Builds a pydantic model from its stored fields without validating them again (their types and
    bounds were the decoder's): its dict, every field set, as pydantic's own `__setstate__` does."""
    fields = frozenset(names)
    new, write = object.__new__, object.__setattr__

    def build(values: Any) -> Any:
        made = new(cls)
        write(made, "__dict__", dict(zip(names, values)))
        write(made, "__pydantic_fields_set__", set(fields))
        write(made, "__pydantic_extra__", None)
        write(made, "__pydantic_private__", None)
        return made

    return build


class Body(typing.NamedTuple):
    """What a snapshot's body decodes to."""

    state: FightState
    history: History


@functools.cache
def _schema() -> tuple[msgspec.msgpack.Encoder, msgspec.msgpack.Decoder[Any], Codec, Codec]:
    deriver = _Deriver()
    state, history = deriver.codec(FightState), deriver.codec(History)
    root = msgspec.defstruct("Snapshot", [("state", state.wire), ("history", history.wire)], array_like=True, gc=False)
    return msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(root), state, history


def tree(state: FightState, history: History) -> Any:
    """What a snapshot's body holds, before it is written as msgpack: arrays, maps and plain values."""
    _, _, state_codec, history_codec = _schema()
    assert state_codec.encode is not None and history_codec.encode is not None
    return state_codec.encode(state), history_codec.encode(history)


def encode(state: FightState, history: History) -> bytes:
    """The body of a snapshot of this state and undo history."""
    return _schema()[0].encode(tree(state, history))


def decode(body: bytes) -> Body:
    """The state and history a body holds, or msgspec.ValidationError / DecodeError saying where it is not
    of the schema."""
    _, decoder, state_codec, history_codec = _schema()
    assert state_codec.decode is not None and history_codec.decode is not None
    found = decoder.decode(body)
    _LOCAL.read = {}
    return Body(state_codec.decode(found.state), history_codec.decode(found.history))
