"""The sandbox's private file system: a read-only root holding only the system's programs and libraries
and the base interpreter, plus an empty ``/tmp`` of bounded size.

:func:`private_root` returns the command prefix that builds it, in two shell scripts run with
util-linux tools (``mount``, ``pivot_root``, ``umount``):

1. **build** (in a new mount namespace, private propagation, so nothing reaches the host): a
   ``tmpfs`` of :data:`ROOT_SIZE` becomes the new root; into it, read-only, are bind-mounted
   ``/usr``, the base interpreter's prefix ``sys.base_prefix`` (when it is not under ``/usr``), each
   top-level ``/bin``, ``/sbin``, ``/lib*`` that is a real folder (a symlink such as ``/lib ->
   usr/lib`` is copied as a symlink), and the devices ``/dev/null``, ``/dev/zero`` and
   ``/dev/urandom``; each ``site-packages``/``dist-packages`` folder of the interpreter is covered
   by an empty read-only ``tmpfs`` (:func:`hidden_packages`), so only the standard library is
   there; ``/tmp`` is a fresh ``tmpfs`` of :data:`TMP_SIZE` bytes and :data:`TMP_INODES` files
   (mode 1777, ``nosuid,nodev``); then the root ``tmpfs`` is remounted read-only. All mounts but
   the root's are one ``mount -a`` over a generated fstab (one process instead of one each).
2. **enter** (in the user, PID, network, IPC, UTS and mount namespaces of the child): ``/proc`` of
   the new PID namespace is mounted in it (``unshare --mount-proc``), the new root replaces the
   old one (``pivot_root``) and the old root is detached (``umount -l``), so no path leads back to
   the host's files; the working directory is ``/tmp``.

So the child sees no home folder, no run folder, no record/replay cache, no checkout, no virtual
environment, no ``/etc``, ``/sys``, ``/var`` or host ``/tmp``: everything it writes lands in its own
``/tmp`` in memory and disappears with its mount namespace when its last process ends.

**Root.** When the harness runs as root (CI does), a user namespace that maps root to root leaves the
child's processes owned by the real root, for which the kernel does not enforce ``RLIMIT_NPROC``. The
build step then runs as root in the new mount namespace (so it can read an interpreter under
``/root``), and the child's namespaces are entered as :data:`NOBODY` (``setpriv --reuid``), which the
user namespace maps to root inside: the process-count limit holds. A non-root harness needs no such
step (its own uid is not exempt).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

#: Size of the read-only root ``tmpfs`` (it holds only empty folders and symlinks).
ROOT_SIZE = "1m"
#: Size of the child's private ``/tmp`` (a ``tmpfs``: memory, gone with the namespace).
TMP_SIZE = 64 * 1024 * 1024
#: Most files and folders in the child's ``/tmp``.
TMP_INODES = 4096
#: The unprivileged user (outside the namespace) the child runs as when the harness is root.
NOBODY = 65534
#: Devices bind-mounted into the child's ``/dev``.
DEVICES = ("null", "zero", "urandom")
#: Top-level folders copied as symlinks, or bind-mounted read-only when they are real folders.
TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: Where the new root is assembled, in the new mount namespace only (the first that exists).
STAGING = ("/tmp", "/mnt", "/media", "/srv", "/opt")

# $1 root size, $2 staging dir, $3 newline-separated folders and $4 files to create in the new root,
# $5 newline-separated top-level symlinks to copy, $6 the fstab of every other mount (mounted by one
# ``mount -a``; its last line puts the private /tmp over the folder that holds the fstab itself);
# the rest is the command to exec.
BUILD = r"""set -eu
R=$2
IFS='
'
mount -t tmpfs -o "size=$1,nr_inodes=256,mode=0755" council-root "$R"
cd "$R"
mkdir -p $3
for f in $4; do : > "$f"; done
[ -z "$5" ] || cp -P $5 .
printf '%s\n' "$6" > tmp/fstab
mount -a --fstab "$R/tmp/fstab"
mount -o remount,ro,bind "$R"
cd /
shift 6
exec "$@"
"""

# $1 staging dir; the rest is the command to exec. (As root, ``/proc`` of the new PID namespace is
# already mounted at $R/proc by ``unshare --mount-proc``; otherwise the root is built in this same
# namespace, after ``unshare`` ran, and the script mounts it.)
ENTER = r"""set -eu
R=$1
[ -e "$R/proc/self" ] || mount -t proc -o nosuid,nodev,noexec proc "$R/proc"
mount --rbind "$R" "$R"
cd "$R"
pivot_root . .old
umount -l /.old
cd /tmp
shift
unset PWD OLDPWD
exec "$@"
"""


def interpreter() -> tuple[str, str]:
    """The base interpreter (not a virtual environment's link to it) and its prefix, both resolved."""
    exe = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)


