//! Real git servers for the remote tests, started and stopped by the test
//! itself: a bare repository reached over `file://`, and the same served by
//! `git daemon --enable=receive-pack` on 127.0.0.1 at a free port (killed,
//! with every process it started, on drop). Plus clones: test repositories
//! whose `origin` is the server, opened as stores.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use agent_checkpoint_store::{Backend, NoRedaction, Store, StoreOptions};

use crate::common::{git_command, TestRepo};

/// Which kind of server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A bare repository over `file://`.
    File,
    /// `git daemon --enable=receive-pack` on 127.0.0.1.
    Daemon,
}

/// Both kinds, for tests that must pass against each.
pub const KINDS: [Kind; 2] = [Kind::File, Kind::Daemon];

/// A running `git daemon`, killed (its whole process group) on drop.
struct Daemon {
    child: Child,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.wait();
    }
}

fn kill_group(pid: u32) {
    // The daemon leads its own process group (see `start_daemon`), which
    // holds the per-connection servers and their hooks too.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status();
}

/// A bare repository `remote.git` and, for [`Kind::Daemon`], the daemon
/// serving it.
pub struct Server {
    pub kind: Kind,
    base: tempfile::TempDir,
    home: tempfile::TempDir,
    port: u16,
    daemon: Option<Daemon>,
}

impl Server {
    /// A new empty server of `kind`.
    pub fn start(kind: Kind) -> Server {
        let base = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let bare = base.path().join("remote.git");
        let out = git_command(base.path(), home.path())
            .args(["init", "-q", "--bare", "-b", "main"])
            .arg(&bare)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut server = Server {
            kind,
            base,
            home,
            port: 0,
            daemon: None,
        };
        // Keep every pushed object as its own file or pack: never gc'd away
        // before the tests scan them.
        server.git(&["config", "gc.auto", "0"]);
        server.git(&["config", "receive.autogc", "false"]);
        if kind == Kind::Daemon {
            server.port = free_port();
            server.restart();
        }
        server
    }

    /// The bare repository's path.
    pub fn bare(&self) -> PathBuf {
        self.base.path().join("remote.git")
    }

    /// The URL clones use.
    pub fn url(&self) -> String {
        match self.kind {
            Kind::File => format!("file://{}", self.bare().display()),
            Kind::Daemon => format!("git://127.0.0.1:{}/remote.git", self.port),
        }
    }

