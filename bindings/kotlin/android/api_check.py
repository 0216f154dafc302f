#!/usr/bin/env python3
"""Member-level check of the Kotlin layer's java.* use against Java 8's API.

Every field and method of a ``java.*``/``javax.*`` class that the compiled Kotlin layer
references (its class files' constant pools: Fieldref, Methodref, InterfaceMethodref) must
exist, with the same descriptor, in Java 8's API: declared by the class or inherited from its
superclasses and interfaces. Java 8's API is read from the running JDK's ``lib/ct.sym`` (the
signature files ``javac --release 8`` compiles against), so no Android SDK is needed.

Why Java 8: Android's ``java.*`` library at API 26 is Java 8's (``java.time`` from 26,
streams and ``CompletableFuture`` from 24); what Java 9+ added (``List.of``,
``String.isBlank``, ``Stream.toList``...) is missing or arrived far later. So this catches a
call that compiles on JDK 17 and fails with ``NoSuchMethodError`` on a device. It is a
stand-in, not Android's own signature list: a Java 8 member Android 26 lacks would pass.
``java.lang.invoke`` is skipped: the string concatenation and lambda bootstraps kotlinc
emits are rewritten by Android's D8.

Usage: api_check.py CLASSES_DIR [JDK_HOME]. Prints one line per missing member and exits 1
if there is any; otherwise prints how many references it checked.
"""

from __future__ import annotations

import os
import struct
import sys
import zipfile
from pathlib import Path

RELEASE = "8"

# Classes of ours allowed to reference what Java 8 lacks, because they are only loaded after a
# runtime check finds it: class name -> why.
GUARDED = {
    "dev/sparsetable/ffi/JavaLangRefCleaner": "uniffi's glue creates it only when "
    'Class.forName("java.lang.ref.Cleaner") succeeds (Java 9+); elsewhere, Android 26 among '
    "them, it uses JNA's cleaner",
    "dev/sparsetable/ffi/JavaLangRefCleanable": "made only by JavaLangRefCleaner (above)",
}


class ClassFile:
    """The parts of a class file this check reads: its name, supertypes, members and the
    member references in its constant pool."""

    def __init__(self, data: bytes) -> None:
        if data[:4] != b"\xca\xfe\xba\xbe":
            raise ValueError("not a class file")
        pos = 8
        (count,) = struct.unpack_from(">H", data, pos)
        pos += 2
        pool: list = [None] * count
        i = 1
        while i < count:
            tag = data[pos]
            pos += 1
            if tag == 1:  # Utf8
                (n,) = struct.unpack_from(">H", data, pos)
                # Modified UTF-8: NUL as C0 80; other differences only touch characters
                # outside the names compared here, so they decode with replacement.
                raw = data[pos + 2 : pos + 2 + n].replace(b"\xc0\x80", b"\x00")
                pool[i] = ("utf8", raw.decode("utf-8", "replace"))
                pos += 2 + n
            elif tag in (3, 4):  # Integer, Float
                pos += 4
            elif tag in (5, 6):  # Long, Double take two slots
                pos += 8
                i += 1
            elif tag == 7:  # Class
                pool[i] = ("class", struct.unpack_from(">H", data, pos)[0])
                pos += 2
            elif tag in (8, 16, 19, 20):  # String, MethodType, Module, Package
                pos += 2
            elif tag in (9, 10, 11):  # Fieldref, Methodref, InterfaceMethodref
                pool[i] = ("ref", tag) + struct.unpack_from(">HH", data, pos)
                pos += 4
            elif tag == 12:  # NameAndType
                pool[i] = ("nat",) + struct.unpack_from(">HH", data, pos)
                pos += 4
            elif tag == 15:  # MethodHandle
                pos += 3
            elif tag in (17, 18):  # Dynamic, InvokeDynamic
                pos += 4
            else:
                raise ValueError(f"constant pool tag {tag}")
            i += 1
        self.pool = pool
        pos += 2  # access flags
        this, sup, n_if = struct.unpack_from(">HHH", data, pos)
        pos += 6
        self.name = self.class_name(this)
        self.super = self.class_name(sup) if sup else None
        self.interfaces = [self.class_name(struct.unpack_from(">H", data, pos + 2 * k)[0]) for k in range(n_if)]
        pos += 2 * n_if
        self.members: set = set()
        for _kind in ("field", "method"):
            (n,) = struct.unpack_from(">H", data, pos)
            pos += 2
            for _ in range(n):
                _flags, name, desc, n_attr = struct.unpack_from(">HHHH", data, pos)
                pos += 8
                self.members.add((self.utf8(name), self.utf8(desc)))
                for _ in range(n_attr):
                    (length,) = struct.unpack_from(">I", data, pos + 2)
                    pos += 6 + length

    def utf8(self, index: int) -> str:
        return self.pool[index][1]

    def class_name(self, index: int) -> str:
        return self.utf8(self.pool[index][1])

    def references(self):
        """(owner, name, descriptor) of every field and method reference this class makes."""
        for entry in self.pool:
            if entry and entry[0] == "ref":
                _, _tag, cls, nat = entry
                _, name, desc = self.pool[nat]
                yield self.class_name(cls), self.utf8(name), self.utf8(desc)


