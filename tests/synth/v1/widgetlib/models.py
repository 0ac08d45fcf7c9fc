from typing import ClassVar, Optional

from .compat import BaseModel, Field


class Settings(BaseModel):
    name: str
    retries: int = Field(3, ge=0)
    timeout: Optional[float] = Field(default=None)
    registry: ClassVar[dict] = {}
