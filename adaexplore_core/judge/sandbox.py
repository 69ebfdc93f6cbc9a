"""OS-level sandbox for a judge worker: applied irreversibly to the current process, through the kernel alone.

``enter(policy)`` is called in a freshly forked, single-threaded worker after torch and triton are imported and
before CUDA is initialised or any candidate code runs. From then on the process and everything it starts:

* writes only its work folder and /dev/null (on a GPU also /dev/nvidia* and its own /proc/<pid>/task, where
  CUDA names its threads), and reads only what Python + torch + triton need: the interpreter's prefixes,
  sys.path, the packages already imported, the policy's read paths, /usr, /lib*, /sys, its own /proc/<pid>,
  a few system-wide /proc entries and a few named /etc files; not $HOME, not /etc/shadow, no other process's
  /proc/<pid> (Landlock);
* has no network: socket() and socketpair() fail (on a GPU CUDA's AF_UNIX SOCK_SEQPACKET socket excepted),
  TCP bind/connect are denied by Landlock where ABI >= 4, io_uring (it bypasses seccomp) is denied;
* starts no program at all, or on a GPU only the files the policy names: ptxas and the C compiler (Landlock
  execute rights on exactly those files and their loader, seccomp otherwise);
* cannot mount, unshare, ptrace, load modules or BPF, use keyrings, change file modes, owners, times or
  extended attributes, leave its process group, or signal, renice, re-limit or re-pin processes outside the
  sandbox (seccomp; the signal scope of Landlock where ABI >= 6);
* holds no capabilities, gains none on exec (no_new_privs), and dumps no core.

See docs/sandbox.md for the mechanisms, kernel versions and known limits. Torch is never imported here.
"""
from __future__ import annotations

import ctypes
import errno
import glob
import os
import platform
import pwd
import re
import stat
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass

OPT_OUT_ENV = "ADAEXPLORE_SANDBOX"
NOFILE_LIMIT = 1024

# Landlock (include/uapi/linux/landlock.h); the ABI that introduced each right is noted.
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_REMOVE_DIR, _FS_REMOVE_FILE, _FS_MAKE_CHAR, _FS_MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
_FS_MAKE_REG, _FS_MAKE_SOCK, _FS_MAKE_FIFO, _FS_MAKE_BLOCK, _FS_MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
_FS_REFER = 1 << 13        # ABI 2
_FS_TRUNCATE = 1 << 14     # ABI 3
_FS_IOCTL_DEV = 1 << 15    # ABI 5
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1                 # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1      # ABI 6
_FILE_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_READ = _FS_READ_FILE | _FS_READ_DIR
_WORKDIR = (_FS_WRITE_FILE | _FS_READ_FILE | _FS_READ_DIR | _FS_REMOVE_DIR | _FS_REMOVE_FILE | _FS_MAKE_DIR
            | _FS_MAKE_REG | _FS_MAKE_SYM | _FS_REFER | _FS_TRUNCATE)
_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1

# prctl, capabilities, seccomp
_PR_SET_SECCOMP, _PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP = 22, 38, 24
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAP_VERSION_3 = 0x20080522
_SECCOMP_MODE_FILTER = 2
_SECCOMP_GET_ACTION_AVAIL = 2
_RET_KILL_PROCESS, _RET_ERRNO, _RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
_CLONE_NEW_FLAGS = 0x7E020000   # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
_X32_SYSCALL_BIT = 0x40000000
_O_ACCMODE_TRUNC, _O_TRUNC, _O_ACCMODE = 0o1003, 0o1000, 0o3
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
_FS_IOC_SETFLAGS, _FS_IOC32_SETFLAGS, _FS_IOC_FSSETXATTR = 0x40086602, 0x40046602, 0x401C5820
_F_SETOWN, _F_SETSIG, _F_SETOWN_EX = 8, 10, 15
_PRIO_PROCESS, _IOPRIO_WHO_PROCESS = 0, 1
_AF_UNIX, _SOCK_SEQPACKET, _SOCK_TYPE_MASK = 1, 5, 0xF

