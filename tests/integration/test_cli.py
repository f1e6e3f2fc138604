"""The command line: --help, bad values, the start-up log line, the
database folder, one server per database."""
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import (POSTGRES, SERVER, Server, pg_create, pg_database,
                     pg_drop, sqlite_only)


class CliTest(unittest.TestCase):
    def setUp(self):
        if not SERVER:
            raise unittest.SkipTest("CHESS_SERVER not set")

    def run_server(self, *args):
        return subprocess.run([SERVER] + list(args), capture_output=True,
                              text=True, timeout=10)

    def test_help_lists_options(self):
        r = self.run_server("--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("--port", "--db", "--web", "--grace-s",
                    "--first-move-s"):
            self.assertIn(opt, r.stdout)

    def test_bad_values_exit_with_a_message(self):
        for args, word in ((["--port", "0"], "--port"),
                           (["--port", "70000"], "--port"),
                           (["--port", "abc"], "--port"),
                           (["--grace-s", "-1"], "--grace-s"),
                           (["--first-move-s", "x"], "--first-move-s"),
                           (["--bogus"], "--bogus"),
                           (["--port"], "--port"),
                           (["extra"], "extra")):
            r = self.run_server(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(word, r.stderr, args)

    @sqlite_only("the database file's folder and its lock (nodes share a "
                 "PostgreSQL database: nothing to lock)")
    def test_start_log_db_folder_and_lock(self):
        d = tempfile.mkdtemp(prefix="chess-cli-")
        try:
            srv = Server(datadir=d)
            log = srv.log_text()
            self.assertIn("event=listening", log)
            self.assertIn("port=%d " % srv.port, log)
            self.assertIn(srv.db, log)
            self.assertTrue(os.path.isdir(os.path.dirname(srv.db)))
            r = self.run_server("--port", "1", "--db", srv.db)
            self.assertEqual(r.returncode, 1)
            self.assertIn("in use", r.stderr)
            self.assertEqual(srv.terminate(), 0)
            self.assertIn("event=stopped", srv.log_text())
        finally:
            shutil.rmtree(d, ignore_errors=True)

    @unittest.skipUnless(POSTGRES, "PostgreSQL only: its connection string")
    def test_start_log_names_postgres_without_its_password(self):
        d = tempfile.mkdtemp(prefix="chess-cli-")
        try:
            pg_create(d)
            srv = Server(datadir=d, extra=[
                "--postgres", POSTGRES + " dbname=" + pg_database(d)
                + " password=s3cret-pw"])
            log = srv.log_text()
            self.assertIn("store=postgres", log)
            self.assertIn("dbname=%s " % pg_database(d), log)
            self.assertNotIn("s3cret-pw", log)
            self.assertEqual(srv.terminate(), 0)
            self.assertNotIn("s3cret-pw", srv.log_text())
        finally:
            shutil.rmtree(d, ignore_errors=True)
            pg_drop(d)
