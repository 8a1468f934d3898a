//! Commit signing judged by the real `git`: with an SSH key made by
//! `ssh-keygen`, an allowed-signers file and `commit.gpgSign`, a checkpoint
//! commit, a v1 branch commit (and the branch's seed) and a shadow step all
//! pass `git verify-commit`, in every repository format (SHA-256 ones carry
//! `gpgsig-sha256`) and are byte for byte what `git commit-tree -S` writes;
//! a commit written with signing off fails it. A broken
//! signer leaves the commit unsigned (no signature header) and logs one line,
//! and the write succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};

use agent_checkpoint_store::{
    Backend, LogSink, NoRedaction, SessionWrite, ShadowStep, Store, StoreOptions,
};
use common::TestRepo;

const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
const LEGACY_ID: &str = "a1b2c3d4e5f6";

/// A repository with one (unsigned) commit on `main`, an ed25519 key in its
/// `HOME`, an allowed-signers file naming the committer, and git configured
/// to sign with the key (`commit.gpgSign` left to the caller).
fn repository_with_key() -> TestRepo {
    let repo = TestRepo::new();
    std::fs::write(repo.path().join("a.txt"), "a\n").unwrap();
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let key = repo.home.path().join("id_ed25519");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(made.status.success(), "ssh-keygen: {made:?}");
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let allowed = repo.home.path().join("allowed_signers");
    std::fs::write(&allowed, format!("test@example.com {public}")).unwrap();
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", key.to_str().unwrap()]);
    repo.git(&[
        "config",
        "gpg.ssh.allowedSignersFile",
        allowed.to_str().unwrap(),
    ]);
    repo
}

/// A log sink keeping its lines.
fn captured() -> (LogSink, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&lines);
    let sink: LogSink = Arc::new(move |line: &str| kept.lock().unwrap().push(line.to_owned()));
    (sink, lines)
}

fn open(repo: &TestRepo, options: StoreOptions) -> Store {
    Store::open_with(repo.path(), options).unwrap()
}

fn options(log: LogSink) -> StoreOptions {
    StoreOptions::new(Arc::new(NoRedaction)).log(log)
}

fn verifies(repo: &TestRepo, commit: &str) -> bool {
    repo.git_output(&["verify-commit", commit], None)
        .status
        .success()
}

/// The commit's headers (everything before the blank line).
fn headers(repo: &TestRepo, commit: &str) -> String {
    let raw = repo.git(&["cat-file", "commit", commit]);
    raw.split("\n\n").next().unwrap().to_owned()
}

fn signature_header(repo: &TestRepo) -> &'static str {
    if repo.format.objects == "sha256" {
        "gpgsig-sha256 -----BEGIN SSH SIGNATURE-----"
    } else {
        "gpgsig -----BEGIN SSH SIGNATURE-----"
    }
}

/// One checkpoint on refs, one on the v1 branch, one shadow step: their
/// commits (the branch's seed commit last).
fn write_all_kinds(repo: &TestRepo, log: LogSink) -> Vec<String> {
    let refs = open(repo, options(log.clone()));
    let on_refs = refs
        .write_session(&SessionWrite::new(ID, "s1").prompt("sign me"))
        .unwrap();
    let branch = open(repo, options(log.clone()).backend(Backend::GitBranch));
    let on_branch = branch
        .write_session(&SessionWrite::new(LEGACY_ID, "s1").prompt("sign me too"))
        .unwrap();
    std::fs::write(repo.path().join("a.txt"), "changed\n").unwrap();
    let step = open(repo, options(log))
        .shadow_step(&ShadowStep::new("s1"))
        .unwrap();
    assert!(!step.skipped);
    let seed = repo.git(&["rev-parse", &format!("{}^", on_branch.commit)]);
    vec![
        on_refs.commit,
        on_branch.commit,
        step.commit,
        seed.trim().to_owned(),
    ]
}

