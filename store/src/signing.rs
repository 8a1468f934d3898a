//! Commit signing, best effort, as git signs: when `commit.gpgSign` is on
//! (or [`crate::StoreOptions::sign_commits`] says so), every commit the store
//! writes — checkpoint, v1 branch, undo snapshot, shadow step, replayed
//! commit — goes through [`encode_commit`], which runs the program git would
//! run (`gpg.program` / `gpg.openpgp.program`, `gpg.ssh.program`,
//! `gpg.x509.program`, with git's arguments) and puts the signature in the
//! `gpgsig` header (`gpgsig-sha256` in a SHA-256 repository) where git puts
//! it. Any failure — no key, a program that cannot start, exits non-zero,
//! prints no signature, or runs past [`SIGN_TIMEOUT`] — leaves the commit
//! unsigned and logs one line; it never fails the write.
//!
//! The program comes from the repository's configuration: `Store::open_with`
//! refuses a repository another user owns before any of it is read.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gix::bstr::ByteSlice;

/// Where the store's log lines go: one call per line, no trailing newline.
pub type LogSink = Arc<dyn Fn(&str) + Send + Sync>;

/// The default [`LogSink`]: standard error, prefixed `agent-checkpoint: `
/// (git too writes its warnings there).
pub fn stderr_log() -> LogSink {
    Arc::new(|line: &str| eprintln!("agent-checkpoint: {line}"))
}

/// The longest a signing program may run before the commit is written
/// unsigned (the program is killed).
pub const SIGN_TIMEOUT: Duration = Duration::from_secs(10);

/// What one repository asks of signing (registered by `Store::open_with`).
#[derive(Clone)]
pub(crate) struct SigningPolicy {
    /// `Some` overrides `commit.gpgSign`.
    pub(crate) sign: Option<bool>,
    /// Where a signing failure is logged.
    pub(crate) log: LogSink,
}

static POLICIES: Mutex<Vec<(PathBuf, SigningPolicy)>> = Mutex::new(Vec::new());

/// Records the policy of the repository whose git common dir is
/// `common_dir` (the store opened last on a repository sets it).
pub(crate) fn register(common_dir: &Path, policy: SigningPolicy) {
    let mut policies = POLICIES.lock().unwrap_or_else(|p| p.into_inner());
    match policies.iter_mut().find(|(dir, _)| dir == common_dir) {
        Some((_, kept)) => *kept = policy,
        None => policies.push((common_dir.to_path_buf(), policy)),
    }
}

fn policy_of(common_dir: &Path) -> Option<SigningPolicy> {
    let policies = POLICIES.lock().unwrap_or_else(|p| p.into_inner());
    policies
        .iter()
        .find(|(dir, _)| dir == common_dir)
        .map(|(_, policy)| policy.clone())
}

/// The bytes of `commit` as git would write it: signed when the
/// repository asks for signing and the signer succeeds, else unsigned (the
/// failure logged). `commit` carries no signature header of its own.
///
/// # Errors
/// Only encoding errors of `commit` itself; signing never fails the write.
pub(crate) fn encode_commit(
    repo: &gix::Repository,
    commit: &gix::objs::Commit,
) -> agent_checkpoint::Result<Vec<u8>> {
    use gix::objs::WriteTo;
    let mut payload = Vec::new();
    commit
        .write_to(&mut payload)
        .map_err(|e| crate::objects::git_error("encoding a commit", e))?;
    let policy = policy_of(repo.common_dir());
    let wanted = match policy.as_ref().and_then(|p| p.sign) {
        Some(on) => on,
        None => repo
            .config_snapshot()
            .boolean("commit.gpgSign")
            .unwrap_or(false),
    };
    if !wanted {
        return Ok(payload);
    }
    let committer = format!("{} <{}>", commit.committer.name, commit.committer.email);
    let signed = Signer::from_config(repo, &committer)
        .and_then(|signer| signer.sign(&payload))
        .map(|signature| with_signature(&payload, &signature, repo.object_hash()));
    match signed {
        Ok(bytes) => Ok(bytes),
        Err(reason) => {
            let log = policy.map_or_else(stderr_log, |p| p.log);
            log(&format!("commit left unsigned: {reason}"));
            Ok(payload)
        }
    }
}

/// The signature header of a repository's hash, as git names it.
fn header_name(hash: gix::hash::Kind) -> &'static str {
    match hash {
        gix::hash::Kind::Sha1 => "gpgsig",
        _ => "gpgsig-sha256",
    }
}

/// `payload` with `signature` inserted as git's `do_sign_commit` inserts it:
/// after the last header line, every line of the signature prefixed with a
/// space, the first one after the header's name.
fn with_signature(payload: &[u8], signature: &[u8], hash: gix::hash::Kind) -> Vec<u8> {
    let insert_at = payload
        .find(b"\n\n")
        .map_or(payload.len(), |end_of_headers| end_of_headers + 1);
    let mut out = Vec::with_capacity(payload.len() + signature.len() + 64);
    out.extend_from_slice(&payload[..insert_at]);
    out.extend_from_slice(header_name(hash).as_bytes());
    for line in signature.split_inclusive(|b| *b == b'\n') {
        out.push(b' ');
        out.extend_from_slice(line);
    }
    out.extend_from_slice(&payload[insert_at..]);
    out
}

