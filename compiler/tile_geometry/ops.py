"""The data ops the geometry answers for, checked once."""

from __future__ import annotations

from ..schedule import OpDesc, PingPongOps


def check_data_op(op: OpDesc, tags: tuple[PingPongOps, ...], what: str) -> PingPongOps:
    """``op``'s tag if it is one of ``tags`` with stage and subtile in {0, 1}; ``ValueError`` otherwise.

    ``what`` names the asking function in the message.
    """
    if op.tag not in tags:
        names = "/".join(t.name for t in tags)
        raise ValueError(f"{what} needs a {names} op, got tag {op.tag}")
    if op.stage > 1 or op.subtile > 1:
        raise ValueError(
            f"{what}: stage and subtile must be 0 or 1, got stage={op.stage} subtile={op.subtile}"
        )
    return PingPongOps(op.tag)