/// The id of the commit `git commit-tree -S` writes with `commit`'s tree,
/// parents, identities and message: an SSH (Ed25519) signature is
/// deterministic, so the same bytes signed the same way give the same id.
fn git_would_write(repo: &TestRepo, commit: &str) -> String {
    let raw = repo.git(&["cat-file", "commit", commit]);
    let (head, message) = raw.split_once("\n\n").unwrap();
    let mut args = vec!["commit-tree".to_owned(), "-S".to_owned()];
    let mut env = Vec::new();
    for line in head.lines() {
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "tree" => args.push(value.to_owned()),
            "parent" => args.extend(["-p".to_owned(), value.to_owned()]),
            "author" | "committer" => {
                let (name, rest) = value.split_once(" <").unwrap();
                let (email, date) = rest.split_once("> ").unwrap();
                let who = key.to_uppercase();
                env.push((format!("GIT_{who}_NAME"), name.to_owned()));
                env.push((format!("GIT_{who}_EMAIL"), email.to_owned()));
                env.push((format!("GIT_{who}_DATE"), date.to_owned()));
            }
            _ => {}
        }
    }
    args.extend(["-F".to_owned(), "-".to_owned()]);
    let mut cmd = repo.command();
    cmd.args(&args).envs(env);
    use std::io::Write;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(message.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn every_kind_of_commit_verifies_when_commit_gpgsign_is_on() {
    common::each_format(every_kind_of_commit_verifies_when_commit_gpgsign_is_on_in);
}

fn every_kind_of_commit_verifies_when_commit_gpgsign_is_on_in() {
    let repo = repository_with_key();
    repo.git(&["config", "commit.gpgSign", "true"]);
    let (log, lines) = captured();
    for commit in write_all_kinds(&repo, log) {
        assert!(
            headers(&repo, &commit).contains(signature_header(&repo)),
            "{commit}: {}",
            headers(&repo, &commit)
        );
        assert_eq!(
            git_would_write(&repo, &commit),
            commit,
            "git signs differently"
        );
        let out = repo.git_output(&["verify-commit", "--raw", &commit], None);
        assert!(
            out.status.success(),
            "{commit}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        lines.lock().unwrap().is_empty(),
        "{:?}",
        lines.lock().unwrap()
    );
    repo.assert_fsck();
}

#[test]
fn without_commit_gpgsign_commits_are_unsigned_and_fail_verification() {
    let repo = repository_with_key();
    let (log, lines) = captured();
    for commit in write_all_kinds(&repo, log) {
        assert!(!headers(&repo, &commit).contains("gpgsig"), "{commit}");
        assert!(!verifies(&repo, &commit), "{commit} verified unsigned");
    }
    assert!(lines.lock().unwrap().is_empty());
}

#[test]
fn the_store_option_overrides_commit_gpgsign_both_ways() {
    let repo = repository_with_key();
    let (log, _) = captured();
    let signed = open(&repo, options(log.clone()).sign_commits(true))
        .write_session(&SessionWrite::new(ID, "s1"))
        .unwrap();
    assert!(verifies(&repo, &signed.commit));
    repo.git(&["config", "commit.gpgSign", "true"]);
    let unsigned = open(&repo, options(log).sign_commits(false))
        .write_session(&SessionWrite::new(ID, "s2"))
        .unwrap();
    assert!(!headers(&repo, &unsigned.commit).contains("gpgsig"));
    assert!(!verifies(&repo, &unsigned.commit));
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn a_broken_signer_leaves_the_commit_unsigned_and_logs_one_line() {
    let repo = repository_with_key();
    repo.git(&["config", "commit.gpgSign", "true"]);
    let home = repo.home.path();
    let signers = [
        ("/bin/false".to_owned(), "failed"),
        (
            script(home, "exit1", "echo 'no key here' >&2; exit 1"),
            "no key here",
        ),
        (script(home, "silent", "exit 0"), "wrote no signature"),
        (
            script(
                home,
                "garbage",
                "for last; do :; done; echo junk > \"$last.sig\"",
            ),
            "printed no SSH signature",
        ),
        (home.join("missing").to_str().unwrap().to_owned(), "running"),
    ];
    for (i, (program, reason)) in signers.iter().enumerate() {
        repo.git(&["config", "gpg.ssh.program", program]);
        let (log, lines) = captured();
        let written = open(&repo, options(log))
            .write_session(&SessionWrite::new(ID, format!("s{i}")))
            .unwrap();
        let raw = repo.git(&["cat-file", "commit", &written.commit]);
        assert!(!raw.contains("gpgsig"), "{program}: {raw}");
        assert!(!verifies(&repo, &written.commit));
        let lines = lines.lock().unwrap();
        assert_eq!(lines.len(), 1, "{program}: {lines:?}");
        assert!(
            lines[0].starts_with("commit left unsigned: ") && lines[0].contains(reason),
            "{program}: {lines:?}"
        );
    }
    repo.assert_fsck();
}

#[test]
fn a_signature_holding_a_carriage_return_or_nul_is_refused_and_logged() {
    let repo = repository_with_key();
    repo.git(&["config", "commit.gpgSign", "true"]);
    let home = repo.home.path();
    let armoured = |inner: &str| {
        format!(
            "for last; do :; done; printf -- '-----BEGIN SSH SIGNATURE-----\\n{inner}\\n-----END SSH SIGNATURE-----\\n' > \"$last.sig\""
        )
    };
    let signers = [
        (
            script(home, "cr", &armoured("ab\\rcd")),
            "a carriage return",
        ),
        (script(home, "nul", &armoured("ab\\000cd")), "a NUL byte"),
    ];
    for (i, (program, reason)) in signers.iter().enumerate() {
        repo.git(&["config", "gpg.ssh.program", program]);
        let (log, lines) = captured();
        let written = open(&repo, options(log))
            .write_session(&SessionWrite::new(ID, format!("s{i}")))
            .unwrap();
        let raw = std::process::Command::new("git")
            .current_dir(repo.path())
            .args(["cat-file", "commit", &written.commit])
            .output()
            .unwrap()
            .stdout;
        assert!(!raw.windows(6).any(|w| w == b"gpgsig"), "{program}");
        assert!(!raw.contains(&b'\r') && !raw.contains(&0), "{program}");
        let lines = lines.lock().unwrap();
        assert_eq!(lines.len(), 1, "{program}: {lines:?}");
        assert!(
            lines[0].starts_with("commit left unsigned: ") && lines[0].contains(reason),
            "{program}: {lines:?}"
        );
    }
    repo.assert_fsck();
}

#[test]
fn a_signer_ending_its_lines_with_crlf_still_signs() {
    let repo = repository_with_key();
    repo.git(&["config", "commit.gpgSign", "true"]);
    let program = script(
        repo.home.path(),
        "crlf",
        "for last; do :; done; ssh-keygen \"$@\" || exit 1; sed -i 's/$/\\r/' \"$last.sig\"",
    );
    repo.git(&["config", "gpg.ssh.program", &program]);
    let (log, lines) = captured();
    let written = open(&repo, options(log))
        .write_session(&SessionWrite::new(ID, "s1"))
        .unwrap();
    assert!(
        lines.lock().unwrap().is_empty(),
        "{:?}",
        lines.lock().unwrap()
    );
    // git verifies with gpg.ssh.program too: the plain ssh-keygen then.
    repo.git(&["config", "--unset", "gpg.ssh.program"]);
    assert!(verifies(&repo, &written.commit));
}

#[test]
fn ssh_format_without_a_signing_key_logs_and_writes_unsigned() {
    let repo = repository_with_key();
    repo.git(&["config", "commit.gpgSign", "true"]);
    repo.git(&["config", "--unset", "user.signingKey"]);
    let (log, lines) = captured();
    let written = open(&repo, options(log))
        .write_session(&SessionWrite::new(ID, "s1"))
        .unwrap();
    assert!(!headers(&repo, &written.commit).contains("gpgsig"));
    let lines = lines.lock().unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("user.signingKey"), "{lines:?}");
}

/// A stand-in for `gpg` that records its arguments and payload and answers
/// as gpg does (`SIG_CREATED` on the status fd) unless `status` is empty.
fn fake_gpg(dir: &Path, name: &str, status: &str) -> String {
    script(
        dir,
        name,
        &format!(
            "printf '%s\\n' \"$@\" > \"$0.args\"\ncat > \"$0.payload\"\n\
             echo '[GNUPG:] KEY_CONSIDERED ABC 0' >&2\n{status}\n\
             printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nfake\\n-----END PGP SIGNATURE-----\\n'"
        ),
    )
}

#[test]
fn openpgp_runs_gpg_program_with_gits_arguments_and_the_committer_as_key() {
    let repo = TestRepo::new();
    repo.git(&["config", "commit.gpgSign", "true"]);
    let program = fake_gpg(
        repo.home.path(),
        "gpg",
        "echo '[GNUPG:] SIG_CREATED D 22 8 00 1 ABC' >&2",
    );
    repo.git(&["config", "gpg.program", &program]);
    let (log, lines) = captured();
    let written = open(&repo, options(log))
        .write_session(&SessionWrite::new(ID, "s1"))
        .unwrap();
    assert!(
        lines.lock().unwrap().is_empty(),
        "{:?}",
        lines.lock().unwrap()
    );
    let raw = repo.git(&["cat-file", "commit", &written.commit]);
    let committer = raw
        .lines()
        .find_map(|l| l.strip_prefix("committer "))
        .unwrap();
    let ident = &committer[..=committer.find('>').unwrap()];
    let args = std::fs::read_to_string(format!("{program}.args")).unwrap();
    assert_eq!(args, format!("--status-fd=2\n-bsau\n{ident}\n"));
    let header = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n fake\n -----END PGP SIGNATURE-----\n";
    let head = raw.split("\n\n").next().unwrap();
    assert!(format!("{head}\n").ends_with(header), "{raw}");
    let payload = std::fs::read_to_string(format!("{program}.payload")).unwrap();
    assert_eq!(payload, raw.replacen(header, "", 1), "the signed bytes");
    repo.assert_fsck();
}

#[test]
fn openpgp_without_sig_created_on_the_status_fd_is_unsigned() {
    let repo = TestRepo::new();
    repo.git(&["config", "commit.gpgSign", "true"]);
    repo.git(&["config", "user.signingKey", "ABC"]);
    let program = fake_gpg(repo.home.path(), "gpg", "");
    repo.git(&["config", "gpg.program", &program]);
    let (log, lines) = captured();
    let written = open(&repo, options(log))
        .write_session(&SessionWrite::new(ID, "s1"))
        .unwrap();
    let args = std::fs::read_to_string(format!("{program}.args")).unwrap();
    assert_eq!(args, "--status-fd=2\n-bsau\nABC\n");
    assert!(!headers(&repo, &written.commit).contains("gpgsig"));
    let lines = lines.lock().unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("SIG_CREATED"), "{lines:?}");
}