# audit arch, then syscall numbers: name -> (x86_64, aarch64); None where the arch has no such call.
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_SYSCALLS = {
    "socket": (41, 198), "socketpair": (53, 199), "execve": (59, 221), "execveat": (322, 281),
    "clone": (56, 220), "clone3": (435, 435), "unshare": (272, 97), "setns": (308, 268), "ptrace": (101, 117),
    "process_vm_readv": (310, 270), "process_vm_writev": (311, 271), "mount": (165, 40), "umount2": (166, 39),
    "pivot_root": (155, 41), "chroot": (161, 51), "bpf": (321, 280), "perf_event_open": (298, 241),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294), "init_module": (175, 105),
    "finit_module": (313, 273), "delete_module": (176, 106), "reboot": (169, 142), "swapon": (167, 224),
    "swapoff": (168, 225), "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218),
    "userfaultfd": (323, 282), "open_by_handle_at": (304, 265), "name_to_handle_at": (303, 264),
    "acct": (163, 89), "mknod": (133, None), "mknodat": (259, 33), "chmod": (90, None), "fchmod": (91, 52),
    "fchmodat": (268, 53), "fchmodat2": (452, 452), "chown": (92, None), "fchown": (93, 55),
    "lchown": (94, None), "fchownat": (260, 54), "utime": (132, None), "utimes": (235, None),
    "utimensat": (280, 88), "futimesat": (261, None), "setxattr": (188, 5), "lsetxattr": (189, 6),
    "fsetxattr": (190, 7), "removexattr": (197, 14), "lremovexattr": (198, 15), "fremovexattr": (199, 16),
    "setxattrat": (463, 463), "removexattrat": (466, 466), "file_setattr": (469, 469),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "pidfd_send_signal": (424, 424), "pidfd_getfd": (438, 438), "process_madvise": (440, 440),
    "process_mrelease": (448, 448), "kcmp": (312, 272), "open_tree": (428, 428), "move_mount": (429, 429),
    "fsopen": (430, 430), "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433),
    "mount_setattr": (442, 442), "open_tree_attr": (467, 467), "quotactl": (179, 60), "quotactl_fd": (443, 443),
    "lookup_dcookie": (212, 18), "nfsservctl": (180, 42), "uselib": (134, None), "iopl": (172, None),
    "ioperm": (173, None), "modify_ldt": (154, None), "fanotify_init": (300, 262), "syslog": (103, 116),
    "vhangup": (153, 58), "lsm_set_self_attr": (460, 460), "setsid": (112, 157), "setpgid": (109, 154),
    "ioctl": (16, 29), "fcntl": (72, 25), "kill": (62, 129), "tkill": (200, 130), "tgkill": (234, 131),
    "rt_sigqueueinfo": (129, 138), "rt_tgsigqueueinfo": (297, 240), "prlimit64": (302, 261),
    "setpriority": (141, 140), "sched_setaffinity": (203, 122), "sched_setscheduler": (144, 119),
    "sched_setparam": (142, 118), "sched_setattr": (314, 274), "ioprio_set": (251, 30),
    "open": (2, None), "openat": (257, 56), "openat2": (437, 437), "truncate": (76, 45),
    "landlock_create_ruleset": (444, 444), "landlock_add_rule": (445, 445), "landlock_restrict_self": (446, 446),
    "seccomp": (317, 277), "capset": (126, 91),
}
# Denied outright (EPERM): escapes from the sandbox, kernel attack surface, and file metadata Landlock ignores.
_DENIED = (
    "socketpair", "unshare", "setns", "ptrace", "process_vm_readv", "process_vm_writev", "mount",
    "umount2", "pivot_root", "chroot", "bpf", "perf_event_open", "kexec_load", "kexec_file_load", "init_module",
    "finit_module", "delete_module", "reboot", "swapon", "swapoff", "keyctl", "add_key", "request_key",
    "userfaultfd", "open_by_handle_at", "name_to_handle_at", "acct", "mknod", "mknodat", "chmod", "fchmod",
    "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes", "utimensat",
    "futimesat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
    "setxattrat", "removexattrat", "file_setattr", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "pidfd_send_signal", "pidfd_getfd", "process_madvise", "process_mrelease", "kcmp", "open_tree",
    "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "open_tree_attr", "quotactl",
    "quotactl_fd", "lookup_dcookie", "nfsservctl", "uselib", "iopl", "ioperm", "modify_ldt", "fanotify_init",
    "syslog", "vhangup", "lsm_set_self_attr", "setsid", "setpgid",
)
# /etc holds secrets (shadow, ssh keys, tokens); only these files are readable, each if it exists.
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
             "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group")
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/sys")
# Of /proc, the process's own folder (/proc/<pid>, so /proc/self and /proc/thread-self) and these system-wide
# entries: no other process's folder (their command lines and status name the user's other programs and
# their arguments). CUDA reads /proc/driver/nvidia, /proc/devices and /proc/modules; glibc, Python and torch
# the rest.
PROC_READ = ("/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/sys", "/proc/driver", "/proc/devices",
             "/proc/modules", "/proc/filesystems", "/proc/version", "/proc/loadavg", "/proc/uptime",
             "/proc/cgroups", "/proc/swaps", "/proc/zoneinfo", "/proc/pressure")
