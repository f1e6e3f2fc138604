"""The files the server creates hold token hashes: the database folder it
creates is 0700, the database, its -wal and -shm and the lock file 0600,
under the usual umask 022 (outside systemd's UMask=0077); files an older
version left readable by others are narrowed at start."""
import os
import stat

from harness import FreshServerTest, Server, sqlite_only


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@sqlite_only("the modes of SQLite's files")
class FileModeTest(FreshServerTest):
    def setUp(self):
        super().setUp()
        self.old_umask = os.umask(0o022)

    def tearDown(self):
        os.umask(self.old_umask)
        super().tearDown()

    def start(self):
        s = Server(datadir=self.dir, extra=["--db", self.db])
        self.servers.append(s)
        return s

    def test_created_private_under_umask_022(self):
        self.db = self.path("data", "sub", "chess.db")
        srv = self.start()
        w, b, gid = self.start_game(srv)
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)
        # folders the server made
        self.assertEqual(oct(mode(self.path("data"))), oct(0o700))
        self.assertEqual(oct(mode(self.path("data", "sub"))), oct(0o700))
        for suffix in ("", "-wal", "-shm", ".lock"):
            self.assertTrue(os.path.exists(self.db + suffix), suffix)
            self.assertEqual(oct(mode(self.db + suffix)), oct(0o600),
                             "chess.db" + suffix)
        # a folder that existed keeps its mode (the test's own, 0700 from
        # mkdtemp, is not the server's to change)
        self.assertEqual(mode(self.dir), 0o700)

    def test_existing_files_readable_by_others_are_narrowed(self):
        self.db = self.path("chess.db")
        srv = self.start()
        self.assertEqual(srv.terminate(), 0)
        self.servers.remove(srv)
        for suffix in ("", ".lock"):
            os.chmod(self.db + suffix, 0o644)
        srv = self.start()
        self.assertEqual(mode(self.db), 0o600)
        self.assertEqual(mode(self.db + ".lock"), 0o600)
        self.assertIn("event=store_mode_narrowed", srv.log_text())
        self.assertIn("was=0644 now=0600", srv.log_text())
