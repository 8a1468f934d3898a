//! Shared helpers of the store's integration tests: hermetic temp
//! repositories and the real `git` as the judge.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A repository format `git init` makes: how refs are stored (`files`,
/// `reftable`) and how objects are named (`sha1`, `sha256`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub refs: &'static str,
    pub objects: &'static str,
}

impl Format {
    pub const FILES_SHA1: Format = Format {
        refs: "files",
        objects: "sha1",
    };

    /// Whether refs live in reftable (no loose ref files, no `packed-refs`).
    pub fn reftable(self) -> bool {
        self.refs == "reftable"
    }

    /// Hex digits of an object id.
    pub fn hex_len(self) -> usize {
        if self.objects == "sha256" {
            64
        } else {
            40
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.refs, self.objects)
    }
}

/// The four formats: files and reftable refs, SHA-1 and SHA-256 objects.
pub const FORMATS: [Format; 4] = [
    Format::FILES_SHA1,
    Format {
        refs: "reftable",
        objects: "sha1",
    },
    Format {
        refs: "files",
        objects: "sha256",
    },
    Format {
        refs: "reftable",
        objects: "sha256",
    },
];

thread_local! {
    static CURRENT: std::cell::Cell<Option<Format>> = const { std::cell::Cell::new(None) };
}

/// The formats a test runs on: `STORE_TEST_FORMAT` (`reftable-sha256`, ...)
/// when set, else all four.
pub fn formats() -> Vec<Format> {
    match std::env::var("STORE_TEST_FORMAT") {
        Ok(name) if !name.is_empty() => {
            let f = FORMATS
                .into_iter()
                .find(|f| f.to_string() == name)
                .unwrap_or_else(|| panic!("STORE_TEST_FORMAT={name:?} is none of {FORMATS:?}"));
            vec![f]
        }
        _ => FORMATS.to_vec(),
    }
}

/// The format [`TestRepo::new`] makes on this thread: the one
/// [`each_format`] is running, else `STORE_TEST_FORMAT`, else files-sha1.
pub fn current_format() -> Format {
    CURRENT
        .with(std::cell::Cell::get)
        .or_else(|| {
            std::env::var("STORE_TEST_FORMAT")
                .ok()
                .filter(|n| !n.is_empty())
                .map(|_| formats()[0])
        })
        .unwrap_or(Format::FILES_SHA1)
}

/// Runs `test` once per format of [`formats`], every [`TestRepo::new`] in it
/// making a repository of that format (a failure names the format).
pub fn each_format(test: impl Fn()) {
    for format in formats() {
        eprintln!("== repository format {format}");
        CURRENT.with(|c| c.set(Some(format)));
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(&test));
        CURRENT.with(|c| c.set(None));
        if let Err(panic) = outcome {
            eprintln!("== failed in repository format {format}");
            std::panic::resume_unwind(panic);
        }
    }
}

/// A temporary repository with its own `HOME`, initialised by `git init`
/// (in [`current_format`]) with a local identity.
pub struct TestRepo {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub format: Format,
}

impl TestRepo {
    pub fn new() -> TestRepo {
        TestRepo::with_format(current_format())
    }

    pub fn with_format(format: Format) -> TestRepo {
        let repo = TestRepo {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            format,
        };
        let refs = format!("--ref-format={}", format.refs);
        let objects = format!("--object-format={}", format.objects);
        repo.git(&["init", "-q", "-b", "main", &refs, &objects]);
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

    /// The id of the empty tree in this repository's hash.
    pub fn empty_tree(&self) -> String {
        self.mktree(&[])
    }

    /// Deletes the loose object `id` (it must be loose).
    pub fn remove_loose(&self, id: &str) {
        let dir = self.path().join(".git/objects").join(&id[..2]);
        std::fs::remove_file(dir.join(&id[2..])).unwrap();
    }

    /// Points `name` at a commit that does not exist (made, then deleted).
    pub fn ref_to_missing_commit(&self, name: &str) -> String {
        let tree = self.empty_tree();
        let commit = self.commit_tree(&tree, None, "soon gone");
        self.git(&["update-ref", name, &commit]);
        self.remove_loose(&commit);
        commit
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