    /// Starts (again) the daemon on its port; waits until it accepts.
    pub fn restart(&mut self) {
        assert_eq!(self.kind, Kind::Daemon);
        self.daemon = None;
        let mut cmd = git_command(self.base.path(), self.home.path());
        cmd.args([
            "daemon",
            "--enable=receive-pack",
            "--reuseaddr",
            "--listen=127.0.0.1",
            "--export-all",
            "--informative-errors",
        ])
        .arg(format!("--port={}", self.port))
        .arg(format!("--base-path={}", self.base.path().display()))
        .arg(self.base.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().unwrap();
        self.daemon = Some(Daemon { child });
        for _ in 0..500 {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("git daemon did not listen on port {} within 5 s", self.port);
    }

    /// Kills the daemon and everything it started (connections, hooks).
    pub fn stop(&mut self) {
        self.daemon = None;
    }

    /// Runs git in the bare repository, asserts success, returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = git_command(&self.bare(), self.home.path())
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?} in the remote failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Every ref of the remote, sorted.
    pub fn refs(&self) -> Vec<String> {
        self.git(&["for-each-ref", "--format=%(refname)"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The remote's tip of `name`, if any.
    pub fn tip(&self, name: &str) -> Option<String> {
        let out = git_command(&self.bare(), self.home.path())
            .args(["rev-parse", "--verify", "-q", name])
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8(out.stdout).unwrap().trim().to_owned())
    }

    /// Installs `hooks/<name>` with this shell script body.
    pub fn hook(&self, name: &str, script: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = self.bare().join("hooks").join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Removes `hooks/<name>`.
    pub fn remove_hook(&self, name: &str) {
        let _ = std::fs::remove_file(self.bare().join("hooks").join(name));
    }

    /// The content of every object the remote holds, loose or packed.
    pub fn all_object_bytes(&self) -> Vec<u8> {
        let out = git_command(&self.bare(), self.home.path())
            .args(["cat-file", "--batch-all-objects", "--batch", "--unordered"])
            .output()
            .unwrap();
        assert!(out.status.success());
        out.stdout
    }

    /// `git fsck --strict` on the remote passes.
    pub fn assert_fsck(&self) {
        self.git(&["fsck", "--strict", "--no-progress"]);
    }

    /// Asserts no merge commit and at most one parent anywhere.
    pub fn assert_linear(&self) {
        let merges = self.git(&["rev-list", "--all", "--merges"]);
        assert!(merges.trim().is_empty(), "merge commits: {merges}");
    }
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    free_port()
}

/// A clone: a test repository whose `origin` is the server.
pub struct Clone {
    pub repo: TestRepo,
}

impl Clone {
    /// A new repository with `origin` set to `server`'s URL.
    pub fn of(server: &Server) -> Clone {
        let repo = TestRepo::new();
        repo.git(&["remote", "add", "origin", &server.url()]);
        Clone { repo }
    }

    pub fn path(&self) -> &Path {
        self.repo.path()
    }

    /// The store (git-refs backend, no redaction).
    pub fn store(&self) -> Store {
        self.store_with(Backend::GitRefs)
    }

    pub fn store_with(&self, backend: Backend) -> Store {
        Store::open_with(
            self.path(),
            StoreOptions::new(Arc::new(NoRedaction)).backend(backend),
        )
        .unwrap()
    }

    /// The local tip of `name`, if any.
    pub fn tip(&self, name: &str) -> Option<String> {
        let out = self
            .repo
            .git_output(&["rev-parse", "--verify", "-q", name], None);
        out.status
            .success()
            .then(|| String::from_utf8(out.stdout).unwrap().trim().to_owned())
    }

    /// The refs in the push queue.
    pub fn queued(&self) -> Vec<String> {
        agent_checkpoint_naming::PushQueue::new(self.path().join(".git"))
            .peek()
            .unwrap()
            .refs
    }
}

/// The checkpoint ref of `id`.
pub fn ref_of(id: &str) -> String {
    agent_checkpoint_naming::refs::ref_name(id).unwrap()
}

/// A ULID-shaped checkpoint ID, distinct for each `n`.
pub fn ulid(n: u64) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut s = String::from("01KV");
    let mut v = n;
    for _ in 0..22 {
        s.push(ALPHABET[(v % 32) as usize] as char);
        v /= 32;
    }
    s
}

/// A legacy 12-hex checkpoint ID, distinct for each `n`.
pub fn legacy(n: u64) -> String {
    format!("{:012x}", n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16)
}

/// Writes `count` checkpoints `ulid(from..)` at once with `git fast-import`
/// (one commit of a small checkpoint tree per ref) and enqueues their refs,
/// as the store's writes would. Returns the refs.
pub fn fast_checkpoints(clone: &Clone, from: u64, count: u64) -> Vec<String> {
    use std::io::Write;
    let mut stream = Vec::new();
    let mut refs = Vec::new();
    for n in from..from + count {
        let id = ulid(n);
        let r = ref_of(&id);
        let summary = format!(
            "{{\n  \"checkpoint_id\": \"{id}\",\n  \"strategy\": \"manual-commit\",\n  \"checkpoints_count\": 1,\n  \"files_touched\": null,\n  \"sessions\": [\n    {{\n      \"metadata\": \"/0/metadata.json\",\n      \"prompt\": \"\"\n    }}\n  ]\n}}\n"
        );
        let meta = format!(
            "{{\n  \"checkpoint_id\": \"{id}\",\n  \"session_id\": \"s\",\n  \"strategy\": \"manual-commit\",\n  \"created_at\": \"2026-01-01T00:00:00Z\",\n  \"checkpoints_count\": 1,\n  \"files_touched\": null,\n  \"model\": \"\"\n}}\n"
        );
        let message =
            format!("Checkpoint: {id}\n\nEntire-Session: s\nEntire-Strategy: manual-commit\n");
        write!(
            stream,
            "commit {r}\ncommitter T <t@example.com> 1767225600 +0000\ndata {}\n{message}\n",
            message.len()
        )
        .unwrap();
        write!(
            stream,
            "M 100644 inline metadata.json\ndata {}\n{summary}\n",
            summary.len()
        )
        .unwrap();
        write!(
            stream,
            "M 100644 inline 0/metadata.json\ndata {}\n{meta}\n",
            meta.len()
        )
        .unwrap();
        refs.push(r);
    }
    let out = clone
        .repo
        .git_output(&["fast-import", "--quiet", "--force"], Some(&stream));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    agent_checkpoint_naming::PushQueue::new(clone.path().join(".git"))
        .enqueue_all(&refs)
        .unwrap();
    refs
}