DEV_READ = ("/dev/urandom", "/dev/random", "/dev/zero")


class SandboxError(Exception):
    """The sandbox cannot be entered here; the message says what is missing and how to opt out."""


class NotPlainFile(OSError):
    """A file a sandboxed process left is a pipe, a device, or (where one name is asked) a hard link."""


def read_plain_file(path: str | os.PathLike[str], limit: int, single_link: bool = False) -> bytes:
    """At most ``limit + 1`` bytes of a file a sandboxed process wrote (a caller tells an oversized one by the
    length): opened without following a link and without blocking on a pipe, read only as a regular file and,
    with ``single_link``, one of a single name (not a hard link to a file the reader may see and the writer
    may not). NotPlainFile otherwise; OSError where it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (single_link and info.st_nlink != 1):
            raise NotPlainFile(f"{path} is not a plain file")
        return f.read(limit + 1)


@dataclass(frozen=True)
class SandboxPolicy:
    """What a sandboxed worker may touch besides the interpreter, its packages and the system libraries."""

    workdir: str                      # read-write
    read_paths: tuple[str, ...] = ()  # extra read-only files/folders (the reference's folder)
    exec_paths: tuple[str, ...] = ()  # files that may be run (+ ELF interpreter, install tree read); empty: no exec
    gpu: bool = False                 # /dev/nvidia* read-write + ioctl, and what CUDA needs (see module doc)
    read_trees: tuple[str, ...] = ()  # folders readable whole, entries made later included (the witness's view
                                      # of the judge's own folder, where each candidate's folder is made)


@dataclass(frozen=True)
class Support:
    """What this kernel offers."""

    landlock_abi: int   # 0: no Landlock
    seccomp: bool
    arch: str           # "x86_64", "aarch64", or what else platform.machine() said

    def problems(self) -> list[str]:
        """Why the sandbox cannot be entered here; empty when it can."""
        found = []
        if self.arch not in _AUDIT_ARCH:
            found.append(f"unsupported architecture {self.arch!r} (x86_64 and aarch64, 64-bit little-endian)")
        if self.landlock_abi < 1:
            found.append("Landlock is not available (Linux >= 5.13 with 'landlock' in the active LSMs, see "
                         "/sys/kernel/security/lsm and the lsm= boot parameter; or a container's seccomp profile "
                         "blocks its system calls)")
        if not self.seccomp:
            found.append("seccomp filters are not available (CONFIG_SECCOMP_FILTER)")
        return found


def opted_out(environ: dict[str, str] | None = None) -> bool:
    """True when the user chose to run candidates without the sandbox (ADAEXPLORE_SANDBOX=off)."""
    env = os.environ if environ is None else environ
    return env.get(OPT_OUT_ENV, "").strip().lower() == "off"


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int
_libc.prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)


def _arch() -> str:
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    if ctypes.sizeof(ctypes.c_void_p) != 8 or sys.byteorder != "little":
        return f"{machine} ({ctypes.sizeof(ctypes.c_void_p) * 8}-bit {sys.byteorder}-endian interpreter)"
    return machine


def _nr(name: str, arch: str) -> int | None:
    return _SYSCALLS[name][0 if arch == "x86_64" else 1]


def _syscall(name: str, arch: str, *args: object) -> int:
    number = _nr(name, arch)
    assert number is not None, name
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")
    return result


def support() -> Support:
    """Probe the running kernel (no side effects)."""
    arch = _arch()
    if arch not in _AUDIT_ARCH:
        return Support(0, False, arch)
    abi = _libc.syscall(ctypes.c_long(_nr("landlock_create_ruleset", arch)), None, ctypes.c_size_t(0),
                        ctypes.c_uint32(_RULESET_VERSION))
    seccomp = True
    for action in (_RET_ERRNO, _RET_ALLOW, _RET_KILL_PROCESS):
        value = ctypes.c_uint32(action)
        if _libc.syscall(ctypes.c_long(_nr("seccomp", arch)), ctypes.c_uint(_SECCOMP_GET_ACTION_AVAIL),
                         ctypes.c_uint(0), ctypes.byref(value)) != 0:
            seccomp = False
    return Support(max(0, int(abi)), seccomp, arch)


def default_policy(workdir: str, read_paths: tuple[str, ...] | list[str] = (), gpu: bool = False) -> SandboxPolicy:
    """The judge's policy: no exec on the CPU; on a GPU, exec of toolchain_paths() only."""
    return SandboxPolicy(workdir=str(workdir), read_paths=tuple(str(p) for p in read_paths),
                         exec_paths=toolchain_paths() if gpu else (), gpu=gpu)


