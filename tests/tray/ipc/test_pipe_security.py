"""The named pipe's access rules: the owner-only DACL text and the check of the server's user."""

from __future__ import annotations

import re

import pytest
from termwise.tray.ipc.pipe_security import (
    ForeignPipeServer,
    check_server_user,
    owner_only_sddl,
    same_user,
)

ME = "S-1-5-21-3623811015-3361044348-30300820-1013"
SOMEONE_ELSE = "S-1-5-21-3623811015-3361044348-30300820-1014"
ADDRESS = r"\\.\pipe\termwise-alice-0123456789abcdef"


def test_the_dacl_grants_only_the_user_and_system() -> None:
    """Protected DACL, two allow entries (the user and SYSTEM), nothing for anyone else."""
    sddl = owner_only_sddl(ME)
    assert sddl == f"D:P(A;;GA;;;{ME})(A;;GA;;;SY)"
    trustees = re.findall(r"\(A;;GA;;;([^)]+)\)", sddl)
    assert trustees == [ME, "SY"]
    for broad in ("WD", "AU", "AN", "BU", "IU", "NU"):  # Everyone, users, network …
        assert f";{broad})" not in sddl


@pytest.mark.parametrize(
    "bad",
    ["", "SY", "alice", "S-1-", "S-1-5-21-1)(A;;GA;;;WD", "S-1-5-21-1 ", "D:P(A;;GA;;;WD)"],
)
def test_the_dacl_refuses_anything_but_a_plain_sid(bad: str) -> None:
    """Text that is not a SID (which could smuggle an entry for Everyone) is refused."""
    with pytest.raises(ValueError):
        owner_only_sddl(bad)


def test_sids_match_only_the_same_account() -> None:
    """Same SID (in any letter case) matches; another account, an unknown or junk one does not."""
    assert same_user(ME, ME)
    assert same_user(ME, ME.lower())
    assert not same_user(ME, SOMEONE_ELSE)
    assert not same_user(ME, ME + "0")  # a prefix of another SID is not that SID
    assert not same_user(ME, None)
    assert not same_user(ME, "")
    assert not same_user("", "")


def test_a_pipe_served_by_our_own_user_is_accepted() -> None:
    """The check passes silently when the server runs as us."""
    check_server_user(ADDRESS, ME, ME, 4321)


def test_a_pipe_served_by_another_user_is_refused_with_a_clear_message() -> None:
    """A squatter's pipe is refused as a PermissionError naming the pipe, the process and both users."""
    with pytest.raises(ForeignPipeServer) as caught:
        check_server_user(ADDRESS, ME, SOMEONE_ELSE, 4321)
    assert isinstance(caught.value, PermissionError)
    message = str(caught.value)
    for part in (ADDRESS, "4321", SOMEONE_ELSE, ME):
        assert part in message


def test_a_server_whose_user_cannot_be_read_is_refused() -> None:
    """When the serving process cannot be opened (another user's), Termwise fails closed."""
    with pytest.raises(ForeignPipeServer, match="cannot determine"):
        check_server_user(ADDRESS, ME, None, 4)
