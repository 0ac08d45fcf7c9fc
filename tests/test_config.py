"""drift.toml / [tool.drift] discovery, validation and flag overrides, on files written here."""

from __future__ import annotations

import argparse

import pytest

from drift.cli import main
from drift.config import DEFAULT_RUN_DIR, Config, ConfigError, find_config, load_config
from drift.jobs.connect import add_host_arguments, settings_from_args

FULL = """\
host = "ubuntu@gpu-01:2222"
python = "/opt/venv/bin/python"
consumer = "speculators==0.3.0"
target = "host"
baseline = "vllm==0.11.0"
identity = "~/.ssh/gpu"
jump = "bastion"
accept_new = true

[launch]
command = ["python", "-m", "speculators.data_generation", "--model", "Qwen/Qwen3-8B"]
run_dir = "/scratch/drift-runs"

[watch.progress]
"samples" = 'saved (?P<done>\\d+) samples'
"""


def test_drift_toml_full(tmp_path):
    (tmp_path / "drift.toml").write_text(FULL)
    cfg = load_config(cwd=tmp_path)
    assert cfg.host == "ubuntu@gpu-01:2222"
    assert cfg.python == "/opt/venv/bin/python"
    assert cfg.consumer == "speculators==0.3.0" and cfg.baseline == "vllm==0.11.0" and cfg.target == "host"
    assert cfg.identity == "~/.ssh/gpu" and cfg.jump == "bastion" and cfg.accept_new is True
    assert cfg.launch_command == ("python", "-m", "speculators.data_generation", "--model", "Qwen/Qwen3-8B")
    assert cfg.run_dir == "/scratch/drift-runs"
    assert cfg.progress_patterns == {"samples": r"saved (?P<done>\d+) samples"}
    assert cfg.source == tmp_path / "drift.toml"


def test_searched_upwards_from_a_subdirectory(tmp_path):
    (tmp_path / "drift.toml").write_text('host = "gpu-01"\n')
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert find_config(deep) == tmp_path / "drift.toml"
    assert load_config(cwd=deep).host == "gpu-01"


def test_pyproject_tool_drift_and_nearest_wins(tmp_path):
    (tmp_path / "drift.toml").write_text('host = "outer"\n')
    inner = tmp_path / "proj"
    inner.mkdir()
    (inner / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.drift]\nhost = "inner"\n\n[tool.drift.launch]\ncommand = "python run.py --n 3"\n'
    )
    cfg = load_config(cwd=inner)
    assert cfg.host == "inner"
    assert cfg.launch_command == ("python", "run.py", "--n", "3")


def test_pyproject_without_tool_drift_is_skipped(tmp_path):
    (tmp_path / "drift.toml").write_text('host = "outer"\n')
    inner = tmp_path / "proj"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert load_config(cwd=inner).host == "outer"


def test_no_file_gives_defaults(tmp_path):
    cfg = load_config(cwd=tmp_path)
    assert cfg == Config()
    assert cfg.run_dir == DEFAULT_RUN_DIR and cfg.launch_command == ()


def test_explicit_config_path(tmp_path):
    (tmp_path / "drift.toml").write_text('host = "found"\n')
    other = tmp_path / "elsewhere.toml"
    other.write_text('host = "explicit"\n')
    assert load_config(other, cwd=tmp_path).host == "explicit"
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")


def test_command_string_is_split_like_a_shell(tmp_path):
    (tmp_path / "drift.toml").write_text("[launch]\ncommand = \"python run.py --name 'two words'\"\n")
    assert load_config(cwd=tmp_path).launch_command == ("python", "run.py", "--name", "two words")


@pytest.mark.parametrize(
    "text, message",
    [
        ('host = "a"\nhost = "b"\n', "invalid TOML"),
        ("host = [unclosed\n", "invalid TOML"),
        ('hots = "typo"\n', "unknown key hots"),
        ("accept_new = \"yes\"\n", "accept_new must be true or false"),
        ("port = true\n", "port must be an integer"),
        ("[launch]\ncommand = []\n", "launch.command is empty"),
        ("[launch]\ncommand = [1, 2]\n", "list of strings"),
        ("[launch]\ncommand = \"python 'unbalanced\"\n", "cannot split"),
        ("[launch]\ncwd = \"/x\"\n", "unknown key launch.cwd"),
        ("launch = 3\n", "launch must be a table"),
        ("[watch.progress]\nx = '(unclosed'\n", "bad regular expression"),
        ("[watch.progress]\nx = 'no groups here'\n", "(?P<done>"),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path, text, message):
    (tmp_path / "drift.toml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(cwd=tmp_path)
    assert message in str(info.value)
    assert "drift.toml" in str(info.value)


def test_bad_toml_exits_2_without_traceback(tmp_path, monkeypatch, capsys):
    (tmp_path / "drift.toml").write_text("host = [unclosed\n")
    monkeypatch.chdir(tmp_path)
    assert main(["runs"]) == 2
    err = capsys.readouterr().err
    assert "invalid TOML" in err and "Traceback" not in err


def test_flags_override_config(tmp_path):
    (tmp_path / "drift.toml").write_text(FULL)
    parser = argparse.ArgumentParser()
    add_host_arguments(parser)
    args = parser.parse_args(["--config", str(tmp_path / "drift.toml"), "--python", "/usr/bin/python3.12",
                              "--run-dir", "/tmp/r", "-i", "/k1", "-i", "/k2", "-p", "2200"])
    s = settings_from_args(args, host=None)
    assert s.host == "ubuntu@gpu-01:2222"  # from the file
    assert s.python == "/usr/bin/python3.12" and s.config.run_dir == "/tmp/r" and s.config.port == 2200
    assert s.identities == ("/k1", "/k2")
    assert s.config.jump == "bastion" and s.config.accept_new is True
    assert settings_from_args(args, host="local").is_local
    assert settings_from_args(args, host="other").host == "other"
