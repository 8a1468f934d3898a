//! Real git servers for the remote tests, started and stopped by the test
//! itself: a bare repository reached over `file://`, and the same served by
//! `git daemon --enable=receive-pack` on 127.0.0.1 at a free port (killed,
//! with every process it started, on drop). Plus clones: test repositories
//! whose `origin` is the server, opened as stores.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
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
    trace: bool,
}

impl Server {
    /// A new empty server of `kind`.
    pub fn start(kind: Kind) -> Server {
        let base = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let bare = base.path().join("remote.git");
        let format = crate::common::current_format();
        let out = git_command(base.path(), home.path())
            .args(["init", "-q", "--bare", "-b", "main"])
            .arg(format!("--ref-format={}", format.refs))
            .arg(format!("--object-format={}", format.objects))
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
            trace: false,
        };
        // Keep every pushed object as its own file or pack: never gc'd away
        // before the tests scan them.
        server.git(&["config", "gc.auto", "0"]);
        server.git(&["config", "receive.autogc", "false"]);
        // As hosting services run it: every pushed object judged by
        // `git fsck` rules, a push with one bad object refused whole.
        server.git(&["config", "receive.fsckObjects", "true"]);
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
            "--verbose",
        ])
        .arg(format!("--port={}", self.port))
        .arg(format!("--base-path={}", self.base.path().display()))
        .arg(self.base.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.daemon_log())
                .unwrap(),
        );
        if self.trace {
            cmd.env("GIT_TRACE_PACKET", self.packet_log());
        }
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().unwrap();
        let mut daemon = Daemon { child };
        for _ in 0..500 {
            if let Some(status) = daemon.child.try_wait().unwrap() {
                panic!(
                    "git daemon on port {} exited ({status}): {}",
                    self.port,
                    std::fs::read_to_string(self.daemon_log()).unwrap_or_default()
                );
            }
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                self.daemon = Some(daemon);
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("git daemon did not listen on port {} within 5 s", self.port);
    }

    /// Where the daemon (`--verbose`) logs each request.
    fn daemon_log(&self) -> PathBuf {
        self.home.path().join("daemon.log")
    }

    /// How many `upload-pack` requests (fetches, listings) the daemon has
    /// served so far.
    pub fn daemon_fetches(&self) -> usize {
        std::fs::read_to_string(self.daemon_log())
            .map_or(0, |t| t.matches("Request upload-pack").count())
    }

    /// Restarts the daemon with every packet its servers exchange logged
    /// (`GIT_TRACE_PACKET`), read by [`Server::packets`].
    pub fn trace_packets(&mut self) {
        assert_eq!(self.kind, Kind::Daemon);
        self.trace = true;
        self.restart();
    }

    fn packet_log(&self) -> PathBuf {
        self.home.path().join("packets.log")
    }

    /// The packet log of [`Server::trace_packets`] so far.
    pub fn packets(&self) -> String {
        std::fs::read_to_string(self.packet_log()).unwrap_or_default()
    }

    /// Whether the remote serves filtered fetches (`uploadpack.allowFilter`).
    pub fn allow_filters(&self, on: bool) {
        self.git(&[
            "config",
            "uploadpack.allowFilter",
            if on { "true" } else { "false" },
        ]);
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

/// A port free now and never handed out before in this test process: the
/// tests of one binary run on parallel threads, and a server that stops and
/// restarts its daemon must find its port still its own (a port the kernel
/// gave back could otherwise go to another test's daemon in between).
fn free_port() -> u16 {
    static HANDED_OUT: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        if handed_out.insert(port) {
            return port;
        }
    }
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

    /// Makes every push of this clone to `origin` log one line in the
    /// returned file (its `remote.origin.receivepack` is a wrapper around
    /// `git receive-pack`): the number of `git push` runs, counted at the
    /// remote's end. For [`Kind::File`] servers.
    pub fn count_pushes(&self) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let log = self.repo.home.path().join("pushes.log");
        let wrapper = self.repo.home.path().join("receive-pack.sh");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\necho push >> '{}'\nexec git receive-pack \"$@\"\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        self.repo.git(&[
            "config",
            "remote.origin.receivepack",
            &wrapper.display().to_string(),
        ]);
        log
    }

    /// How many objects of each kind (`blob`, `tree`, `commit`) the clone
    /// holds, counted by `git cat-file --batch-all-objects --batch-check`
    /// (which never fetches).
    pub fn object_counts(&self) -> std::collections::BTreeMap<String, usize> {
        let out = self.repo.git_output(
            &[
                "cat-file",
                "--batch-all-objects",
                "--batch-check=%(objecttype)",
            ],
            None,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut counts = std::collections::BTreeMap::new();
        for kind in String::from_utf8(out.stdout).unwrap().lines() {
            *counts.entry(kind.to_owned()).or_insert(0) += 1;
        }
        counts
    }

    /// Whether the clone holds object `oid` (never fetching it).
    pub fn has_object(&self, oid: &str) -> bool {
        self.repo
            .command()
            .env("GIT_NO_LAZY_FETCH", "1")
            .args(["cat-file", "-e", oid])
            .output()
            .unwrap()
            .status
            .success()
    }

    /// The promisor remotes a treeless fetch configured here.
    pub fn promisor_remotes(&self) -> Vec<String> {
        self.repo
            .git(&["remote"])
            .lines()
            .filter(|r| r.starts_with(agent_checkpoint_store::PROMISOR_PREFIX))
            .map(str::to_owned)
            .collect()
    }

    /// Makes every fetch from this clone's promisor remotes (what a read
    /// after a treeless fetch runs) log one line in the returned file (a
    /// `git upload-pack` wrapper): round trips, counted at the remote's
    /// end. For [`Kind::File`] servers.
    pub fn count_promisor_fetches(&self) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let log = self.repo.home.path().join("fetches.log");
        let wrapper = self.repo.home.path().join("upload-pack.sh");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\necho fetch >> '{}'\nexec git upload-pack \"$@\"\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        for remote in self.promisor_remotes() {
            self.repo.git(&[
                "config",
                &format!("remote.{remote}.uploadpack"),
                &wrapper.display().to_string(),
            ]);
        }
        log
    }

    /// The refs in the push queue.
    pub fn queued(&self) -> Vec<String> {
        agent_checkpoint_naming::PushQueue::new(self.path().join(".git"))
            .peek()
            .unwrap()
            .refs
    }
}

/// How many pushes the log of [`Clone::count_pushes`] counted.
pub fn pushes(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.lines().count())
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