def _ptxas_candidates() -> list[str]:
    found = []
    try:
        from triton import knobs   # lazily: only the parent calls this, and triton is already imported there
        for name in ("ptxas", "ptxas_blackwell"):
            tool = vars(knobs.nvidia_knobs).get(name)
            if tool is None:
                continue
            chosen = vars(knobs.nvidia).get(name)      # set in Python: knobs.nvidia.ptxas = "/path"
            found += [p for p in (chosen if isinstance(chosen, str) else None, os.environ.get(tool.key),
                                  getattr(tool, "default_path", None)) if p]
    except Exception:   # older triton without knobs: same environment variables, same folder
        import importlib.util
        spec = importlib.util.find_spec("triton")
        for name in ("ptxas", "ptxas-blackwell"):
            env = os.environ.get(f"TRITON_{name.upper().replace('-', '_')}_PATH")
            found += [env] if env else []
            for root in (spec.submodule_search_locations or []) if spec else []:
                found.append(os.path.join(root, "backends", "nvidia", "bin", name))
    return found


def _script_programs(path: str) -> list[str]:
    """For a wrapper script (e.g. CC=/opt/gcc/bin/gcc running gcc-real): its interpreter and the programs it names."""
    try:
        with open(path, "rb") as f:
            text = f.read(65536).decode(errors="replace")
    except OSError:
        return []
    if not text.startswith("#!"):
        return []
    words = text[2:].split("\n", 1)[0].split()
    found = words[:1]
    if words and os.path.basename(words[0]) == "env" and len(words) > 1:
        found += [shutil.which(words[1]) or words[1]]
    found += re.findall(r"(?<![\w.-])/[\w./+-]+", text.split("\n", 1)[-1])
    return [p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)]