class Java8Api:
    """Java 8's classes, from ct.sym: a directory whose name holds the release's letter
    holds that release's signature of each class under it (`<releases>/<module>/<path>.sig`)."""

    def __init__(self, ct_sym: Path) -> None:
        self.zip = zipfile.ZipFile(ct_sym)
        self.paths: dict = {}
        for entry in self.zip.namelist():
            parts = entry.split("/")
            if len(parts) < 3 or RELEASE not in parts[0] or not entry.endswith(".sig"):
                continue
            self.paths["/".join(parts[2:])[: -len(".sig")]] = entry
        self.cache: dict = {}

    def load(self, name: str):
        if name not in self.cache:
            path = self.paths.get(name)
            self.cache[name] = ClassFile(self.zip.read(path)) if path else None
        return self.cache[name]

    def has(self, owner: str, name: str, desc: str) -> bool:
        """Whether `owner` declares or inherits the member in Java 8."""
        seen: set = set()
        todo = [owner]
        while todo:
            cls_name = todo.pop()
            if cls_name in seen:
                continue
            seen.add(cls_name)
            cls = self.load(cls_name)
            if cls is None:
                continue
            if (name, desc) in cls.members:
                return True
            # Interfaces inherit Object's public methods too.
            todo.extend([c for c in [cls.super, *cls.interfaces, "java/lang/Object"] if c])
        return False


def main() -> int:
    classes = Path(sys.argv[1])
    jdk = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(os.path.realpath(os.popen("command -v javac").read().strip())).parent.parent
    api = Java8Api(jdk / "lib" / "ct.sym")
    refs: set = set()
    guarded: dict = {}
    for path in sorted(classes.rglob("*.class")):
        cls = ClassFile(path.read_bytes())
        for owner, name, desc in cls.references():
            if owner.startswith(("java/", "javax/")) and not owner.startswith("java/lang/invoke/"):
                if cls.name in GUARDED and not api.has(owner, name, desc):
                    guarded.setdefault(cls.name, set()).add((owner, name, desc))
                else:
                    refs.add((owner, name, desc))
    for cls_name, skipped in sorted(guarded.items()):
        print(f"allowed: {len(skipped)} reference(s) from {cls_name.replace('/', '.')}: {GUARDED[cls_name]}")
    if not refs:
        print(f"FAILED: no java.* member references found under {classes}")
        return 1
    missing = sorted(r for r in refs if not api.has(*r))
    for owner, name, desc in missing:
        known = "class not in Java 8" if api.load(owner) is None else "member not in Java 8"
        print(f"missing: {owner.replace('/', '.')}.{name}{desc} ({known})")
    if missing:
        return 1
    owners = len({o for o, _, _ in refs})
    print(f"ok: {len(refs)} java.* member references (of {owners} classes) all exist in Java 8's API (ct.sym), the library Android 26 offers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
