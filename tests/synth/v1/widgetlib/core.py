import dataclasses
from dataclasses import InitVar, dataclass, field
from typing import overload

DEFAULT_SIZE = 16


@dataclass
class Widget:
    name: str
    size: int = 16
    tags: list = field(default_factory=list)
    colour: InitVar[str] = "red"

    def __post_init__(self, colour):
        self.hue = colour


@overload
def make_widget(name: str) -> Widget: ...
@overload
def make_widget(name: str, size: int) -> Widget: ...
def make_widget(name, size=DEFAULT_SIZE, *, strict=False, **extra):
    assert widget_ok(name)
    if strict and size < 0:
        raise ValueError("size must be " "non-negative")
    return Widget(name=name, size=size)


def widget_ok(name):
    return bool(name)


def fetch(items, unique_index=None):
    def pick():
        return list(items)

    return pick()


def build(cls, **kwargs):
    kwargs["size"] = 8
    kwargs.setdefault("strict", False)
    return cls(**kwargs)