/// `signature` with each `\r\n` line ending made `\n` (a signer on Windows
/// ends its lines so; git drops those carriage returns too). Any other
/// `\r` is left for [`Signer::sign`] to refuse.
fn without_crlf(signature: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(signature.len());
    let mut bytes = signature.iter().peekable();
    while let Some(&b) = bytes.next() {
        if b == b'\r' && bytes.peek() == Some(&&b'\n') {
            continue;
        }
        out.push(b);
    }
    out
}

/// `gpg.format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    OpenPgp,
    Ssh,
    X509,
}

impl Format {
    fn parse(value: Option<&str>) -> Result<Format, String> {
        match value {
            None | Some("openpgp") => Ok(Format::OpenPgp),
            Some("ssh") => Ok(Format::Ssh),
            Some("x509") => Ok(Format::X509),
            Some(other) => Err(format!("unknown gpg.format {other:?}")),
        }
    }

    /// The armour the signature must start with.
    fn armour(self) -> &'static str {
        match self {
            Format::OpenPgp => "-----BEGIN PGP SIGNATURE-----",
            Format::Ssh => "-----BEGIN SSH SIGNATURE-----",
            Format::X509 => "-----BEGIN SIGNED MESSAGE-----",
        }
    }
}

/// The signing program and key git would use.
#[derive(Debug)]
struct Signer {
    format: Format,
    program: OsString,
    key: String,
}

impl Signer {
    /// From `gpg.format`, the format's program (git's default when unset)
    /// and `user.signingKey` (for openpgp and x509, the committer's
    /// `Name <email>` when unset, as git does).
    fn from_config(repo: &gix::Repository, committer: &str) -> Result<Signer, String> {
        let config = repo.config_snapshot();
        let format = Format::parse(
            config
                .string("gpg.format")
                .map(|v| v.to_str_lossy().into_owned())
                .as_deref(),
        )?;
        let program_of = |key: &str| {
            config
                .trusted_program(key)
                .map_err(|e| format!("{key}: {e}"))
        };
        let program = match format {
            Format::OpenPgp => match program_of("gpg.openpgp.program")? {
                Some(p) => Some(p),
                None => program_of("gpg.program")?,
            },
            Format::Ssh => program_of("gpg.ssh.program")?,
            Format::X509 => program_of("gpg.x509.program")?,
        }
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| {
            match format {
                Format::OpenPgp => "gpg",
                Format::Ssh => "ssh-keygen",
                Format::X509 => "gpgsm",
            }
            .into()
        });
        let key = config
            .string("user.signingKey")
            .map(|v| v.to_str_lossy().into_owned())
            .filter(|k| !k.is_empty());
        let key = match (format, key) {
            (_, Some(key)) => key,
            (Format::Ssh, None) => {
                return Err("gpg.format is ssh and user.signingKey is not set".to_owned())
            }
            (_, None) => committer.to_owned(),
        };
        Ok(Signer {
            format,
            program,
            key,
        })
    }

    /// The signature of `payload` (armoured text ending in a newline).
    fn sign(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        let signature = match self.format {
            Format::Ssh => self.sign_ssh(payload)?,
            Format::OpenPgp | Format::X509 => self.sign_gpg(payload)?,
        };
        let mut signature = without_crlf(signature);
        if let Some(byte) = signature.iter().find(|b| **b == b'\r' || **b == 0) {
            return Err(format!(
                "{} printed a signature holding {}, which a commit header cannot carry",
                self.program_name(),
                if *byte == 0 {
                    "a NUL byte"
                } else {
                    "a carriage return"
                }
            ));
        }
        if !signature.starts_with(self.format.armour().as_bytes()) {
            return Err(format!(
                "{} printed no {} signature",
                self.program_name(),
                match self.format {
                    Format::OpenPgp => "OpenPGP",
                    Format::Ssh => "SSH",
                    Format::X509 => "X.509",
                }
            ));
        }
        if !signature.ends_with(b"\n") {
            signature.push(b'\n');
        }
        Ok(signature)
    }

    fn program_name(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    /// `<program> --status-fd=2 -bsau <key>`, the payload on stdin, the
    /// signature on stdout, `[GNUPG:] SIG_CREATED` on stderr (git's check).
    fn sign_gpg(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        let mut cmd = Command::new(&self.program);
        cmd.args(["--status-fd=2", "-bsau"]).arg(&self.key);
        let (stdout, stderr) = run_bounded(cmd, Some(payload), &self.program_name())?;
        if !stderr.contains_str("\n[GNUPG:] SIG_CREATED ")
            && !stderr.starts_with(b"[GNUPG:] SIG_CREATED ")
        {
            return Err(format!(
                "{} did not report SIG_CREATED: {}",
                self.program_name(),
                one_line(&stderr)
            ));
        }
        Ok(stdout)
    }

    /// `<program> -Y sign -n git -f <key file> [-U] <payload file>`, the
    /// signature read from `<payload file>.sig`; a literal key
    /// (`key::...` or `ssh-...`) is written to a temp file and `-U` asks
    /// the agent for its private half, as git does.
    fn sign_ssh(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        let dir = tempfile::Builder::new()
            .prefix(".git_signing_")
            .tempdir()
            .map_err(|e| format!("a temp dir for signing: {e}"))?;
        let literal = self
            .key
            .strip_prefix("key::")
            .or_else(|| self.key.starts_with("ssh-").then_some(self.key.as_str()));
        let key_file = match literal {
            Some(key) => {
                let path = dir.path().join("key");
                std::fs::write(&path, key).map_err(|e| format!("writing the key: {e}"))?;
                path
            }
            None => expand_home(&self.key),
        };
        let buffer = dir.path().join("buffer");
        std::fs::write(&buffer, payload).map_err(|e| format!("writing the payload: {e}"))?;
        let mut cmd = Command::new(&self.program);
        cmd.args(["-Y", "sign", "-n", "git", "-f"]).arg(&key_file);
        if literal.is_some() {
            cmd.arg("-U");
        }
        cmd.arg(&buffer);
        let (_, stderr) = run_bounded(cmd, None, &self.program_name())?;
        let sig = dir.path().join("buffer.sig");
        std::fs::read(&sig).map_err(|e| {
            format!(
                "{} wrote no signature ({e}): {}",
                self.program_name(),
                one_line(&stderr)
            )
        })
    }
}

