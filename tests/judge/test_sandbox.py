"""The OS sandbox (adaexplore_core.judge.sandbox): every escape fails, and what a worker needs still works.

Each test runs a fresh interpreter that forks, like the judge does; the child enters the sandbox over a work
folder in tmp_path and attempts things, recording each outcome; the parent (outside the sandbox) relays the
record as JSON and reports whether it survived. The tests then assert on the record and on the files,
sockets and processes outside. Checks that need torch share one interpreter.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from adaexplore_core.judge import sandbox

REPO = Path(__file__).resolve().parents[2]
SUPPORT = sandbox.support()
pytestmark = pytest.mark.skipif(
    bool(SUPPORT.problems()),
    reason="THE JUDGE'S OS SANDBOX CANNOT RUN ON THIS KERNEL, ITS TESTS ARE SKIPPED: " + "; ".join(SUPPORT.problems()))

# Runs in a fresh interpreter: PRE in the parent, then fork; the child enters the sandbox and runs BODY.
HARNESS = r'''
import ctypes, errno, json, os, sys, traceback
ARGS = json.loads(sys.argv[1])
from adaexplore_core.judge import sandbox
R = {}
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def attempt(name, fn):
    try:
        value = fn()
        plain = isinstance(value, (int, str, bool, float, type(None)))
        R[name] = {"ok": True, "value": value if plain else repr(value)[:300]}
    except BaseException as e:
        R[name] = {"ok": False, "error": type(e).__name__, "errno": getattr(e, "errno", None), "msg": str(e)[:300]}

def sc(name, *args):
    """A raw system call by name; OSError on failure."""
    nr = sandbox._nr(name, sandbox.support().arch) if isinstance(name, str) else name
    result = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result

POLICY = sandbox.SandboxPolicy(workdir=ARGS["work"], read_paths=tuple(ARGS.get("read", ())),
                               exec_paths=tuple(ARGS.get("exec", ())))
PRE
R["pre"] = True
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    try:
        R["enter"] = sandbox._enter(POLICY, sandbox.support(), ARGS.get("abi"))
        PPID = os.getppid()
        W = ARGS["work"]
        BODY
    except BaseException:
        R["fatal"] = traceback.format_exc()
    data = json.dumps(R).encode()
    while data:
        data = data[os.write(w, data):]
    os._exit(0)
os.close(w)
chunks = []
while True:
    chunk = os.read(r, 1 << 16)
    if not chunk:
        break
    chunks.append(chunk)
_, status = os.waitpid(pid, 0)
print(json.dumps({"child": json.loads(b"".join(chunks) or b"null"), "status": status, "parent": R}))
'''


def run_sandboxed(tmp_path: Path, body: str, pre: str = "", env: dict[str, str] | None = None,
                  timeout: float = 120, **args) -> dict:
    """Run ``body`` in a sandboxed child (``pre`` before the fork); the child's and the parent's records."""
    code = HARNESS.replace("PRE", textwrap.dedent(pre).strip() or "pass").replace(
        "BODY", textwrap.indent(textwrap.dedent(body).strip(), " " * 8).strip())
    full_env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    script = Path(args["work"]) / "harness.py"   # a file (Triton's JIT reads its source); sys.path[0] = work
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script), json.dumps(args)], capture_output=True, text=True,
                          env=full_env, cwd=args["work"], timeout=timeout)
    assert proc.returncode == 0, f"the harness died (parent killed?): rc={proc.returncode}\n{proc.stderr[-4000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    child = out["child"]
    assert child is not None and "fatal" not in child, (child or {}).get("fatal", proc.stderr[-4000:])
    return {**child, "_status": out["status"], "_parent": out["parent"]}


def denied(record: dict, *errnos: int) -> bool:
    """The attempt failed, with one of ``errnos`` if given."""
    return not record["ok"] and (not errnos or record["errno"] in errnos)


def snapshot(root: Path) -> dict[str, tuple]:
    return {str(p.relative_to(root)): (p.stat().st_mode, p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else b"")
            for p in sorted(root.rglob("*"))}


@pytest.fixture()
def layout(tmp_path: Path) -> dict:
    """A work folder, a fake home with a key, a folder outside with a victim file, a reference folder."""
    work, home, outside, ref = (tmp_path / n for n in ("work", "home", "outside", "ref"))
    for d in (work, home / ".ssh", outside, ref):
        d.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("FAKE-PRIVATE-KEY\n")
    (outside / "victim.txt").write_text("original\n")
    (ref / "reference.py").write_text("# the reference\n")
    for f in (outside / "victim.txt", ref / "reference.py"):
        f.chmod(0o644)
    return {"work": work, "home": home, "outside": outside, "ref": ref, "tmp": tmp_path}


ESCAPES = r'''
import resource, signal, socket, subprocess, tempfile
OUT, REF, HOME = ARGS["outside"], ARGS["ref"], ARGS["home"]
victim, ref_file = OUT + "/victim.txt", REF + "/reference.py"
R["sys_path"] = sys.path
# the work folder works
def work_ops():
    os.makedirs(W + "/a/b")
    with open(W + "/a/b/f.txt", "w") as f:
        f.write("hello")
    os.rename(W + "/a/b/f.txt", W + "/a/b/g.txt")
    os.symlink("g.txt", W + "/a/b/link")
    with open(W + "/a/b/g.txt", "r+") as f:
        f.truncate(2)
    text = open(W + "/a/b/link").read()
    os.unlink(W + "/a/b/link")
    fd, name = tempfile.mkstemp()
    os.close(fd)
    return [text, sorted(os.listdir(W + "/a/b")), os.path.dirname(name)]
attempt("work_ops", work_ops)
def cross_dir_rename():
    with open(W + "/x.txt", "w") as f:
        f.write("x")
    os.rename(W + "/x.txt", W + "/a/x.txt")
attempt("rename_across_work_folders", cross_dir_rename)
attempt("truncate_path_in_work", lambda: os.truncate(W + "/a/b/g.txt", 1))
NEW_MODULES = ("decimal", "sqlite3", "xml.dom.minidom", "email.parser", "asyncio", "zoneinfo")
attempt("import_new_stdlib", lambda: [__import__(m).__name__ for m in NEW_MODULES])
attempt("localtime", lambda: __import__("time").strftime("%Z"))
attempt("thread", lambda: (lambda t: (t.start(), t.join()))(__import__("threading").Thread(target=lambda: None)))
attempt("read_reference", lambda: open(ref_file).read())
attempt("read_ld_so_cache", lambda: len(open("/etc/ld.so.cache", "rb").read(16)))
attempt("read_proc_self", lambda: "Name" in open("/proc/self/status").read())
attempt("devnull", lambda: open("/dev/null", "w").write("x"))
# files outside
attempt("write_outside", lambda: open(victim, "a").write("pwned"))
attempt("create_outside", lambda: open(OUT + "/new.txt", "w"))
attempt("create_tmp", lambda: open("/tmp/" + ARGS["marker"], "w"))
attempt("mkdir_outside", lambda: os.mkdir(OUT + "/d"))
attempt("symlink_outside", lambda: os.symlink("/etc/passwd", OUT + "/l"))
attempt("rename_outside", lambda: os.rename(victim, OUT + "/renamed.txt"))
attempt("rename_into_work", lambda: os.rename(victim, W + "/stolen.txt"))
attempt("link_into_work", lambda: os.link(victim, W + "/linked.txt"))
attempt("rename_ref_into_work", lambda: os.rename(ref_file, W + "/stolen.py"))
attempt("delete_outside", lambda: os.unlink(victim))
attempt("truncate_outside", lambda: os.truncate(victim, 0))
attempt("truncate_ref", lambda: os.truncate(ref_file, 0))
attempt("o_trunc_readonly_ref", lambda: os.close(os.open(ref_file, os.O_RDONLY | os.O_TRUNC)))
attempt("write_ref", lambda: open(ref_file, "a").write("pwned"))
attempt("chmod_outside", lambda: os.chmod(victim, 0o777))
attempt("chmod_ref", lambda: os.chmod(ref_file, 0o777))
def fchmod_ref():
    fd = os.open(ref_file, os.O_RDONLY)
    try:
        os.fchmod(fd, 0o777)
    finally:
        os.close(fd)
attempt("fchmod_ref", fchmod_ref)
attempt("chown_ref", lambda: os.chown(ref_file, os.getuid(), os.getgid()))
attempt("utime_ref", lambda: os.utime(ref_file, (0, 0)))
attempt("setxattr_ref", lambda: os.setxattr(ref_file, "user.x", b"1"))
attempt("chmod_work", lambda: os.chmod(W + "/a/b/g.txt", 0o600))
attempt("mknod_work", lambda: os.mkfifo(W + "/fifo"))
# secrets
attempt("read_home_key", lambda: open(HOME + "/.ssh/id_rsa").read())
attempt("list_home", lambda: os.listdir(HOME))
attempt("read_shadow", lambda: open("/etc/shadow").read())
attempt("read_etc_hostname", lambda: open("/etc/hostname").read())
attempt("list_etc", lambda: os.listdir("/etc"))
attempt("read_parent_environ", lambda: open(f"/proc/{PPID}/environ", "rb").read())
attempt("read_parent_mem", lambda: open(f"/proc/{PPID}/mem", "rb").read(1))
attempt("read_init_environ", lambda: open("/proc/1/environ", "rb").read())
# other processes' command lines and status (the user's programs and their arguments): only its own /proc/<pid>
attempt("read_parent_cmdline", lambda: open(f"/proc/{PPID}/cmdline", "rb").read())
attempt("read_parent_status", lambda: open(f"/proc/{PPID}/status").read())
attempt("read_init_cmdline", lambda: open("/proc/1/cmdline", "rb").read())
attempt("list_proc", lambda: os.listdir("/proc"))
attempt("read_proc_cpuinfo", lambda: len(open("/proc/cpuinfo").read()) > 0)
attempt("read_proc_sys", lambda: open("/proc/sys/kernel/pid_max").read().strip())
attempt("read_own_cmdline", lambda: open(f"/proc/{os.getpid()}/cmdline", "rb").read().split(b"\0")[0].decode())
def thread_self():
    out = []
    t = threading.Thread(target=lambda: out.append(open("/proc/thread-self/stat").read()[:1]))
    t.start()
    t.join()
    return out
attempt("read_thread_self", thread_self)
# programs
attempt("execv_sh", lambda: os.execv("/bin/sh", ["sh", "-c", f"echo pwned > {W}/exec_marker"]))
attempt("os_system", lambda: os.system(f"echo pwned > {W}/system_marker"))
attempt("subprocess_run", lambda: subprocess.run(["/bin/sh", "-c", f"echo pwned > {W}/sub_marker"]).returncode)
# network
attempt("tcp_connect", lambda: socket.create_connection(("127.0.0.1", ARGS["port"]), timeout=5))
attempt("unix_socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("socketpair", lambda: socket.socketpair())
if ARGS["tcp_rules"]:   # Landlock ABI >= 4: even a socket leaked into the sandbox cannot connect or bind
    attempt("inherited_connect", lambda: INHERITED.connect(("127.0.0.1", ARGS["port"])))
    attempt("inherited_bind", lambda: INHERITED_BIND.bind(("127.0.0.1", 0)))
io_uring_params = ctypes.create_string_buffer(120)
attempt("io_uring_setup", lambda: sc("io_uring_setup", 4, io_uring_params))
# processes
attempt("kill_parent", lambda: os.kill(PPID, signal.SIGKILL))
attempt("signal0_parent", lambda: os.kill(PPID, 0))
attempt("ptrace_attach_parent", lambda: sc("ptrace", 16, PPID, 0, 0))
attempt("process_vm_readv_parent", lambda: sc("process_vm_readv", PPID, 0, 0, 0, 0, 0))
attempt("prlimit_parent", lambda: resource.prlimit(PPID, resource.RLIMIT_NOFILE, (1, 1)))
attempt("affinity_parent", lambda: os.sched_setaffinity(PPID, {0}))
attempt("renice_parent", lambda: os.setpriority(os.PRIO_PROCESS, PPID, 19))
attempt("renice_user", lambda: os.setpriority(os.PRIO_USER, 0, 19))
attempt("renice_self", lambda: os.setpriority(os.PRIO_PROCESS, 0, 1))
attempt("prlimit_self", lambda: resource.setrlimit(resource.RLIMIT_CPU, resource.getrlimit(resource.RLIMIT_CPU)))
attempt("setsid", os.setsid)
attempt("setpgid", lambda: os.setpgid(0, 0))
attempt("tiocsti", lambda: sc("ioctl", os.open("/dev/null", os.O_RDONLY), 0x5412, ctypes.c_char_p(b"x")))
attempt("unshare_user", lambda: sc("unshare", 0x10000000))
attempt("unshare_mount", lambda: sc("unshare", 0x00020000))
# CLONE_NEWUSER|CLONE_THREAD: the kernel itself would answer EINVAL, so EPERM is the filter's
attempt("clone_newuser", lambda: sc("clone", 0x10000000 | 0x00010000, 0, 0, 0, 0))
attempt("clone3", lambda: sc("clone3", 0, 0))
attempt("setns", lambda: sc("setns", 0, 0))
cstr = ctypes.c_char_p
attempt("mount_tmpfs", lambda: sc("mount", cstr(b"none"), cstr(W.encode()), cstr(b"tmpfs"), 0, 0))
attempt("umount", lambda: sc("umount2", cstr(b"/proc"), 2))
attempt("chroot", lambda: sc("chroot", cstr(W.encode())))
for name in ("bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "kexec_load", "init_module",
             "delete_module", "reboot", "swapoff", "acct", "open_by_handle_at", "name_to_handle_at", "pidfd_getfd"):
    attempt("raw_" + name, lambda name=name: sc(name, 0, 0, 0, 0, 0))
if sandbox.support().arch == "x86_64":
    attempt("x32_getpid", lambda: sc(0x40000000 | 39))
attempt("capabilities", lambda: [l for l in open("/proc/self/status") if l.startswith(("CapEff", "CapPrm"))])
attempt("core_limit", lambda: resource.getrlimit(resource.RLIMIT_CORE))
'''

PRE_ESCAPES = r'''
import socket, threading
INHERITED = socket.socket(socket.AF_INET, socket.SOCK_STREAM)      # sockets leaked into the sandbox
INHERITED_BIND = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
# a second thread: enter() must refuse (Landlock would restrict only the calling thread) and change nothing
stop = threading.Event()
t = threading.Thread(target=stop.wait)
t.start()
try:
    sandbox.enter(POLICY)
    R["threaded_enter"] = "entered"
except sandbox.SandboxError as e:
    R["threaded_enter"] = str(e)
stop.set()
t.join()
R["exec_after_refusal"] = os.system("true")
'''


@pytest.mark.parametrize("abi", [None, 5, 2, 1], ids=lambda a: "native" if a is None else f"abi{a}")
def test_escapes_fail(layout: dict, abi: int | None) -> None:
    if abi is not None and abi >= SUPPORT.landlock_abi:
        pytest.skip(f"the kernel's own Landlock ABI is {SUPPORT.landlock_abi}")
    effective = SUPPORT.landlock_abi if abi is None else abi
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    marker = f"adaexplore-sandbox-escape-{uuid.uuid4().hex}"
    before_outside, before_ref = snapshot(layout["outside"]), snapshot(layout["ref"])
    secret = f"hunter2-{uuid.uuid4().hex}"
    try:
        r = run_sandboxed(layout["tmp"], ESCAPES, pre=PRE_ESCAPES, abi=abi, port=port, marker=marker,
                          tcp_rules=effective >= 4,
                          env={"HOME": str(layout["home"]), "ADAEXPLORE_TEST_FAKE_SECRET": secret},
                          work=str(layout["work"]), read=[str(layout["ref"])], outside=str(layout["outside"]),
                          ref=str(layout["ref"]), home=str(layout["home"]))
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()                                   # no connection ever arrived
    finally:
        server.close()
        if os.path.exists("/tmp/" + marker):
            os.unlink("/tmp/" + marker)
            pytest.fail("the sandboxed child created a file in /tmp")
    parent = r["_parent"]
    assert "threads" in parent["threaded_enter"], parent["threaded_enter"]
    assert parent["exec_after_refusal"] == 0
    assert r["enter"]["sandbox"] == f"landlock v{effective} + seccomp"
    assert not any(p.startswith(str(layout["home"])) for p in r["sys_path"])

    # what must work
    for name in ("work_ops", "import_new_stdlib", "localtime", "thread", "read_reference", "read_ld_so_cache",
                 "read_proc_self", "devnull", "renice_self", "prlimit_self", "read_proc_cpuinfo", "read_proc_sys",
                 "read_own_cmdline", "read_thread_self"):
        assert r[name]["ok"], (name, r[name])
    assert r["work_ops"]["value"] == repr(["he", ["g.txt"], str(layout["work"])])
    assert r["rename_across_work_folders"]["ok"] == (effective >= 2), r["rename_across_work_folders"]
    assert r["truncate_path_in_work"]["ok"] == (effective >= 3), r["truncate_path_in_work"]   # seccomp below 3

    # nothing outside changed, nothing was read
    EACCES, EPERM, EXDEV = 13, 1, 18
    for name in ("write_outside", "create_outside", "create_tmp", "mkdir_outside", "symlink_outside",
                 "rename_outside", "delete_outside", "truncate_outside", "write_ref", "read_home_key", "list_home",
                 "read_shadow", "read_etc_hostname", "list_etc", "read_parent_environ", "read_parent_mem",
                 "read_init_environ", "read_parent_cmdline", "read_parent_status", "read_init_cmdline", "list_proc"):
        assert denied(r[name], EACCES, EPERM), (name, r[name])
    assert r["read_thread_self"]["value"] != "[]", r["read_thread_self"]
    for name in ("rename_into_work", "link_into_work", "rename_ref_into_work"):
        assert denied(r[name], EACCES, EPERM, EXDEV), (name, r[name])
    for name in ("truncate_ref", "o_trunc_readonly_ref"):
        assert denied(r[name], EACCES, EPERM), (name, r[name])
    for name in ("chmod_outside", "chmod_ref", "fchmod_ref", "chown_ref", "utime_ref", "setxattr_ref",
                 "chmod_work", "mknod_work"):
        assert denied(r[name], EPERM, EACCES), (name, r[name])
    assert snapshot(layout["outside"]) == before_outside
    assert snapshot(layout["ref"]) == before_ref
    assert (layout["home"] / ".ssh" / "id_rsa").read_text() == "FAKE-PRIVATE-KEY\n"
    assert secret not in json.dumps({k: v for k, v in r.items() if k != "_parent"})

    # no programs, no network, no other processes
    assert denied(r["execv_sh"], EPERM) and denied(r["subprocess_run"], EPERM), (r["execv_sh"], r["subprocess_run"])
    assert r["os_system"]["ok"] and r["os_system"]["value"] != 0
    assert not any((layout["work"] / m).exists() for m in ("exec_marker", "system_marker", "sub_marker"))
    for name in ("tcp_connect", "unix_socket", "socketpair", "io_uring_setup"):
        assert denied(r[name], EPERM), (name, r[name])
    if effective >= 4:
        assert denied(r["inherited_connect"], EACCES), r["inherited_connect"]
        assert denied(r["inherited_bind"], EACCES), r["inherited_bind"]
    for name in ("kill_parent", "signal0_parent", "ptrace_attach_parent", "process_vm_readv_parent", "prlimit_parent",
                 "affinity_parent", "renice_parent", "renice_user", "setsid", "setpgid", "tiocsti", "unshare_user",
                 "unshare_mount", "clone_newuser", "setns", "mount_tmpfs", "umount", "chroot"):
        assert denied(r[name], EPERM), (name, r[name])
    assert denied(r["clone3"], 38), r["clone3"]                       # ENOSYS: glibc falls back to clone
    for name in [k for k in r if k.startswith("raw_")] + (["x32_getpid"] if SUPPORT.arch == "x86_64" else []):
        assert denied(r[name], EPERM), (name, r[name])
    assert "CapEff:\\t0000000000000000" in r["capabilities"]["value"], r["capabilities"]
    assert r["core_limit"]["value"] == "(0, 0)"
    assert os.WIFEXITED(r["_status"]) and os.WEXITSTATUS(r["_status"]) == 0


PRE_TORCH = r'''
import torch, triton, triton.language as tl
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2 + tl.load(y_ptr + offs, mask=mask), mask=mask)
'''

TORCH = r'''
def torch_ops():
    x = torch.randn(64, 64)
    conv = torch.nn.functional.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3))
    return [bool(torch.allclose(x @ torch.eye(64), x)), list(conv.shape), float(torch.softmax(x, 1).sum()) > 63]
attempt("torch_ops", torch_ops)
def triton_kernel():
    x, y = torch.randn(1000), torch.randn(1000)
    out = torch.empty(1000)
    add_kernel[(triton.cdiv(1000, 256),)](x, y, out, 1000, BLOCK=256)
    return bool(torch.allclose(out, 2 * x + y))
attempt("triton_kernel", triton_kernel)
attempt("import_new_modules", lambda: [__import__(m).__name__ for m in ("torch.distributions", "numpy.polynomial",
                                                                        "statistics")])
attempt("save_in_work", lambda: torch.save(torch.ones(3), W + "/t.pt") or torch.load(W + "/t.pt").tolist())
attempt("exec", lambda: subprocess.run(["/bin/true"]))
attempt("read_home", lambda: open(ARGS["home"] + "/.ssh/id_rsa").read())
import pwd
attempt("list_real_home", lambda: os.listdir(pwd.getpwuid(os.getuid()).pw_dir))
'''


def test_torch_and_triton_work_inside(layout: dict) -> None:
    # as the judge's zygote runs it: HOME and TMPDIR point at the work folder
    r = run_sandboxed(layout["tmp"], "import subprocess\n" + TORCH, pre=PRE_TORCH, work=str(layout["work"]),
                      home=str(layout["home"]), env={"HOME": str(layout["work"]), "TMPDIR": str(layout["work"]),
                                                     "TRITON_INTERPRET": "1", "OMP_NUM_THREADS": "2"})
    assert r["torch_ops"] == {"ok": True, "value": "[True, [1, 4, 6, 6], True]"}, r["torch_ops"]
    assert r["triton_kernel"] == {"ok": True, "value": True}, r["triton_kernel"]
    assert r["import_new_modules"]["ok"], r["import_new_modules"]
    assert r["save_in_work"] == {"ok": True, "value": "[1.0, 1.0, 1.0]"}, r["save_in_work"]
    assert denied(r["exec"], 1) and denied(r["read_home"], 13), (r["exec"], r["read_home"])
    import pwd
    real_home = pwd.getpwuid(os.getuid()).pw_dir
    if os.path.isdir(real_home) and not str(layout["work"]).startswith(real_home):
        assert denied(r["list_real_home"], 13), r["list_real_home"]
    assert r["enter"]["sandbox_exec"] == "none"


GCC = r'''
src = W + "/k.c"
with open(src, "w") as f:
    f.write("int add(int a, int b) { return a + b; }\n")
def build(out):
    p = subprocess.run(["gcc", src, "-O3", "-shared", "-fPIC", "-o", out], capture_output=True, text=True)
    return [p.returncode, p.stderr[-500:]]
attempt("gcc_shared", lambda: build(W + "/k.so"))
attempt("load", lambda: ctypes.CDLL(W + "/k.so").add(2, 3))
attempt("gcc_outside", lambda: build(ARGS["outside"] + "/k.so"))
attempt("sh", lambda: subprocess.run(["/bin/sh", "-c", "true"]).returncode)
attempt("os_system", lambda: os.system("true"))
'''


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc on PATH")
def test_gcc_shared_build_with_toolchain_exec(layout: dict) -> None:
    exec_paths = sandbox.toolchain_paths()
    r = run_sandboxed(layout["tmp"], "import subprocess\n" + GCC, work=str(layout["work"]),
                      outside=str(layout["outside"]), exec=list(exec_paths))
    assert r["gcc_shared"] == {"ok": True, "value": repr([0, ""])}, r["gcc_shared"]
    assert r["load"] == {"ok": True, "value": 5}, r["load"]
    assert r["gcc_outside"]["ok"] and eval(r["gcc_outside"]["value"])[0] != 0, r["gcc_outside"]
    assert not (layout["outside"] / "k.so").exists()
    if os.path.realpath("/bin/sh") not in exec_paths:              # a shell-script $CC needs its shell
        assert denied(r["sh"], 13), r["sh"]                          # Landlock: /bin/sh is not an exec path
        assert r["os_system"]["ok"] and r["os_system"]["value"] != 0, r["os_system"]


def test_toolchain_paths_are_real_files() -> None:
    paths = sandbox.toolchain_paths()
    assert all(os.path.isabs(p) and os.path.realpath(p) == p and os.path.isfile(p) for p in paths), paths
    if shutil.which("gcc"):
        assert any(os.path.basename(p).startswith("cc1") for p in paths), paths
    compiler = os.environ.get("CC") or shutil.which("gcc") or shutil.which("clang")
    if compiler and not Path(shutil.which(compiler) or compiler).read_bytes().startswith(b"#!"):
        assert os.path.realpath("/bin/sh") not in paths, paths      # only a wrapper script's shell is let in


def test_policy_helpers(tmp_path: Path) -> None:
    assert sandbox.opted_out({"ADAEXPLORE_SANDBOX": "off"}) and sandbox.opted_out({"ADAEXPLORE_SANDBOX": " OFF "})
    assert not sandbox.opted_out({}) and not sandbox.opted_out({"ADAEXPLORE_SANDBOX": "on"})
    assert len(sandbox.Support(0, False, "riscv64").problems()) == 3
    assert sandbox.Support(7, True, "x86_64").problems() == []
    policy = sandbox.default_policy(tmp_path, [tmp_path / "ref"])
    assert policy == sandbox.SandboxPolicy(str(tmp_path), (str(tmp_path / "ref"),), (), False)
    assert sandbox.default_policy(tmp_path, gpu=True).exec_paths == sandbox.toolchain_paths()
    for bad in (tmp_path / "missing", Path("/")):
        with pytest.raises(sandbox.SandboxError):
            sandbox._rules(sandbox.SandboxPolicy(str(bad)), sandbox._handled_fs(SUPPORT.landlock_abi))
    with pytest.raises(sandbox.SandboxError, match="does not exist"):
        sandbox._rules(sandbox.SandboxPolicy(str(tmp_path), read_paths=(str(tmp_path / "nope"),)), 0)
    with pytest.raises(sandbox.SandboxError, match="read-only"):    # the project's own package must stay read-only
        sandbox._rules(sandbox.SandboxPolicy(str(REPO)), 0)
    for tree in ("/tmp", str(tmp_path / "ref.py")):                  # a folder readable whole: the judge's own only
        if tree.endswith(".py"):
            Path(tree).write_text("x")
        with pytest.raises(sandbox.SandboxError, match="cannot be made readable whole"):
            sandbox._rules(sandbox.SandboxPolicy(str(tmp_path), read_trees=(tree,)), 0)
    (tmp_path / "judge").mkdir()
    rules, _ = sandbox._rules(sandbox.SandboxPolicy(str(tmp_path), read_trees=(str(tmp_path / "judge"),)), -1)
    assert (str(tmp_path / "judge"), sandbox._READ) in rules     # whole: folders made in it later are readable


def test_reference_in_home_grants_its_python_files_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    for d in (home / ".ssh", work):
        d.mkdir(parents=True)
    for name in ("ref.py", "helper.py", ".netrc", "notes.txt"):
        (home / name).write_text("x")
    monkeypatch.setenv("HOME", str(home))
    rules, skipped = sandbox._rules(sandbox.SandboxPolicy(str(work), read_paths=(str(home),)), (1 << 16) - 1)
    paths = {p for p, _ in rules}
    assert {str(home / "ref.py"), str(home / "helper.py")} <= paths and str(home) in skipped
    inside = {p for p in paths if p == str(home) or p.startswith(str(home) + os.sep)}
    assert inside == {str(home / "ref.py"), str(home / "helper.py")}, inside   # not .netrc, .ssh, notes.txt
    probe = "import sys, adaexplore_core.judge.sandbox as s; print(sorted({'torch', 'triton'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}).stdout
    assert out.strip() == "[]"                                      # the module imports neither torch nor triton


HIDDEN_READS = r'''
REF = ARGS["project"]
attempt("read_reference", lambda: open(REF + "/reference.py").read())
attempt("read_package", lambda: open(REF + "/mypkg/__init__.py").read())
attempt("read_env", lambda: open(REF + "/.env").read())
attempt("list_git", lambda: os.listdir(REF + "/.git"))
attempt("read_git_config", lambda: open(REF + "/.git/config").read())
sys.path.insert(0, REF)
attempt("import_sibling", lambda: __import__("mypkg").VALUE)              # imports list the folder
'''


def test_a_project_folder_is_readable_but_not_its_hidden_entries(tmp_path: Path) -> None:
    """The reference's folder (a user's project: ``.env``, ``.git``) is granted without the contents of its
    hidden entries, whether it is the policy's read path or on sys.path; it can be listed (imports need that),
    so their names show."""
    work, project = tmp_path / "work", tmp_path / "project"
    for d in (work, project / "mypkg", project / ".git"):
        d.mkdir(parents=True)
    (project / "reference.py").write_text("# the reference\n")
    (project / "mypkg" / "__init__.py").write_text("VALUE = 1\n")
    (project / ".env").write_text("OPENAI_API_KEY=sk-FAKE\n")
    (project / ".git" / "config").write_text("[remote]\n")
    record = run_sandboxed(tmp_path, HIDDEN_READS, work=str(work), read=[str(project)], project=str(project),
                           env={"PYTHONPATH": os.pathsep.join([str(REPO), str(project)])})
    assert record["read_reference"]["ok"] and record["read_package"]["ok"] and record["import_sibling"]["ok"], record
    for name in ("read_env", "read_git_config"):
        assert denied(record[name]), (name, record[name])


PRE_GPU = r'''
import torch, triton, triton.language as tl
POLICY = sandbox.default_policy(ARGS["work"], gpu=True)   # in the parent: toolchain_paths() caches libcuda_dirs
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2 + tl.load(y_ptr + offs, mask=mask), mask=mask)
'''

GPU = r'''
import socket, subprocess
def triton_cuda():
    x, y = torch.randn(5000, device="cuda"), torch.randn(5000, device="cuda")
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(5000, 256),)](x, y, out, 5000, BLOCK=256)   # ptxas and the C launcher run here
    return bool(torch.allclose(out, 2 * x + y))
attempt("triton_cuda", triton_cuda)
attempt("matmul", lambda: bool(torch.isfinite(torch.randn(256, 256, device="cuda") @ torch.randn(256, 256,
                                                                                  device="cuda")).all()))
attempt("compiled", lambda: len(os.listdir(W + "/triton-cache")) > 0)
attempt("tcp_socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
attempt("unix_stream", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("exec_id", lambda: subprocess.run(["/usr/bin/id"]).returncode)
attempt("read_home_key", lambda: open(ARGS["home"] + "/.ssh/id_rsa").read())
attempt("write_outside", lambda: open(ARGS["outside"] + "/x", "w"))
attempt("write_parent_comm", lambda: open(f"/proc/{PPID}/task/{PPID}/comm", "w").write("x"))
'''


@pytest.mark.gpu
def test_cuda_and_triton_compile_inside(layout: dict) -> None:
    from adaexplore_core.devices import cuda_device_count
    if cuda_device_count() == 0:
        pytest.skip("needs a CUDA GPU")
    r = run_sandboxed(layout["tmp"], GPU, pre=PRE_GPU, work=str(layout["work"]), home=str(layout["home"]),
                      outside=str(layout["outside"]), timeout=280,
                      env={"HOME": str(layout["home"]), "TRITON_CACHE_DIR": str(layout["work"] / "triton-cache")})
    for name in ("triton_cuda", "matmul", "compiled"):
        assert r[name] == {"ok": True, "value": True}, (name, r[name])
    assert r["enter"]["sandbox_gpu"] is True
    for name in ("tcp_socket", "unix_stream"):                     # only CUDA's AF_UNIX SOCK_SEQPACKET is let through
        assert denied(r[name], 1), (name, r[name])
    assert denied(r["exec_id"], 13), r["exec_id"]
    for name in ("read_home_key", "write_outside", "write_parent_comm"):
        assert denied(r[name], 13), (name, r[name])
    assert not (layout["outside"] / "x").exists()