def hidden_packages(prefix: str) -> list[str]:
    """The interpreter's third-party package folders that exist under ``/usr`` or ``prefix``
    (``site-packages``, Debian's ``dist-packages``): covered in the child, so only the standard
    library is visible."""
    names = sysconfig.get_path_names()
    scheme_vars = {
        "base": sys.base_prefix,
        "platbase": sys.base_exec_prefix,
        "installed_base": sys.base_prefix,
        "installed_platbase": sys.base_exec_prefix,
    }
    found = {sysconfig.get_path(n, vars=scheme_vars) for n in ("purelib", "platlib") if n in names}
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found |= {
        f"{prefix}/lib/{version}/site-packages",
        f"/usr/lib/{version}/site-packages",
        f"/usr/local/lib/{version}/dist-packages",
        f"/usr/local/lib/{version}/site-packages",
        f"/usr/lib/python{sys.version_info.major}/dist-packages",
    }
    out = []
    for path in sorted(os.path.realpath(p) for p in found if p):
        visible = path.startswith("/usr/") or path.startswith(prefix.rstrip("/") + "/")
        if visible and os.path.isdir(path):
            out.append(path)
    return out


def _fstab_escape(path: str) -> str:
    """``path`` as an fstab field (space, tab, newline and backslash in octal, as ``fstab(5)`` reads them)."""
    return "".join(f"\\{ord(c):03o}" if c in " \t\n\\" else c for c in path)


def _fstab_line(source: str, target: str, kind: str, options: str) -> str:
    return f"{_fstab_escape(source)} {_fstab_escape(target)} {kind} {options} 0 0"


def _staging(prefix: str) -> str | None:
    for path in STAGING:
        if os.path.isdir(path) and not os.path.islink(path) and not (prefix + "/").startswith(path + "/"):
            return path
    return None


def private_root(unshare: str, setpriv: str, namespaces: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
    """The command prefix that runs a command in the private root (see the module docstring), or
    ``()`` and why it cannot be built here.

    ``namespaces`` are the ``unshare`` options of the child's namespaces (``--user ... --``, with
    ``--mount``, without ``--mount-proc``: ``/proc`` is mounted in the new root); the caller appends
    its own ``setpriv`` capability drop and the command.
    """
    sh = next((p for p in ("/bin/sh", "/usr/bin/sh") if os.access(p, os.X_OK)), None)
    exe, prefix = interpreter()
    if sh is None:
        return (), "no /bin/sh"
    if not Path(exe).is_relative_to("/usr") and not Path(exe).is_relative_to(prefix):
        return (), f"the interpreter {exe} is neither under /usr nor under sys.base_prefix {prefix}"
    if "\n" in prefix or prefix == "/":
        return (), f"the interpreter's prefix {prefix!r} cannot be mounted on its own"
    staging = _staging(prefix)
    if staging is None:
        return (), f"no folder to assemble the root in (one of {', '.join(STAGING)})"
    links = [f"/{d}" for d in TOP_LEVEL if os.path.islink(f"/{d}")]
    dirs = [d for d in TOP_LEVEL if os.path.isdir(f"/{d}") and not os.path.islink(f"/{d}")]
    binds = ["/usr", *(f"/{d}" for d in dirs)]
    if not Path(prefix).is_relative_to("/usr"):
        binds.append(prefix)
    folders = ["usr", "dev", "proc", "tmp", ".old", *(b.lstrip("/") for b in binds[1:])]
    fstab = [_fstab_line(b, staging + b, "none", "rbind,ro") for b in binds]
    fstab += [
        _fstab_line("council-hidden", staging + d, "tmpfs", "ro,size=4k,nr_inodes=1") for d in hidden_packages(prefix)
    ]
    fstab += [_fstab_line(f"/dev/{n}", f"{staging}/dev/{n}", "none", "bind") for n in DEVICES]
    fstab.append(
        _fstab_line(
            "council-tmp", f"{staging}/tmp", "tmpfs", f"size={TMP_SIZE},nr_inodes={TMP_INODES},mode=1777,nosuid,nodev"
        )
    )
    build = (
        sh,
        "-c",
        BUILD,
        "council-sandbox-build",
        ROOT_SIZE,
        staging,
        "\n".join(folders),
        "\n".join(f"dev/{n}" for n in DEVICES),
        "\n".join(links),
        "\n".join(fstab),
    )
    enter = (sh, "-c", ENTER, "council-sandbox-enter", staging)
    if os.geteuid() == 0:
        become_nobody = (setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--")
        with_proc = (*namespaces[:-1], f"--mount-proc={staging}/proc", namespaces[-1])
        return (
            unshare,
            "--mount",
            "--propagation",
            "private",
            "--",
            *build,
            *become_nobody,
            unshare,
            *with_proc,
            *enter,
        ), ""
    return (unshare, *namespaces, *build, *enter), ""
