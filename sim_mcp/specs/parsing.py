"""YAML parsed fast: libyaml composes the nodes, and plain data (maps of scalar keys, lists, strings) is built
from them here, without PyYAML's general constructor, which costs most of a load (about three quarters of
PyYAML's time with libyaml, at a thousand files). Whatever is not plain data (a merge key `<<`, a
recursive alias, a tag of its own, an unhashable key), and any document libyaml refuses, is read by PyYAML's
own safe loader, whose result, verdict and wording stand.

Strings are shared through `strings`, a table the caller keeps for a whole folder: a catalogue's files repeat
their keys (`type`, `description`, a tool's field names) and, between copies, most of their text, and a
string met again is the one met first.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
# Integers as YAML 1.1 writes them in decimal (the other forms go through PyYAML's constructor).
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9_]*)")


if hasattr(yaml, "CSafeLoader"):

    class _FastLoader(yaml.CSafeLoader):
        """libyaml's safe loader, resolving a scalar's tag as `yaml.SafeLoader` does (by the implicit resolvers
        of its first character; a quoted scalar is a string) without the general case's bookkeeping of path
        resolvers, which the safe loader has none of. libyaml calls these for every node."""

        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            return None

        def ascend_resolver(self) -> None:
            return None

        def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool]) -> str:
            if kind is not ScalarNode or self.yaml_path_resolvers or None in self.yaml_implicit_resolvers:
                resolved: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
                return resolved
            if implicit[0]:
                for tag, pattern in self.yaml_implicit_resolvers.get(value[:1], ()):
                    if pattern.match(value):
                        return str(tag)
            return _STR

    _Loader: type[yaml.CSafeLoader] | None = _FastLoader
else:  # PyYAML built without libyaml
    _Loader = None


class _NotPlain(Exception):
    """A document that is not plain data: read by PyYAML's own constructor instead."""


def load_yaml(text: str, strings: dict[str, str] | None = None) -> Any:
    """The document in `text`, as `yaml.safe_load` reads it; raises `yaml.YAMLError` as it does. `strings`: equal
    strings met before (by this call or earlier ones given the same table), to give them again rather than
    copies."""
    if _Loader is None:
        return yaml.safe_load(text)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        return _Builder(loader, strings if strings is not None else {}).build(node)
    except (yaml.YAMLError, _NotPlain, RecursionError):
        return yaml.safe_load(text)  # PyYAML decides, and words any problem as it always has
    finally:
        loader.dispose()


class _Builder:
    """Builds plain data from composed nodes; a node met twice (an alias) gives the same object, as PyYAML's
    constructor does."""

    def __init__(self, loader: yaml.CSafeLoader, strings: dict[str, str]) -> None:
        self._loader = loader
        self._strings = strings
        self._built: dict[int, Any] = {}
        self._building: set[int] = set()

    def build(self, node: Node) -> Any:
        if type(node) is ScalarNode:
            tag = node.tag
            if tag == _STR:
                return self._strings.setdefault(node.value, node.value)
            if tag == _NULL:
                return None
            if tag == _BOOL:
                return node.value.lower() in ("yes", "true", "on")
            if tag == _INT and _DECIMAL.fullmatch(node.value):
                return int(node.value.replace("_", ""))
            return self._loader.construct_object(node, deep=True)  # floats, dates, other integer forms
        key = id(node)
        if key in self._built:
            return self._built[key]
        if key in self._building:
            raise _NotPlain("a recursive alias")
        self._building.add(key)
        built: Any
        if type(node) is SequenceNode and node.tag == _SEQ:
            built = [self.build(item) for item in node.value]
        elif type(node) is MappingNode and node.tag == _MAP:
            built = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise _NotPlain("a merge key")
                name = self.build(key_node)
                if isinstance(name, (dict, list)):
                    raise _NotPlain("an unhashable key")
                built[name] = self.build(value_node)
        else:
            raise _NotPlain(f"the tag {node.tag}")
        self._building.discard(key)
        self._built[key] = built
        return built
