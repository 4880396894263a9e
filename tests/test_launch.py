"""The command's entry point: which invocations start a verification worker before the CLI loads."""

from __future__ import annotations

from codemods import launch


def test_only_verify_with_workers_starts_one_early():
    assert launch.verifies(["verify", "pkg"])
    assert launch.verifies(["verify", "-q", "--platforms", "cpu,cuda", "pkg"])
    assert not launch.verifies(["verify", "--static", "pkg"])
    assert not launch.verifies(["verify", "--help"])
    assert not launch.verifies(["diff", "verify"])  # a path named verify
    assert launch.verifies(["apply", "--verify", "pkg"])
    assert not launch.verifies(["apply", "pkg"])
    assert not launch.verifies([])


def test_platforms_for_the_warm_up():
    assert launch.platforms(["verify", "--platforms", "CPU,cuda,cpu", "pkg"]) == ["cpu", "cuda"]
    assert launch.platforms(["verify", "--platforms=tpu", "pkg"]) == ["tpu"]
    assert launch.platforms(["verify", "--platforms", "nonsense", "pkg"]) == []
    assert launch.platforms(["verify", "pkg"]) == []
