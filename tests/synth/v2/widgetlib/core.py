import dataclasses
from dataclasses import InitVar, dataclass, field
from typing import overload

DEFAULT_SIZE = 16


@dataclass
class Widget:
    name: str
    device: InitVar[str]
    size: int = 32
    tags: list = field(default_factory=list)
    colour: InitVar[str] = "red"

    def __post_init__(self, device, colour):
        self.hue = colour


@overload
def make_widget(name: str) -> Widget: ...
@overload
def make_widget(name: str, size: int) -> Widget: ...
def make_widget(name, size=DEFAULT_SIZE, *, strict=False, **extra):
    assert widget_ok(name)
    if strict and size < 0:
        raise ValueError("size must be positive")
    return Widget(name=name, size=size)


def widget_ok(name):
    return bool(name)


def fetch(items, unique_index=None):
    rank = unique_index

    def pick():
        return items[0] if rank is not None else items

    return pick()


def build(cls, **kwargs):
    kwargs["size"] = 16
    kwargs.setdefault("strict", False)
    return cls(**kwargs)
