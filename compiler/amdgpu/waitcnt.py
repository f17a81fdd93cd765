"""The gfx9 ``s_waitcnt`` immediate: encoding, decoding and the disassembler's text form.

Layout (gfx9, as in ``std/gpu/sync/sync.mojo``): vmcnt in bits 3:0 plus
15:14, expcnt in bits 6:4, lgkmcnt in bits 11:8.  A field that is not
given is set to its maximum (vm 63, exp 7, lgkm 15), i.e. "do not wait".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .targets import ArchInfo

VMCNT_MAX = 63
EXPCNT_MAX = 7
LGKMCNT_MAX = 15


class WaitcntRangeError(ValueError):
    """A wait count does not fit its ``s_waitcnt`` field.

    ``field`` is ``"vmcnt"``, ``"expcnt"`` or ``"lgkmcnt"``; ``value`` the
    requested count, ``limit`` the largest encodable one and ``location``
    (possibly empty) the schedule entry that asked for it.
    """

    def __init__(self, field: str, value: int, limit: int, location: str = "") -> None:
        self.field, self.value, self.limit, self.location = field, value, limit, location
        where = f"{location}: " if location else ""
        super().__init__(
            f"{where}s_waitcnt {field}({value}) is out of range: {field} must be in "
            f"[0, {limit}]; lower the wait count"
        )

    def at(self, location: str) -> WaitcntRangeError:
        """The same error, located (e.g. ``"kernel[29]"``)."""
        return WaitcntRangeError(self.field, self.value, self.limit, location)


@dataclass(frozen=True)
class Waitcnt:
    """Counter limits of one wait; ``None`` means "no wait on this counter"."""

    vmcnt: int | None = None
    expcnt: int | None = None
    lgkmcnt: int | None = None

    def at_least_as_strong_as(self, other: Waitcnt) -> bool:
        """True when waiting for ``self`` also satisfies every counter ``other`` waits on."""
        for name in ("vmcnt", "expcnt", "lgkmcnt"):
            want = getattr(other, name)
            have = getattr(self, name)
            if want is not None and (have is None or have > want):
                return False
        return True


def _check(field: str, value: int | None, limit: int) -> int:
    if value is None:
        return limit
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"s_waitcnt {field} must be an int, got {type(value).__name__}")
    if not 0 <= value <= limit:
        raise WaitcntRangeError(field, value, limit)
    return value


def encode_waitcnt(wait: Waitcnt, arch: ArchInfo | None = None) -> int:
    """The 16-bit immediate for ``wait``; raises ``WaitcntRangeError`` for a count that does not fit.

    ``arch`` supplies the field limits (gfx942 and gfx950 share the gfx9 ones).
    """
    vm_max = arch.vmcnt_max if arch else VMCNT_MAX
    exp_max = arch.expcnt_max if arch else EXPCNT_MAX
    lgkm_max = arch.lgkmcnt_max if arch else LGKMCNT_MAX
    vm = _check("vmcnt", wait.vmcnt, vm_max)
    exp = _check("expcnt", wait.expcnt, exp_max)
    lgkm = _check("lgkmcnt", wait.lgkmcnt, lgkm_max)
    return (vm & 0xF) | ((vm >> 4) << 14) | (exp << 4) | (lgkm << 8)


def decode_waitcnt(imm: int) -> Waitcnt:
    """Inverse of ``encode_waitcnt``; fields at their maximum decode as ``None``."""
    vm = (imm & 0xF) | (((imm >> 14) & 0x3) << 4)
    exp = (imm >> 4) & 0x7
    lgkm = (imm >> 8) & 0xF
    return Waitcnt(
        None if vm == VMCNT_MAX else vm,
        None if exp == EXPCNT_MAX else exp,
        None if lgkm == LGKMCNT_MAX else lgkm,
    )


def wait_vm(count: int, arch: ArchInfo | None = None) -> int:
    """Immediate of ``s_waitcnt vmcnt(count)``."""
    return encode_waitcnt(Waitcnt(vmcnt=count), arch)


def wait_lgkm(count: int, arch: ArchInfo | None = None) -> int:
    """Immediate of ``s_waitcnt lgkmcnt(count)``."""
    return encode_waitcnt(Waitcnt(lgkmcnt=count), arch)


_FIELD = re.compile(r"(vmcnt|expcnt|lgkmcnt)\((\d+)\)")


def parse_waitcnt_asm(operands: str) -> Waitcnt:
    """Parse the operand text of a disassembled ``s_waitcnt`` (``"vmcnt(0) lgkmcnt(3)"``).

    A bare immediate (``"0xc07f"`` or ``"0"``) is decoded as well.
    """
    text = operands.strip()
    fields = dict(_FIELD.findall(text))
    if fields:
        return Waitcnt(
            *(int(fields[n]) if n in fields else None for n in ("vmcnt", "expcnt", "lgkmcnt"))
        )
    return decode_waitcnt(int(text, 0))
