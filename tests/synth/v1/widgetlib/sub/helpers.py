from .. import core
from ..runner import Runner


class Helper(Runner):
    pass
