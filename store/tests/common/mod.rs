//! Shared helpers of the store's integration tests: hermetic temp
//! repositories and the real `git` as the judge.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temporary repository with its own `HOME`, initialised by `git init`
/// with a local identity.
pub struct TestRepo {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl TestRepo {
    pub fn new() -> TestRepo {
        let repo = TestRepo {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test User"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn command(&self) -> Command {
        git_command(self.path(), self.home.path())
    }

    /// Runs git, asserts success, returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_output(args, None);
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs git with `stdin`, returns the whole output.
    pub fn git_output(&self, args: &[&str], stdin: Option<&[u8]>) -> Output {
        use std::io::Write;
        let mut cmd = self.command();
        cmd.args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        if let Some(input) = stdin {
            let mut pipe = child.stdin.take().unwrap();
            pipe.write_all(input).unwrap();
        }
        child.wait_with_output().unwrap()
    }

    /// `git fsck --strict` passes (and says nothing is dangling-broken).
    pub fn assert_fsck(&self) {
        let out = self.git_output(&["fsck", "--strict", "--no-progress"], None);
        assert!(
            out.status.success(),
            "git fsck --strict failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Every ref, one `name` per line, sorted.
    pub fn refs(&self) -> Vec<String> {
        self.git(&["for-each-ref", "--format=%(refname)"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    pub fn cat(&self, spec: &str) -> String {
        self.git(&["cat-file", "-p", spec])
    }

    /// Hashes `bytes` into a blob with `git hash-object -w --stdin`.
    pub fn blob(&self, bytes: &[u8]) -> String {
        let out = self.git_output(&["hash-object", "-w", "--stdin"], Some(bytes));
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// `git mktree` of `(mode, type, id, name)` entries.
    pub fn mktree(&self, entries: &[(&str, &str, &str, &str)]) -> String {
        let mut input = String::new();
        for (mode, kind, id, name) in entries {
            input.push_str(&format!("{mode} {kind} {id}\t{name}\n"));
        }
        let out = self.git_output(&["mktree"], Some(input.as_bytes()));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    pub fn commit_tree(&self, tree: &str, parent: Option<&str>, message: &str) -> String {
        let mut args = vec!["commit-tree", tree, "-m", message];
        if let Some(p) = parent {
            args.extend(["-p", p]);
        }
        self.git(&args).trim().to_owned()
    }
}

/// A git command in `dir`, hermetic: no system or global config, `HOME`
/// set to `home`, C locale, no prompts.
pub fn git_command(dir: &Path, home: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY");
    cmd
}

/// The shared vectors directory.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}
