"""The start-up health check: a damaged file is reported, a file merely busy in another process is not."""

from __future__ import annotations

import sqlite3

from desktop_copilot.core.storage.integrity import integrity_problem, keep_aside


def _database(path):
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x TEXT)")
        db.execute("INSERT INTO t VALUES ('kept')")
    db.close()


def test_a_healthy_file_and_an_absent_one_have_no_problem(tmp_path):
    path = tmp_path / "c.sqlite3"
    assert integrity_problem(path) is None
    _database(path)
    assert integrity_problem(path) is None


def test_a_file_that_is_not_a_database_is_a_problem_and_is_kept_aside(tmp_path):
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    problem = integrity_problem(path)
    assert problem and "not a database" in problem
    error = keep_aside(path, problem)
    assert not path.exists() and error.kept_at.read_bytes().startswith(b"this is not")


def test_a_database_locked_by_another_writer_is_not_called_damaged(tmp_path):
    path = tmp_path / "c.sqlite3"
    _database(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # rollback journal: readers get SQLITE_BUSY until it ends
    try:
        assert integrity_problem(path) is None
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert path.exists()
