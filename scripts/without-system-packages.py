#!/usr/bin/env python3
"""Runs a command as on a fresh machine: every installed Debian package outside the baseline is
taken away for that command only.

    python3 scripts/without-system-packages.py [--keep PKG ...] [--show] -- COMMAND [ARG ...]

The baseline is what the README promises a fresh machine has: Debian's required, important and
essential packages, and Node (nodejs), a C++17 compiler (g++), make, python3, git (the checkout)
and ca-certificates, with everything they depend on. Everything else that is installed (Eigen,
Open MPI, voro++, valgrind, Mesa, whatever an earlier session or test installed) is hidden: the
command runs in a private mount namespace in which /usr and /etc are overlays whose upper layers
hold a whiteout for each file of those packages, and dpkg's status lists only the baseline. The
files are really gone for the command (open, exec, the compiler's include search all fail), and
nothing changes outside it. Needs root (unshare and mount); Linux with overlayfs.

--show prints what would be hidden and runs nothing. --keep adds packages to the baseline.
Exits with the command's status; 1 (and a line saying why) when the namespace cannot be made.
"""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

BASELINE = ["nodejs", "g++", "make", "python3", "git", "ca-certificates"]
# The trees a package's files are hidden in. Files elsewhere (/var, /opt, /srv) are left: no
# compiler or loader searches them.
ROOTS = ["/usr", "/etc"]
# Merged /usr: dpkg still lists some files under these.
MERGED = {"/bin": "/usr/bin", "/sbin": "/usr/sbin", "/lib": "/usr/lib", "/lib64": "/usr/lib64"}


def fail(message):
    print(f"without-system-packages: {message}", file=sys.stderr)
    sys.exit(1)


def installed_packages():
    fields = "${Package}\\t${Architecture}\\t${db:Status-Abbrev}\\t${Priority}\\t${Essential}\\t${Pre-Depends}\\t${Depends}\\t${Provides}\\n"
    out = subprocess.run(["dpkg-query", "-W", "-f", fields], capture_output=True, text=True, check=True).stdout
    packages = {}
    for line in out.splitlines():
        name, arch, status, priority, essential, predepends, depends, provides = line.split("\t")
        if not status.startswith("ii"):
            continue
        packages[name] = {
            "arch": arch,
            "priority": priority,
            "essential": essential == "yes",
            "depends": [d for d in (predepends, depends) if d],
            "provides": [re.split(r"[\s(:]", p.strip())[0] for p in provides.split(",") if p.strip()],
        }
    return packages


def dependency_alternatives(field):
    """'a (>= 1) | b, c:any' -> [['a', 'b'], ['c']]"""
    groups = []
    for group in field.split(","):
        names = [re.split(r"[\s(:]", alt.strip())[0] for alt in group.split("|") if alt.strip()]
        if names:
            groups.append(names)
    return groups


def baseline_closure(packages, keep):
    providers = {}
    for name, info in packages.items():
        for virtual in info["provides"]:
            providers.setdefault(virtual, []).append(name)
    roots = [n for n, i in packages.items() if i["essential"] or i["priority"] in ("required", "important")]
    roots += [n for n in BASELINE + keep if n in packages]
    closure, stack = set(), list(roots)
    while stack:
        name = stack.pop()
        if name in closure or name not in packages:
            continue
        closure.add(name)
        for field in packages[name]["depends"]:
            for group in dependency_alternatives(field):
                # Every installed alternative stays: hiding one that the baseline may use would
                # take away more than a fresh machine lacks.
                for alt in group:
                    for candidate in [alt, *providers.get(alt, [])]:
                        if candidate in packages and candidate not in closure:
                            stack.append(candidate)
    return closure


def files_of(name, arch):
    for list_name in (f"{name}:{arch}.list", f"{name}.list"):
        path = os.path.join("/var/lib/dpkg/info", list_name)
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                return [line.rstrip("\n") for line in f if line.strip()]
    return []


def normalize(path):
    for old, new in MERGED.items():
        if (path == old or path.startswith(old + "/")) and os.path.islink(old):
            return new + path[len(old) :]
    return path


def plan(keep):
    packages = installed_packages()
    kept = baseline_closure(packages, keep)
    hidden = sorted(set(packages) - kept)
    kept_files = set()
    for name in kept:
        kept_files.update(normalize(p) for p in files_of(name, packages[name]["arch"]))
    paths = set()
    for name in hidden:
        for p in files_of(name, packages[name]["arch"]):
            p = normalize(p)
            if p in kept_files or not any(p.startswith(root + "/") for root in ROOTS):
                continue
            try:
                mode = os.lstat(p).st_mode
            except OSError:
                continue
            if not stat.S_ISDIR(mode):
                paths.add(p)
    return packages, kept, hidden, sorted(paths)


def write_status(kept, target):
    """dpkg's status with the hidden packages left out."""
    with open("/var/lib/dpkg/status", encoding="utf-8", errors="surrogateescape") as f:
        stanzas = f.read().split("\n\n")
    keep = []
    for stanza in stanzas:
        m = re.search(r"^Package: (\S+)", stanza, re.M)
        if m and m.group(1) in kept:
            keep.append(stanza.strip("\n"))
    with open(target, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n\n".join(keep) + "\n")


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        fail("usage: without-system-packages.py [--keep PKG ...] [--show] -- COMMAND [ARG ...]")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    keep = [options[i + 1] for i, o in enumerate(options) if o == "--keep" and i + 1 < len(options)]
    show = "--show" in options
    if not command and not show:
        fail("no command given after --")
    if not shutil.which("dpkg-query"):
        fail("dpkg-query not found: this runs on Debian or Ubuntu")
    packages, kept, hidden, paths = plan(keep)
    print(
        f"without-system-packages: {len(packages)} packages installed, {len(kept)} in the baseline, "
        f"{len(hidden)} hidden ({len(paths)} files)",
        file=sys.stderr,
    )
    if show:
        print("\n".join(hidden))
        return 0
    if os.geteuid() != 0:
        fail("needs root (a mount namespace and overlay mounts)")
    work = tempfile.mkdtemp(prefix="peclet-fresh-")
    try:
        for root in ROOTS:
            os.makedirs(os.path.join(work, "upper" + root))
            os.makedirs(os.path.join(work, "work" + root))
        for p in paths:
            target = os.path.join(work, "upper") + p
            os.makedirs(os.path.dirname(target), exist_ok=True)
            # A whiteout: a character device 0:0 in an overlay's upper layer hides the lower file.
            os.mknod(target, stat.S_IFCHR, os.makedev(0, 0))
        status = os.path.join(work, "status")
        write_status(kept, status)
        probes = [p for p in paths if p.startswith("/usr/include/") or p.startswith("/usr/bin/")][:3]
        mounts = " && ".join(
            f"mount -t overlay overlay -o lowerdir={root},upperdir={work}/upper{root},workdir={work}/work{root} {root}"
            for root in ROOTS
        )
        # The probes: a few hidden files must be gone inside, or the run proves nothing.
        checks = " && ".join(f"! test -e {shlex_quote(p)}" for p in probes) or "true"
        script = (
            f"{mounts} && mount --bind {status} /var/lib/dpkg/status && "
            f"{{ {checks} || {{ echo 'without-system-packages: a hidden file is still visible' >&2; exit 1; }}; }} && "
            'exec "$@"'
        )
        result = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "bash", "-c", script, "bash", *command]
        )
        return result.returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


def shlex_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


if __name__ == "__main__":
    sys.exit(main())
