"""One size limit for every input file: a file past it, or a device without an end, is
refused by name after reading at most one byte past the limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rag_eval_pytest.data import reading
from rag_eval_pytest.data.reading import FileTooLarge, read_limited


def test_a_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(b'{"test_cases": []}')
    assert read_limited(path) == b'{"test_cases": []}'
    (tmp_path / "empty.json").write_bytes(b"")
    assert read_limited(tmp_path / "empty.json") == b""


def test_a_file_at_the_limit_is_read_and_one_byte_more_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 10)
    (tmp_path / "ok").write_bytes(b"x" * 10)
    assert read_limited(tmp_path / "ok") == b"x" * 10
    (tmp_path / "big").write_bytes(b"x" * 11)
    with pytest.raises(FileTooLarge):
        read_limited(tmp_path / "big")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_without_an_end_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 3 * 1024 * 1024 + 5)
    with pytest.raises(FileTooLarge):
        read_limited(Path("/dev/zero"))


def test_the_message_states_the_limit_in_mib() -> None:
    assert str(FileTooLarge()) == "larger than 256 MiB, the most an input file may hold"
    assert isinstance(FileTooLarge(), ValueError)


def test_a_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_limited(tmp_path / "missing.json")