/// `~/` at the start of a key path, as git's `interpolate_path` reads it.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// The first non-empty line of `stderr`, cut to 200 characters.
fn one_line(stderr: &[u8]) -> String {
    let text = stderr.to_str_lossy();
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("[GNUPG:]"))
        .unwrap_or("no message");
    line.chars().take(200).collect()
}

/// Runs `cmd` (no shell) with `stdin` written to it (else stdin closed),
/// for at most [`SIGN_TIMEOUT`]: `(stdout, stderr)` when it exits 0.
fn run_bounded(
    mut cmd: Command,
    stdin: Option<&[u8]>,
    name: &str,
) -> Result<(Vec<u8>, Vec<u8>), String> {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .env("LC_ALL", "C");
    let mut child = cmd.spawn().map_err(|e| format!("running {name}: {e}"))?;
    // Pipes are served by threads of their own, so a signer that reads
    // slowly or writes a lot never blocks the wait, and one that leaves a
    // child holding a pipe open never blocks the store past the timeout.
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + SIGN_TIMEOUT;
    let status = wait_until(&mut child, deadline).map_err(|e| format!("{name}: {e}"))?;
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!(
            "{name} did not finish within {} s (killed)",
            SIGN_TIMEOUT.as_secs()
        ));
    };
    let remaining = deadline.saturating_duration_since(Instant::now());
    let stderr = stderr.recv_timeout(remaining).unwrap_or_default();
    if !status.success() {
        return Err(format!("{name} failed ({status}): {}", one_line(&stderr)));
    }
    let remaining = deadline.saturating_duration_since(Instant::now());
    let stdout = stdout.recv_timeout(remaining).unwrap_or_default();
    Ok((stdout, stderr))
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (send, receive) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.read_to_end(&mut out);
            let _ = send.send(out);
        });
    }
    receive
}

fn wait_until(
    child: &mut Child,
    deadline: Instant,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_goes_after_the_last_header_each_line_indented() {
        let payload = b"tree t\nauthor a\ncommitter c\n\nmessage\n";
        let out = with_signature(
            payload,
            b"-----BEGIN X-----\n\nabc\n",
            gix::hash::Kind::Sha1,
        );
        assert_eq!(
            out.as_bstr(),
            b"tree t\nauthor a\ncommitter c\ngpgsig -----BEGIN X-----\n \n abc\n\nmessage\n"
                .as_bstr()
        );
    }

    #[test]
    fn a_sha256_repository_names_the_header_gpgsig_sha256() {
        let out = with_signature(b"tree t\n\nm", b"s\n", gix::hash::Kind::Sha256);
        assert_eq!(out.as_bstr(), b"tree t\ngpgsig-sha256 s\n\nm".as_bstr());
    }

    #[test]
    fn only_crlf_line_endings_lose_their_carriage_return() {
        assert_eq!(without_crlf(b"a\r\nb\r\n".to_vec()), b"a\nb\n");
        assert_eq!(without_crlf(b"a\rb\r".to_vec()), b"a\rb\r");
        assert_eq!(without_crlf(b"a\r\r\n".to_vec()), b"a\r\n");
    }

    #[test]
    fn an_unknown_format_is_refused() {
        assert_eq!(Format::parse(None), Ok(Format::OpenPgp));
        assert_eq!(Format::parse(Some("ssh")), Ok(Format::Ssh));
        assert!(Format::parse(Some("pgp")).is_err());
    }
}
