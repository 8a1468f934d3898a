"""CheckpointStore(sign_commits=...): the store option overrides git's
`commit.gpgSign` both ways. The signer is a stand-in for `ssh-keygen` that
writes a fixed SSH-armoured signature, so the test needs no key."""

from __future__ import annotations

import subprocess
from pathlib import Path

import agent_checkpoint as ac
from test_store import ULID, git, new_repo


def with_fake_ssh_signer(repo: Path, gpg_sign: bool) -> None:
    signer = repo.parent / "fake-ssh-keygen"
    signer.write_text(
        "#!/bin/sh\nfor last; do :; done\n"
        "printf -- '-----BEGIN SSH SIGNATURE-----\\nfake\\n-----END SSH SIGNATURE-----\\n' > \"$last.sig\"\n"
    )
    signer.chmod(0o755)
    key = repo.parent / "key"
    key.write_text("not a real key\n")
    git(repo, "config", "gpg.format", "ssh")
    git(repo, "config", "gpg.ssh.program", str(signer))
    git(repo, "config", "user.signingKey", str(key))
    git(repo, "config", "commit.gpgSign", "true" if gpg_sign else "false")


def signed(repo: Path, commit: str) -> bool:
    raw = subprocess.run(["git", "cat-file", "commit", commit], cwd=repo, capture_output=True, check=True).stdout
    return b"\ngpgsig " in raw


def test_sign_commits_overrides_commit_gpgsign_both_ways(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    with_fake_ssh_signer(repo, gpg_sign=False)
    default = ac.CheckpointStore(repo).write_session(ULID, "s1")
    assert not signed(repo, default["commit"])
    on = ac.CheckpointStore(repo, sign_commits=True).write_session(ULID, "s2")
    assert signed(repo, on["commit"])

    git(repo, "config", "commit.gpgSign", "true")
    assert signed(repo, ac.CheckpointStore(repo, sign_commits=None).write_session(ULID, "s3")["commit"])
    off = ac.CheckpointStore(repo, "git-refs", sign_commits=False).write_session(ULID, "s4")
    assert not signed(repo, off["commit"])
