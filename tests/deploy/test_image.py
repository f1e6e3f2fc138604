"""deploy/Containerfile's runtime stage can run the server (the image
itself cannot be built here: no registry). Every shared library of a
build of chess-server is resolved to its Debian package (dpkg -S): the
ones it links (ldd) and the ones it loads once running (its
/proc/PID/maps: libwebsockets' libev plugin). The packages of the
libraries it names itself (NEEDED) must be in the stage's apt-get
list; every other must come with that list (its packages' Depends,
installed here, and Debian's Essential packages, in every image). The
stage's HEALTHCHECK is run against a running server: it passes, and
fails once the server is gone.

    python3 tests/deploy/test_image.py BUILD/server/chess-server
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CONTAINERFILE = os.path.join(ROOT, "deploy", "Containerfile")
SERVER = os.environ.get("CHESS_SERVER", "")
if __name__ == "__main__" and len(sys.argv) > 1 and \
        not sys.argv[1].startswith("-"):
    SERVER = sys.argv.pop(1)


def tool(name):
    path = shutil.which(name)
    if not path:
        raise AssertionError("%s is missing (Debian's dpkg, libc-bin, "
                             "binutils: deploy/deps.sh)" % name)
    return path


def run(*argv):
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=60).stdout


def stages(text):
    """The Containerfile's stages: [(FROM line, its instructions as
    logical lines, continuations joined)]."""
    out = []
    logical = re.sub(r"\\\n", " ", text)
    for line in logical.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.upper().startswith("FROM "):
            out.append((line, []))
        elif out:
            out[-1][1].append(line)
    return out


def runtime_packages(text):
    """The packages the last stage's apt-get install names."""
    _, lines = stages(text)[-1]
    pkgs = []
    for line in lines:
        if not line.upper().startswith("RUN "):
            continue
        for cmd in re.split(r"&&|;", line[4:]):
            words = cmd.split()
            if "apt-get" in words and "install" in words:
                pkgs += [w for w in words[words.index("install") + 1:]
                         if not w.startswith("-")]
    return pkgs


def alternates(path):
    """path as given and resolved, each also across merged /usr (/lib is
    /usr/lib): the names dpkg may know it by."""
    out = []
    for p in (path, os.path.realpath(path)):
        out += [p, p[4:] if p.startswith("/usr/") else "/usr" + p]
    return out


def packages_of(paths):
    """{path: the Debian package that owns it} (dpkg -S, once for all);
    a path no package owns is left out."""
    names = {}
    for p in paths:
        for a in alternates(p):
            names.setdefault(a, set()).add(p)
    r = subprocess.run([tool("dpkg"), "-S"] + sorted(names),
                       capture_output=True, text=True, timeout=60)
    out = {}
    for line in r.stdout.splitlines():
        pkgs, _, owned = line.partition(": ")
        for p in names.get(owned, ()):
            out.setdefault(p, pkgs.split(",")[0].split(":")[0].strip())
    return out


def linked(binary):
    """{soname: path} of ldd's answer (the vDSO left out)."""
    out = {}
    for line in run(tool("ldd"), binary).splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if m:
            out[m.group(1)] = m.group(2)
        else:
            m = re.match(r"\s*(/\S+) \(0x", line)  # the loader
            if m:
                out[os.path.basename(m.group(1))] = m.group(1)
    return out


def needed(binary):
    """The sonames the binary names itself (its dynamic section)."""
    return re.findall(r"^\s*NEEDED\s+(\S+)", run(tool("objdump"), "-p",
                                                  binary), re.M)


def depends_closure(roots):
    """roots and every installed package they depend on (Depends and
    Pre-Depends; of alternatives, those installed)."""
    deps = {}
    out = run(tool("dpkg-query"), "-W", "-f",
              "${Package}\t${Depends}, ${Pre-Depends}\n")
    for line in out.splitlines():
        pkg, _, rest = line.partition("\t")
        deps[pkg] = [re.sub(r"\(.*?\)", "", alt).strip().split(":")[0]
                     for dep in rest.split(",") for alt in dep.split("|")]
    seen, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        if p and p not in seen:
            seen.add(p)
            todo += deps.get(p, [])  # (not installed: nothing known)
    return seen


