"""``OpDesc``: one schedule operation, data or infrastructure.

Mirrors ``OpDesc`` in ``max/kernels/src/pipeline/types.mojo`` L300-520
(modular/modular @ c7fec4f865c8): the same thirteen fields with the same
defaults, and the same factories.  Unlike the reference, construction checks
every field and raises ``TypeError``/``ValueError`` naming it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .enums import KOffsetKind, OpRole, Ops, ResourceKind
from .validate import check_dict_keys, check_enum, check_int

_OWNER = "OpDesc"
_ENUM_FIELDS = {"k_offset": KOffsetKind, "resource": ResourceKind, "role": OpRole}
_MIN_FIELDS = {
    "stage": 0,
    "subtile": 0,
    "vm_cost": 0,
    "lgkm_cost": 0,
    "wait_value": 0,
    "latency": 0,
    "channel": -1,
    "vgpr_def": 0,
    "vgpr_kill": 0,
}


@dataclass(frozen=True)
class OpDesc:
    """An operation in a schedule, identified by ``tag``.

    Tags 0-127 are kernel data ops (see ``PingPongOps``); 128 and above are the
    framework ops of ``Ops``; 255 (``Ops.NONE``) is the "absent" sentinel that
    optional block slots hold.  ``wait_value`` carries the count of a wait, the
    priority of ``set_prio`` and the count of ``sched_group_barrier`` (whose
    mask lives in ``subtile``), exactly as in the reference.
    """

    tag: int
    stage: int = 0
    subtile: int = 0
    k_offset: KOffsetKind = KOffsetKind.NONE
    vm_cost: int = 0
    lgkm_cost: int = 0
    wait_value: int = 0
    resource: ResourceKind = ResourceKind.NONE
    latency: int = 0
    role: OpRole = OpRole.NONE
    channel: int = -1
    vgpr_def: int = 0
    vgpr_kill: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "tag", check_int(_OWNER, "tag", self.tag, minimum=0, maximum=255))
        for name, minimum in _MIN_FIELDS.items():
            object.__setattr__(
                self, name, check_int(_OWNER, name, getattr(self, name), minimum=minimum)
            )
        for name, enum in _ENUM_FIELDS.items():
            object.__setattr__(self, name, check_enum(_OWNER, name, getattr(self, name), enum))

    # -- queries -----------------------------------------------------------

    def is_present(self) -> bool:
        """True unless this is the ``none()`` sentinel (tag 255)."""
        return self.tag != Ops.NONE

    def is_framework(self) -> bool:
        """True for infrastructure ops (tag >= 128), including ``none()``."""
        return self.tag >= 128

    # -- infrastructure factories (types.mojo L440-520) --------------------

    @staticmethod
    def barrier() -> OpDesc:
        """Workgroup barrier (``s_barrier``): SYNC role, SCALAR resource."""
        return OpDesc(tag=Ops.BARRIER, resource=ResourceKind.SCALAR, role=OpRole.SYNC)

    @staticmethod
    def wait_vm(count: int) -> OpDesc:
        """Wait until at most ``count`` global (vmcnt) loads are in flight."""
        check_int(_OWNER, "wait_value", count, minimum=0)
        return OpDesc(
            tag=Ops.WAIT_VM, wait_value=count, resource=ResourceKind.SCALAR, role=OpRole.SYNC
        )

    @staticmethod
    def wait_lgkm(count: int) -> OpDesc:
        """Wait until at most ``count`` LDS (lgkmcnt) ops are in flight."""
        check_int(_OWNER, "wait_value", count, minimum=0)
        return OpDesc(
            tag=Ops.WAIT_LGKM, wait_value=count, resource=ResourceKind.SCALAR, role=OpRole.SYNC
        )

    @staticmethod
    def set_prio(priority: int) -> OpDesc:
        """Wave priority hint ``s_setprio priority``: FENCE role (not SYNC)."""
        check_int(_OWNER, "wait_value", priority, minimum=0)
        return OpDesc(
            tag=Ops.SET_PRIO, wait_value=priority, resource=ResourceKind.SCALAR, role=OpRole.FENCE
        )

    @staticmethod
    def schedule_barrier() -> OpDesc:
        """LLVM machine-scheduler fence (``llvm.amdgcn.sched.barrier``)."""
        return OpDesc(tag=Ops.SCHEDULE_BARRIER, resource=ResourceKind.SCALAR, role=OpRole.FENCE)

    @staticmethod
    def sched_group_barrier(mask: int, count: int) -> OpDesc:
        """Scheduling-group hint; ``mask`` is stored in ``subtile``, ``count`` in ``wait_value``."""
        check_int(_OWNER, "subtile", mask, minimum=0)
        check_int(_OWNER, "wait_value", count, minimum=0)
        return OpDesc(
            tag=Ops.SCHED_GROUP_BARRIER,
            subtile=mask,
            wait_value=count,
            resource=ResourceKind.SCALAR,
            role=OpRole.FENCE,
        )

    @staticmethod
    def none() -> OpDesc:
        """The absent-op sentinel: tag 255, every other field at its default."""
        return OpDesc(tag=Ops.NONE)

    # -- data-op factories (types.mojo L370-440) ---------------------------

    @staticmethod
    def op(
        tag: int,
        resource: ResourceKind,
        latency: int,
        role: OpRole,
        *,
        channel: int = -1,
        stage: int = 0,
        subtile: int = 0,
        k_offset: KOffsetKind = KOffsetKind.NONE,
        vm_cost: int = 0,
        lgkm_cost: int = 0,
        wait_value: int = 0,
        vgpr_def: int = 0,
        vgpr_kill: int = 0,
    ) -> OpDesc:
        """A fully annotated op: cost metadata given inline."""
        return OpDesc(
            tag=tag,
            stage=stage,
            subtile=subtile,
            k_offset=k_offset,
            vm_cost=vm_cost,
            lgkm_cost=lgkm_cost,
            wait_value=wait_value,
            resource=resource,
            latency=latency,
            role=role,
            channel=channel,
            vgpr_def=vgpr_def,
            vgpr_kill=vgpr_kill,
        )

    @staticmethod
    def logical(
        tag: int,
        channel: int = -1,
        stage: int = 0,
        subtile: int = 0,
        k_offset: KOffsetKind = KOffsetKind.NONE,
    ) -> OpDesc:
        """A logical op: buffer metadata only; resource/latency/role left at NONE/0."""
        return OpDesc(tag=tag, stage=stage, subtile=subtile, k_offset=k_offset, channel=channel)

    # -- serialization ------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """All thirteen fields; enum fields by member name (schema in docs/schema.md)."""
        out = asdict(self)
        for name in _ENUM_FIELDS:
            out[name] = getattr(self, name).name
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> OpDesc:
        """Inverse of ``to_dict``; missing fields take their defaults, unknown keys are errors."""
        check_dict_keys("OpDesc", data, {f.name for f in fields(OpDesc)}, ("tag",))
        return OpDesc(**data)


def is_prefetch(op: OpDesc) -> bool:
    """The prologue sense of prefetch (types.mojo L723): present, and K0/K1/K_NEXT."""
    return op.is_present() and op.k_offset not in (KOffsetKind.K_PREV, KOffsetKind.NONE)
