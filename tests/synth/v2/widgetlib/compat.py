"""Stand-ins so the library reads like one that uses pydantic (never imported by the probe)."""


class BaseModel:
    pass


def Field(default=..., **kwargs):
    return default
