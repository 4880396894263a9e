"""--shard K/N and merge-reports: two shards' merged report equals an unsharded run's."""

from __future__ import annotations

import json

import pytest

from codemods import shard
from codemods.cli import main
from tests.samples import MIXED, ONE, VALID


def test_parse_shard():
    assert shard.parse_shard("2/4") == (2, 4)
    for bad in ("0/2", "3/2", "1", "a/b", "1/0"):
        with pytest.raises(shard.ShardError):
            shard.parse_shard(bad)


def test_every_path_in_exactly_one_shard_independent_of_where_the_tree_is(tmp_path):
    rels = [f"pkg{i % 7}/mod{i}.py" for i in range(200)]
    a = [shard.shard_of(str(tmp_path / "a" / r), str(tmp_path / "a"), 3) for r in rels]
    b = [shard.shard_of(str(tmp_path / "elsewhere" / r), str(tmp_path / "elsewhere"), 3) for r in rels]
    assert a == b  # same relative paths, same split, wherever the checkout is
    assert set(a) == {1, 2, 3} and all(30 < a.count(k) < 110 for k in (1, 2, 3))


def _tree(root):
    files = {
        "a.py": MIXED, "b.py": ONE, "c.py": VALID, "bad.py": b"def f(:\n backend_config\n",
        "sub/d.py": ONE, "sub/e.py": MIXED, "sub/deeper/f.py": ONE, "z/g.py": MIXED, "z/h.py": VALID,
    }
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _report(capsys, *argv):
    main(list(argv))
    capsys.readouterr()


def test_merged_shards_equal_the_unsharded_report(tmp_path, capsys, monkeypatch):
    _tree(tmp_path / "repo")
    monkeypatch.chdir(tmp_path / "repo")
    _report(capsys, "diff", ".", "--report", str(tmp_path / "all.json"))
    _report(capsys, "diff", ".", "--shard", "1/2", "--report", str(tmp_path / "s1.json"))
    _report(capsys, "diff", ".", "--shard", "2/2", "--report", str(tmp_path / "s2.json"))
    shards = [json.loads((tmp_path / f"s{k}.json").read_text()) for k in (1, 2)]
    assert all(s["files"] for s in shards)  # the split is not degenerate here
    assert not {f["path"] for f in shards[0]["files"]} & {f["path"] for f in shards[1]["files"]}
    code = main(["merge-reports", str(tmp_path / "s2.json"), str(tmp_path / "s1.json"),
                 "-o", str(tmp_path / "merged.json"), "--report-md", str(tmp_path / "merged.md")])
    out, _ = capsys.readouterr()
    assert code == 0 and "9 file(s) scanned" in out
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert merged == json.loads((tmp_path / "all.json").read_text())
    assert "| backend-config |" in (tmp_path / "merged.md").read_text()


def test_merge_refuses_overlapping_or_mixed_reports(tmp_path, capsys):
    _tree(tmp_path)
    _report(capsys, "diff", str(tmp_path), "--report", str(tmp_path / "d.json"))
    code = main(["merge-reports", str(tmp_path / "d.json"), str(tmp_path / "d.json"), "-o", str(tmp_path / "m.json")])
    assert code == 2 and "more than one report" in capsys.readouterr().err
    data = json.loads((tmp_path / "d.json").read_text())
    (tmp_path / "a.json").write_text(json.dumps({**data, "command": "apply", "files": []}))
    code = main(["merge-reports", str(tmp_path / "d.json"), str(tmp_path / "a.json"), "-o", str(tmp_path / "m.json")])
    assert code == 2 and "different commands" in capsys.readouterr().err