def essential():
    """Debian's Essential packages (in every image, the slim one too)."""
    out = run(tool("dpkg-query"), "-W", "-f",
              "${Package} ${Essential}\n")
    return {line.split()[0] for line in out.splitlines()
            if line.endswith(" yes")}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ImageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not SERVER:
            raise AssertionError("no server: test_image.py BUILD/server/"
                                 "chess-server (or CHESS_SERVER)")
        with open(CONTAINERFILE) as f:
            cls.text = f.read()
        cls.packages = runtime_packages(cls.text)
        cls.dir = tempfile.mkdtemp(prefix="chess-image-")
        cls.port = free_port()
        cls.proc = subprocess.Popen(
            [SERVER, "--listen", "127.0.0.1", "--port", str(cls.port),
             "--db", os.path.join(cls.dir, "chess.db"),
             "--web", os.path.join(ROOT, "web")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/healthz"
                                       % cls.port, timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline or cls.proc.poll() is not None:
                    raise
                time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        if cls.proc.poll() is None:
            cls.proc.terminate()
            cls.proc.wait(timeout=30)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def loaded(self):
        """{path} of the shared objects the running server has mapped."""
        with open("/proc/%d/maps" % self.proc.pid) as f:
            return {line.split()[-1] for line in f
                    if re.search(r"\.so(\.[0-9.]+)?$", line.strip())}

    def test_the_runtime_stage_names_packages(self):
        self.assertGreaterEqual(len(stages(self.text)), 2)
        self.assertIn("libpq5", self.packages)  # (the parse sees them)
        self.assertIn("ca-certificates", self.packages)

    def test_every_library_linked_is_named_by_the_runtime_stage(self):
        """The packages of the libraries the binary names (NEEDED): each
        in the stage's list, or in every image (the Essential packages
        and what they depend on: libc6)."""
        libs = linked(SERVER)
        base = depends_closure(essential())
        names = needed(SERVER)
        self.assertIn("libhiredis.so.0.14", names)
        for soname in names:
            self.assertIn(soname, libs, "ldd does not resolve " + soname)
        owners = packages_of([libs[n] for n in names])
        missing = {}
        for soname in names:
            pkg = owners.get(libs[soname])
            self.assertIsNotNone(pkg, "no package owns " + libs[soname])
            if pkg not in self.packages and pkg not in base:
                missing[soname] = pkg
        self.assertEqual(missing, {}, "not in the runtime stage's apt-get "
                         "install: " + " ".join(sorted(set(
                             missing.values()))))

    def test_the_default_engine_comes_with_the_runtime_stage(self):
        """engine_path's default (the server's --help says it) is a
        program the stage's list brings: a missing one fails the start."""
        m = re.search(r'--engine-path PATH[^(]*\([^)]*\)[^"]*"([^"]+)"',
                      run(SERVER, "--help"))
        self.assertIsNotNone(m, "--help names no engine_path default")
        path = m.group(1)
        owner = packages_of([path]).get(path)
        self.assertIsNotNone(owner, "no package owns " + path)
        closure = depends_closure(set(self.packages) | essential())
        self.assertIn(owner, closure, "%s (%s) is not in the runtime "
                      "stage's apt-get install" % (owner, path))

    def test_every_library_ldd_and_the_process_name_comes_with_it(self):
        """Every library ldd lists and every one the running server has
        loaded (plugins too): its package comes with the stage's list
        (its Depends) or with the base image (Essential)."""
        closure = depends_closure(set(self.packages) | essential())
        paths = set(linked(SERVER).values()) | self.loaded()
        self.assertTrue(any("evlib" in p for p in paths),
                        "the libev plugin was not seen loaded")
        paths = {p for p in paths
                 if os.path.realpath(p) != os.path.realpath(SERVER)}
        owners = packages_of(paths)
        self.assertEqual(sorted(paths - set(owners)), [],
                         "no package owns them")
        missing = {p: pkg for p, pkg in owners.items() if pkg not in closure}
        self.assertEqual(missing, {}, "no package of the runtime stage "
                         "brings them")

    def healthcheck(self, port):
        """The stage's HEALTHCHECK command run here against port: its exit
        status."""
        _, lines = stages(self.text)[-1]
        checks = [line for line in lines
                  if line.upper().startswith("HEALTHCHECK")]
        self.assertEqual(len(checks), 1, "one HEALTHCHECK in the runtime "
                         "stage")
        m = re.search(r"\bCMD\s+(\[.*\])\s*$", checks[0])
        self.assertIsNotNone(m, "HEALTHCHECK CMD [...] (exec form)")
        argv = json.loads(m.group(1))
        self.assertIn("127.0.0.1/8080", argv[-1])  # the image's port
        self.assertIn("--timeout=", checks[0])  # (a stuck loop fails it)
        argv[-1] = argv[-1].replace("127.0.0.1/8080", "127.0.0.1/%d" % port)
        return subprocess.run(argv, capture_output=True,
                              timeout=10).returncode

    def test_the_healthcheck_passes_then_fails(self):
        self.assertEqual(self.healthcheck(self.port), 0)
        self.assertNotEqual(self.healthcheck(free_port()), 0)  # nobody


if __name__ == "__main__":
    unittest.main(verbosity=2)
