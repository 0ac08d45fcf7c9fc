from .core import Widget


class State:
    def __init__(self, output):
        self.output = output


class Runner:
    def __init__(self, widget: Widget, *, block_size: int = 16):
        self.widget = widget
        self.state = None
        self.block_size = block_size

    def execute(self, batch):
        if self.state is not None:
            raise RuntimeError("execute() called twice without sample()")
        output = [w for w in batch]
        self.state = State(output)
        return None

    def sample(self, grammar=None):
        if self.state is None:
            return None
        output = self.state.output
        self.state = None
        return output

    def check(self, request, blocks):
        assert len(request.block_hashes) >= blocks
        assert self.block_size > 0
        return True

    def make(self, config):
        scheduler_block_size = config.cache.block_size * 2
        return Scheduler(vllm_config=config, block_size=scheduler_block_size)


class Scheduler:
    def __init__(self, vllm_config, block_size):
        self.block_size = block_size