def _compiler_programs() -> list[str]:
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("clang")   # Triton's own order
    cc = shutil.which(cc) if cc else None
    if not cc:
        return []
    found = [cc] + _script_programs(cc)
    for prog in ("cc1", "as", "collect2", "ld", "lto-wrapper"):
        try:
            out = subprocess.run([cc, f"-print-prog-name={prog}"], capture_output=True, text=True,
                                 timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        path = out if os.path.isabs(out) else shutil.which(out) if out else None
        if path:
            found.append(path)
    return found


def _cache_libcuda_dirs() -> bool:
    """Run triton's `ldconfig -p` lookup now (it is cached), so the sandboxed child never has to."""
    try:
        from triton.backends.nvidia import driver
        driver.libcuda_dirs()
        return True
    except Exception:
        return False


def toolchain_paths() -> tuple[str, ...]:
    """The files a GPU worker must execute (ptxas, the C compiler and its parts); call before forking."""
    candidates = _ptxas_candidates() + _compiler_programs()
    # triton runs /sbin/ldconfig (on Ubuntu a shell script) to find libcuda unless its lookup is cached already
    if not os.environ.get("TRITON_LIBCUDA_PATH") and not _cache_libcuda_dirs():
        if _is_elf("/sbin/ldconfig"):
            candidates.append("/sbin/ldconfig")
    paths = []
    for path in candidates:
        real = os.path.realpath(path)
        if os.path.isfile(real) and os.access(real, os.X_OK) and real not in paths:
            paths.append(real)
    return tuple(paths)


def _elf_interpreter(path: str) -> str | None:
    """PT_INTERP of a 64-bit little-endian ELF file: the loader that execve opens (and Landlock checks) too."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:6] != b"\x7fELF\x02\x01":
                return None
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            for i in range(phnum):
                f.seek(phoff + i * phentsize)
                ptype, _, offset, _, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
                if ptype == 3:
                    f.seek(offset)
                    return os.path.realpath(f.read(filesz).rstrip(b"\0").decode())
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None


def _is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(6) == b"\x7fELF\x02\x01"
    except OSError:
        return False


def _install_prefix(program: str, broad: set[str]) -> str | None:
    """/opt/gcc for /opt/gcc/bin/cc1: the tree a program reads its own files from (never a too-broad folder)."""
    folder = os.path.dirname(program)
    prefix = os.path.dirname(folder) if os.path.basename(folder) in ("bin", "sbin", "libexec") else folder
    return next((p for p in (prefix, folder) if p not in broad), None)


def _ancestors(path: str) -> set[str]:
    out = set()
    while True:
        out.add(path)
        parent = os.path.dirname(path)
        if parent == path:
            return out
        path = parent


def _too_broad(workdir: str) -> set[str]:
    """Folders never granted as a whole (for a sys.path entry, say): they hold other users' or jobs' files."""
    broad = {"/", "/etc", "/dev", "/tmp", "/var/tmp", "/usr/tmp", "/dev/shm", "/run"}
    homes = ["/root", os.environ.get("HOME"), os.environ.get("TMPDIR")]
    try:
        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    except (KeyError, OSError):
        pass
    for home in filter(None, homes):
        real = os.path.realpath(home)
        if real != workdir and not real.startswith(workdir + os.sep):   # the judge may point HOME at the folder
            broad |= _ancestors(real)
    return broad


def _interpreter_paths() -> list[str]:
    """The interpreter's prefixes and the folders of the packages already imported (torch, triton, this one)."""
    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    for name, module in list(sys.modules.items()):   # e.g. a project imported through an editable finder
        if "." not in name:
            paths += [p for p in getattr(module, "__path__", None) or () if isinstance(p, str)]
    return [os.path.realpath(p) for p in paths if os.path.exists(p)]


def _visible_entries(folder: str) -> list[str]:
    """A project folder's entries without its hidden ones (``.env``, ``.git``, ``.aws``: where secrets live)."""
    return [e.path for e in os.scandir(folder) if not e.name.startswith(".")]


def _read_paths(policy: SandboxPolicy) -> tuple[list[str], list[str]]:
    """(paths to grant read access to, folders narrowed or skipped). The interpreter's folders are granted
    whole; other sys.path entries and the policy's folders (the user's project: the reference's folder, the
    server's working folder) without their hidden entries, and as their .py files alone where too broad. A
    narrowed project folder can still be listed, with its subfolders (``_rules``): Python's import system lists
    a folder to find modules; the names of hidden entries show, their contents do not."""
    interpreter = _interpreter_paths()
    implicit = [p for p in sys.path if p] + [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
    broad, skipped = _too_broad(os.path.realpath(policy.workdir)), []
    grant = list(interpreter) + [p for p in SYSTEM_READ + PROC_READ + ETC_FILES + DEV_READ if os.path.exists(p)]
    grant.append(f"/proc/{os.getpid()}")
    for path in dict.fromkeys(map(os.path.realpath, implicit + list(policy.read_paths))):
        if not os.path.exists(path) or path in interpreter:
            continue
        if not os.path.isdir(path) or any(path == p or path.startswith(p + os.sep) for p in interpreter):
            grant.append(path)
        elif path in broad:
            if path in map(os.path.realpath, policy.read_paths):  # a reference in $HOME or /tmp: its .py files
                grant += [e for e in _visible_entries(path) if e.endswith(".py") and os.path.isfile(e)]
            skipped.append(path)
        else:
            grant += _visible_entries(path)
            skipped.append(path)
    return grant, sorted(set(skipped))


def _rules(policy: SandboxPolicy, handled: int) -> tuple[list[tuple[str, int]], list[str]]:
    """Every (path, rights) rule of the policy, and the entries skipped as too broad."""
    workdir = os.path.realpath(policy.workdir)
    if not os.path.isdir(workdir):
        raise SandboxError(f"the sandbox's work folder {policy.workdir!r} is not a folder")
    if workdir in _too_broad(workdir) | {"/usr", os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}:
        raise SandboxError(f"the work folder {workdir!r} is too broad to be made writable; use a folder of its own")
    for path in policy.read_paths + policy.exec_paths + policy.read_trees:
        if not os.path.exists(path):
            raise SandboxError(f"the sandbox policy names {path!r}, which does not exist")
    trees = [os.path.realpath(p) for p in policy.read_trees]
    for tree in trees:
        if tree in _too_broad(workdir) or not os.path.isdir(tree):
            raise SandboxError(f"{tree!r} cannot be made readable whole: it is not a folder of the judge's own")
    for path in _interpreter_paths():
        if path == workdir or path.startswith(workdir + os.sep):
            raise SandboxError(f"the work folder {workdir!r} holds {path!r}, which the sandbox must keep read-only")
    reads, skipped = _read_paths(policy)
    rules = [(p, _READ) for p in reads]
    broad = _too_broad(workdir)
    rules += [(p, _FS_READ_DIR) for p in skipped if p not in broad and os.path.isdir(p) and any(
        r.startswith(p + os.sep) for r in reads)]     # a project folder is listed (imports), its hidden files unread
    rules += [(t, _READ) for t in trees]
    rules.append((workdir, _WORKDIR))
    rules.append(("/dev/null", _FS_READ_FILE | _FS_WRITE_FILE | _FS_TRUNCATE))
    if policy.gpu:
        rules += [(p, _READ | _FS_WRITE_FILE | _FS_IOCTL_DEV) for p in sorted(glob.glob("/dev/nvidia*"))]
        # CUDA writes its threads' names to /proc/self/task/<tid>/comm (opened with O_TRUNC), and its
        # initialisation fails (error 304) when it cannot: only this process's own task folder is writable
        rules.append((f"/proc/{os.getpid()}/task", _READ | _FS_WRITE_FILE | _FS_TRUNCATE))
    execs = [os.path.realpath(p) for p in policy.exec_paths]
    execs += [i for i in map(_elf_interpreter, execs) if i]
    rules += [(p, _FS_EXECUTE | _FS_READ_FILE) for p in dict.fromkeys(execs)]
    trees = [t for t in (_install_prefix(p, broad) for p in execs) if t]
    rules += [(p, _READ) for p in dict.fromkeys(trees)]                       # headers, libraries, specs
    return [(p, r & handled) for p, r in rules], skipped


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1
    rights |= _FS_REFER if abi >= 2 else 0
    rights |= _FS_TRUNCATE if abi >= 3 else 0
    return rights | (_FS_IOCTL_DEV if abi >= 5 else 0)


# O_PATH descriptors kept open for the process's life: a rule on a procfs folder holds only while its dentry
# stays cached (procfs makes a new inode when it looks the folder up again), and an open descriptor pins it.
_PINNED: list[int] = []


def _landlock(rules: list[tuple[str, int]], abi: int, arch: str) -> None:
    handled_fs = _handled_fs(abi)
    attr = struct.pack("<QQQ", handled_fs, _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 else 0,
                       _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    buf = ctypes.create_string_buffer(attr[:size], size)
    ruleset = _syscall("landlock_create_ruleset", arch, buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError as e:
                raise SandboxError(f"cannot open {path!r} for a Landlock rule: {e}") from e
            try:
                if not os.path.isdir(path):
                    rights &= _FILE_RIGHTS
                rights &= handled_fs
                if not rights:
                    continue
                rule = ctypes.create_string_buffer(struct.pack("<Qi", rights, fd), 12)
                _syscall("landlock_add_rule", arch, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                         rule, ctypes.c_uint32(0))
                if path.startswith("/proc/"):        # procfs folders: the rule holds while the fd pins them
                    _PINNED.append(fd)
                    fd = -1
            finally:
                if fd >= 0:
                    os.close(fd)
        _syscall("landlock_restrict_self", arch, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


class _Bpf:
    """A tiny classic-BPF assembler with labels (jump offsets must fit in a byte)."""

    def __init__(self) -> None:
        self.code: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def load(self, offset: int) -> None:
        self.code.append((0x20, 0, 0, offset))          # BPF_LD | BPF_W | BPF_ABS

    def load_arg(self, index: int) -> None:
        self.load(16 + 8 * index)                        # low 32 bits of seccomp_data.args[index] (little-endian)

    def jump(self, op: str, k: int, jt: object = 0, jf: object = 0) -> None:
        self.code.append(({"eq": 0x15, "ge": 0x35, "set": 0x45}[op], jt, jf, k))

    def alu_and(self, k: int) -> None:
        self.code.append((0x54, 0, 0, k))

    def ret(self, k: int) -> None:
        self.code.append((0x06, 0, 0, k))

    def assemble(self) -> bytes:
        out = b""
        for i, (code, jt, jf, k) in enumerate(self.code):
            offsets = [self.labels[j] - i - 1 if isinstance(j, str) else j for j in (jt, jf)]
            assert all(0 <= o <= 255 for o in offsets), (i, offsets)
            out += struct.pack("<HBBI", code, offsets[0], offsets[1], k)
        return out


def _seccomp_program(arch: str, abi: int, allow_exec: bool, gpu: bool = False) -> tuple[bytes, int]:
    """The filter as bytes and its instruction count."""
    eperm, pid = _RET_ERRNO | errno.EPERM, os.getpid()
    bpf, blocks = _Bpf(), [0]

    def nr(name: str) -> int | None:
        return _nr(name, arch)

    def deny(name: str, action: int = eperm) -> None:
        if nr(name) is not None:
            bpf.jump("eq", nr(name), 0, 1)
            bpf.ret(action)

    def checked(name: str, emit) -> None:
        """A block for one syscall: skipped unless nr matches, then ``emit`` decides (ends in returns)."""
        if nr(name) is None:
            return
        blocks[0] += 1
        skip = f"skip{blocks[0]}"
        bpf.jump("eq", nr(name), 0, skip)
        emit(f"b{blocks[0]}")
        bpf.label(skip)                                  # a jump leaves the accumulator (nr) as it was

    def arg_in(index: int, allowed: tuple[int, ...]):
        def emit(tag: str) -> None:
            bpf.load_arg(index)
            for value in allowed:
                bpf.jump("eq", value, f"{tag}ok", 0)
            bpf.ret(eperm)
            bpf.label(f"{tag}ok")
            bpf.ret(_RET_ALLOW)
        return emit

    def arg_not_in(index: int, denied: tuple[int, ...], mask: int = 0xFFFFFFFF):
        def emit(tag: str) -> None:
            bpf.load_arg(index)
            if mask != 0xFFFFFFFF:
                bpf.alu_and(mask)
            for value in denied:
                bpf.jump("eq", value, f"{tag}no", 0)
            bpf.ret(_RET_ALLOW)
            bpf.label(f"{tag}no")
            bpf.ret(eperm)
        return emit

    def own_process(which_index: int | None, which: int, who_index: int):
        def emit(tag: str) -> None:
            if which_index is not None:
                bpf.load_arg(which_index)
                bpf.jump("eq", which, 0, f"{tag}no")
            bpf.load_arg(who_index)
            bpf.jump("eq", 0, f"{tag}ok", 0)
            bpf.jump("eq", pid, f"{tag}ok", 0)
            bpf.label(f"{tag}no")
            bpf.ret(eperm)
            bpf.label(f"{tag}ok")
            bpf.ret(_RET_ALLOW)
        return emit

    bpf.load(4)                                          # seccomp_data.arch
    bpf.jump("eq", _AUDIT_ARCH[arch], 1, 0)
    bpf.ret(_RET_KILL_PROCESS)                           # i386 / arm32 entry points: another syscall table
    bpf.load(0)                                          # seccomp_data.nr
    if arch == "x86_64":
        bpf.jump("ge", _X32_SYSCALL_BIT, 0, 1)
        bpf.ret(eperm)
    for name in _DENIED:
        deny(name)
    deny("clone3", _RET_ERRNO | errno.ENOSYS)            # its flags sit in memory: glibc falls back to clone
    if not allow_exec:
        deny("execve")
        deny("execveat")

    def clone(tag: str) -> None:
        bpf.load_arg(0)
        bpf.jump("set", _CLONE_NEW_FLAGS, 0, 1)
        bpf.ret(eperm)
        bpf.ret(_RET_ALLOW)
    checked("clone", clone)

    def cuda_socket(tag: str) -> None:                   # CUDA listens on @cuda-uvmfd-<ns>-<pid>@ at init
        bpf.load_arg(0)
        bpf.jump("eq", _AF_UNIX, 0, f"{tag}no")
        bpf.load_arg(1)
        bpf.alu_and(_SOCK_TYPE_MASK)
        bpf.jump("eq", _SOCK_SEQPACKET, f"{tag}ok", 0)
        bpf.label(f"{tag}no")
        bpf.ret(eperm)
        bpf.label(f"{tag}ok")
        bpf.ret(_RET_ALLOW)
    if gpu:
        checked("socket", cuda_socket)
    else:
        deny("socket")
    checked("ioctl", arg_not_in(1, (_TIOCSTI, _TIOCLINUX, _FS_IOC_SETFLAGS, _FS_IOC32_SETFLAGS, _FS_IOC_FSSETXATTR)))
    checked("fcntl", arg_not_in(1, (_F_SETOWN, _F_SETSIG, _F_SETOWN_EX)))
    checked("prlimit64", arg_in(0, (0, pid)))
    for name in ("sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr"):
        checked(name, arg_in(0, (0, pid)))
    checked("setpriority", own_process(0, _PRIO_PROCESS, 1))
    checked("ioprio_set", own_process(0, _IOPRIO_WHO_PROCESS, 1))
    if abi < 6:                                          # no Landlock signal scope: only this process
        checked("kill", arg_in(0, (pid,)))
        checked("tgkill", arg_in(0, (pid,)))
        checked("rt_sigqueueinfo", arg_in(0, (pid,)))
        checked("rt_tgsigqueueinfo", arg_in(0, (pid,)))
        deny("tkill")
    if abi < 3:                                          # no Landlock truncate right: O_RDONLY|O_TRUNC, truncate()
        checked("open", arg_not_in(1, (_O_TRUNC, _O_TRUNC | _O_ACCMODE), _O_ACCMODE_TRUNC))
        checked("openat", arg_not_in(2, (_O_TRUNC, _O_TRUNC | _O_ACCMODE), _O_ACCMODE_TRUNC))
        deny("openat2", _RET_ERRNO | errno.ENOSYS)
        deny("truncate")
    bpf.ret(_RET_ALLOW)
    return bpf.assemble(), len(bpf.code)


def _seccomp(program: bytes, count: int) -> None:
    filt = ctypes.create_string_buffer(program, len(program))
    prog = ctypes.create_string_buffer(struct.pack("<HxxxxxxQ", count, ctypes.addressof(filt)), 16)
    if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise SandboxError(f"installing the seccomp filter failed: {os.strerror(err)}")


def _drop_capabilities(arch: str) -> str:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):                         # needs CAP_SETPCAP: fails harmlessly when not root
        _libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = ctypes.create_string_buffer(struct.pack("<Ii", _CAP_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(bytes(24), 24)
    _syscall("capset", arch, header, data)
    with open("/proc/self/status") as f:
        status = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
    if int(status.get("CapEff", "0"), 16) or int(status.get("CapPrm", "0"), 16):
        raise SandboxError("capabilities are still held after dropping them")
    return "none" if int(status.get("CapBnd", "0"), 16) == 0 else "none (bounding set kept: not root)"


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def enter(policy: SandboxPolicy) -> dict:
    """Sandbox this process for good; a description for the verdict's env. SandboxError when not possible."""
    return _enter(policy, support())


def _enter(policy: SandboxPolicy, found: Support, abi: int | None = None) -> dict:
    """enter(), optionally as if the kernel offered only Landlock ABI ``abi`` (tests of older kernels)."""
    opt_out = f"set {OPT_OUT_ENV}=off to run candidates without the sandbox (not recommended)"
    if found.problems():
        raise SandboxError(f"cannot sandbox the judge's worker: {'; '.join(found.problems())}; {opt_out}")
    abi = found.landlock_abi if abi is None else min(abi, found.landlock_abi)
    threads = _threads()
    if threads != 1:
        raise SandboxError(f"the process runs {threads} threads, and Landlock restricts only the calling one: "
                           "enter the sandbox in a freshly forked child or before any thread starts "
                           "(numpy's OpenBLAS starts some at import: OPENBLAS_NUM_THREADS=1)")
    rules, skipped = _rules(policy, _handled_fs(abi))
    program, count = _seccomp_program(found.arch, abi, bool(policy.exec_paths), policy.gpu)
    workdir = os.path.realpath(policy.workdir)

    # From here on the process changes for good; a failure leaves it partly restricted: the caller must exit.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = NOFILE_LIMIT if hard == resource.RLIM_INFINITY else min(hard, NOFILE_LIMIT)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SandboxError(f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")
    caps = _drop_capabilities(found.arch)
    try:
        _landlock(rules, abi, found.arch)
    except OSError as e:
        raise SandboxError(f"Landlock refused the ruleset: {e}") from e
    _seccomp(program, count)
    os.environ["TMPDIR"] = workdir                      # tempfile, gcc, ptxas: /tmp is not writable any more
    tempfile.tempdir = None

    limits = []
    if abi < 2:
        limits.append("no rename or link across folders (Landlock ABI 1)")
    if abi < 3:
        limits.append("truncate() by path and O_RDONLY|O_TRUNC refused everywhere by seccomp (Landlock ABI < 3)")
    if abi < 4:
        limits.append("inherited TCP sockets can still connect (Landlock ABI < 4)")
    if abi < 5:
        limits.append("ioctl on devices not restricted (Landlock ABI < 5)")
    if abi < 6:
        limits.append("signals limited to this process by seccomp (Landlock ABI < 6)")
    return {
        "sandbox": f"landlock v{abi} + seccomp",
        "sandbox_writable": workdir,
        "sandbox_exec": ", ".join(p for p, r in rules if r & _FS_EXECUTE) if policy.exec_paths else "none",
        "sandbox_network": "none",
        "sandbox_gpu": policy.gpu,
        "sandbox_capabilities": caps,
        "sandbox_seccomp_instructions": count,
        "sandbox_skipped_paths": ", ".join(skipped),
        "sandbox_limits": "; ".join(limits) or "none",
    }
