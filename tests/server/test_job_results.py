"""read_result (jobs.py) on what a finished search left: a report that is not an object, or files that are not
UTF-8, read as no report (the server says so) instead of an exception that would leave the job's progress
spinning."""
from __future__ import annotations

import json

import pytest

from adaexplore_server.jobs import Job, read_result


def job_with(tmp_path, report: bytes, best: bytes | None = None) -> Job:
    job = Job(uri="file:///m.py", class_name="Net", digest="d", version=1, content_key="k", device="cpu", steps=3,
              proposer="builtin", workdir=tmp_path)
    job.out.mkdir()
    (job.out / "report.json").write_bytes(report)
    if best is not None:
        (job.out / "best.py").write_bytes(best)
    return job


@pytest.mark.parametrize("report", [b"[]", b"42", b"null", b'"text"', b"\xff\xfe not utf-8", b"{broken"])
def test_a_report_that_is_not_an_object_is_no_report(tmp_path, report):
    assert read_result(job_with(tmp_path, report)) is None


def test_a_best_source_that_is_not_utf8_is_no_report(tmp_path):
    report = json.dumps({"best": {"speedup_vs_eager": 2.0}, "steps": 3, "valid": 1}).encode()
    assert read_result(job_with(tmp_path, report, best=b"\xff\xfe\x00")) is None


def test_a_good_report_is_read(tmp_path):
    report = json.dumps({"best": {"speedup_vs_eager": 2.0}, "steps": 3, "valid": 1,
                         "rejections": [{"reason": "r", "count": 2}]}).encode()
    result = read_result(job_with(tmp_path, report, best="# é\n".encode()))
    assert result["best_source"] == "# é\n" and result["rejections"] == [{"reason": "r", "count": 2}]
