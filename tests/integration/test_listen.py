"""The listen address: an IPv4 address gives an IPv4 socket on that
address only, an IPv6 address an IPv6-only socket, "" both; the start line
names what was bound. The test plays an attacker on another loopback
address (127.0.0.2) and on the other family (::1 or 127.0.0.1). A listen
address that cannot be honoured (libwebsockets cannot read the interface
list, as under a systemd unit without AF_NETLINK) stops the start with
exit status 2 instead of listening on every address."""
import os
import re
import socket
import subprocess

from harness import SERVER, FreshServerTest, free_port, not_in_cluster
from test_ops import make_cert

RESTRICT_AF = os.environ.get("CHESS_RESTRICT_AF", "")
# what deploy/chess-server.service allowed before AF_NETLINK was added
WITHOUT_NETLINK = "AF_INET,AF_INET6,AF_UNIX"


def accepts(host, port):
    """True when a TCP connection to host:port is accepted, False when it
    is refused."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect((host, port))
        return True
    except ConnectionRefusedError:
        return False
    finally:
        s.close()


def start_line(srv):
    m = re.search(r"event=listening .*", srv.log_text())
    return m.group(0) if m else ""


@not_in_cluster("a process's own listeners and address families")
class ListenTest(FreshServerTest):
    def test_ipv4_address_is_the_only_one_listened_on(self):
        srv = self.server(extra=["--listen", "127.0.0.1"])
        self.assertEqual(srv.http("/healthz")[0], 200)
        self.assertTrue(accepts("127.0.0.1", srv.port))
        # another address of the machine, and IPv6
        self.assertFalse(accepts("127.0.0.2", srv.port))
        self.assertFalse(accepts("::1", srv.port))
        line = start_line(srv)
        self.assertIn(" address=127.0.0.1 family=ipv4 port=%d " % srv.port,
                      line)

    def test_ipv6_address_is_the_only_one_listened_on(self):
        srv = self.server(extra=["--listen", "::1"])
        self.assertTrue(accepts("::1", srv.port))
        self.assertFalse(accepts("127.0.0.1", srv.port))
        self.assertFalse(accepts("127.0.0.2", srv.port))
        self.assertIn(" address=::1 family=ipv6 port=%d " % srv.port,
                      start_line(srv))

    def test_every_address(self):
        srv = self.server(extra=["--listen", ""])
        for host in ("127.0.0.1", "127.0.0.2", "::1"):
            self.assertTrue(accepts(host, srv.port), host)
        self.assertIn(" address=:: family=ipv4+ipv6 port=%d " % srv.port,
                      start_line(srv))

    def test_redirect_listener_on_the_address_only(self):
        cert, key = make_cert(self.dir)
        rport = free_port()
        srv = self.server({"tls_cert": cert, "tls_key": key,
                           "http_redirect_port": rport})
        self.assertTrue(accepts("127.0.0.1", rport))
        self.assertFalse(accepts("127.0.0.2", rport))
        self.assertFalse(accepts("::1", rport))
        self.assertFalse(accepts("127.0.0.2", srv.port))
        self.assertIn(" redirect_port=%d " % rport, start_line(srv))

    def run_server(self, *argv, wrapper=()):
        port = free_port()
        r = subprocess.run(
            list(wrapper) + [SERVER, "--port", str(port),
                             "--db", self.path("db", "c.db"),
                             "--web", self.dir] + list(argv),
            capture_output=True, text=True, timeout=20)
        return r, port

    def test_address_not_on_this_machine_stops_the_start(self):
        # 192.0.2.1 (TEST-NET-1) is on no interface: bind fails, no
        # packet is sent anywhere
        r, port = self.run_server("--listen", "192.0.2.1")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("event=start_failed", r.stderr)
        self.assertIn("cannot listen on 192.0.2.1 port %d" % port, r.stderr)
        self.assertNotIn("event=listening", r.stderr)

    def test_unusable_address_is_refused_not_widened(self):
        """Where getifaddrs() fails (no netlink), libwebsockets 4.1 binds
        every address; the server must refuse to start instead."""
        self.assertTrue(RESTRICT_AF, "CHESS_RESTRICT_AF not set (meson "
                        "sets it to the restrict_af helper)")
        for address in ("127.0.0.1", "::1"):
            with self.subTest(address=address):
                p = subprocess.Popen(
                    [RESTRICT_AF, WITHOUT_NETLINK, SERVER, "--listen",
                     address, "--port",
                     str(free_port()), "--db", self.path("db", "c.db"),
                     "--web", self.dir],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True)
                self.procs.append(p)
                try:
                    out, err = p.communicate(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    out, err = p.communicate()
                    self.fail("the server started (listening wider than "
                              "asked?): " + err)
                self.assertEqual(p.returncode, 2, err)
                self.assertIn("event=start_failed", err)
                self.assertIn("listen_address cannot be honoured", err)
                self.assertIn("bound to 0.0.0.0" if "." in address
                              else "bound to ::", err)
                self.assertIn("AF_NETLINK", err)
                self.assertNotIn("event=listening", err)

    def test_unusable_address_probe_works(self):
        """The helper really takes netlink away (so the test above tests
        what it says)."""
        r = subprocess.run(
            [RESTRICT_AF, WITHOUT_NETLINK, "python3", "-c",
             "import socket; socket.socket(socket.AF_NETLINK, "
             "socket.SOCK_RAW, 0)"], capture_output=True, text=True,
            timeout=20)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Address family not supported", r.stderr)

