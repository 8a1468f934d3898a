//! `agent-checkpoint hook <agent>` played with each agent's recorded
//! session (`tests/hooks/<agent>/NN-*.json`, stdin exactly as the agent
//! sends it, `{{ROOT}}` and `{{TRANSCRIPT}}` filled in), then `rewind`:
//! both turns listed, turn 1 restored (the shell-deleted file back, the
//! shell-created one gone) with the user's edit kept as a conflict and no
//! untracked or ignored file touched, the redo bringing turn 1's result
//! back, the condensed checkpoint holding the transcript redacted. And the
//! ways a hook can fail: each exits 0 and logs one line.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A planted secret (a GitHub token's shape; not a real one): it must not
/// reach the checkpoint.
const SECRET: &str = "ghp_R8xK2mQ9vL4nT7pW1zY5bC3dF6gH0jA2sE4u";

/// How each agent runs its hook.
struct AgentCase {
    name: &'static str,
    /// The agent's product name, as the checkpoint records it.
    display: &'static str,
    /// Environment the agent sets for its hooks.
    env: &'static [(&'static str, &'static str)],
    /// Whether the agent runs the hook outside the project (Cursor runs it
    /// where its hooks.json is; the payload's `workspace_roots` says where).
    cwd_outside: bool,
}

const AGENTS: [AgentCase; 5] = [
    AgentCase {
        name: "claude-code",
        display: "Claude Code",
        env: &[("CLAUDE_PROJECT_DIR", "{{ROOT}}")],
        cwd_outside: false,
    },
    AgentCase {
        name: "codex",
        display: "Codex",
        env: &[],
        cwd_outside: false,
    },
    AgentCase {
        name: "gemini",
        display: "Gemini CLI",
        env: &[
            ("GEMINI_PROJECT_DIR", "{{ROOT}}"),
            ("CLAUDE_PROJECT_DIR", "{{ROOT}}"),
        ],
        cwd_outside: false,
    },
    AgentCase {
        name: "copilot",
        display: "GitHub Copilot CLI",
        env: &[],
        cwd_outside: false,
    },
    AgentCase {
        name: "cursor",
        display: "Cursor",
        env: &[("CURSOR_PROJECT_DIR", "{{ROOT}}")],
        cwd_outside: true,
    },
];

struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    transcript: PathBuf,
    state: PathBuf,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn git(dir: &Path, home: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

/// A repository with `a.txt`, `b.txt`, `del.txt` and `.gitignore`
/// (`build/`) committed, an untracked `notes.txt` and an ignored
/// `build/out.log`.
fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    git(&root, &home, &["init", "-q"]);
    for (path, content) in [
        ("a.txt", "a\n"),
        ("b.txt", "b\n"),
        ("del.txt", "d\n"),
        (".gitignore", "build/\n"),
    ] {
        std::fs::write(root.join(path), content).unwrap();
    }
    git(&root, &home, &["add", "-A"]);
    git(&root, &home, &["commit", "-q", "-m", "base"]);
    std::fs::write(root.join("notes.txt"), "mine\n").unwrap();
    std::fs::create_dir(root.join("build")).unwrap();
    std::fs::write(root.join("build/out.log"), "old\n").unwrap();
    World {
        transcript: tmp.path().join("transcript.jsonl"),
        state: tmp.path().join("state"),
        root,
        home,
        _tmp: tmp,
    }
}

impl World {
    fn fill(&self, template: &str) -> String {
        let esc = |p: &Path| {
            let quoted = serde_json::to_string(p.to_str().unwrap()).unwrap();
            quoted[1..quoted.len() - 1].to_owned()
        };
        template
            .replace("{{ROOT}}", &esc(&self.root))
            .replace("{{TRANSCRIPT}}", &esc(&self.transcript))
    }

    fn command(&self, dir: &Path) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"));
        cmd.current_dir(dir)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("AGENT_CHECKPOINT_STATE_DIR", &self.state);
        cmd
    }

    /// Runs the hook of `agent` with `stdin`, as the agent would.
    fn hook(&self, agent: &AgentCase, stdin: &str) -> Output {
        let dir = if agent.cwd_outside {
            self.home.clone()
        } else {
            self.root.clone()
        };
        let mut cmd = self.command(&dir);
        cmd.args(["hook", agent.name]);
        for (key, value) in agent.env {
            cmd.env(key, self.fill(value));
        }
        run_with_stdin(cmd, stdin)
    }

    fn cli(&self, args: &[&str]) -> Output {
        self.command(&self.root).args(args).output().unwrap()
    }

    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(path)).ok()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.root.join(".git/agent-checkpoint/hook.log"))
            .unwrap_or_default()
    }
}

fn run_with_stdin(mut cmd: Command, stdin: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn fixtures(agent: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/hooks")
        .join(agent);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .starts_with(|c: char| c.is_ascii_digit())
        })
        .collect();
    files.sort();
    files
}

/// What the "agent" and the user do around each recorded event: after a
/// `before` event the tool runs; before the second prompt the user edits a
/// file the agent wrote; before the session's last event the transcript
/// is complete.
fn play(world: &World, agent: &AgentCase) {
    let files = fixtures(agent.name);
    assert!(files.len() >= 13, "{}: {} events", agent.name, files.len());
    let last = files.last().unwrap().clone();
    for file in &files {
        let step = file.file_stem().unwrap().to_str().unwrap().to_owned();
        if step.ends_with("prompt-2") {
            std::fs::write(world.root.join("a.txt"), "user edit\n").unwrap();
        }
        // The agent keeps its transcript as it goes (Codex condenses at
        // each turn's end); it is complete by the last event.
        if file == &files[0] || *file == last {
            std::fs::write(
                &world.transcript,
                format!(
                    "{{\"type\":\"user\",\"text\":\"deploy with {SECRET}\"}}\n{{\"type\":\"assistant\",\"text\":\"done\"}}\n"
                ),
            )
            .unwrap();
        }
        let stdin = world.fill(&std::fs::read_to_string(file).unwrap());
        let out = world.hook(agent, &stdin);
        assert!(
            out.status.success(),
            "{}/{step}: exit {:?}",
            agent.name,
            out.status
        );
        let expected = std::fs::read_to_string(file.with_extension("stdout")).unwrap_or_default();
        assert_eq!(text(&out.stdout), expected, "{}/{step}: stdout", agent.name);
        assert_eq!(text(&out.stderr), "", "{}/{step}: stderr", agent.name);
        let root = &world.root;
        if step.ends_with("before-edit") {
            std::fs::write(root.join("a.txt"), "agent turn 1\n").unwrap();
        } else if step.ends_with("before-create") {
            std::fs::write(root.join("new.txt"), "new file\n").unwrap();
        } else if step.ends_with("before-shell") {
            // What the recorded command does.
            std::fs::remove_file(root.join("del.txt")).unwrap();
            std::fs::write(root.join("made.txt"), "made\n").unwrap();
            let mut log = std::fs::OpenOptions::new()
                .append(true)
                .open(root.join("build/out.log"))
                .unwrap();
            log.write_all(b"rebuilt\n").unwrap();
        } else if step.ends_with("before-edit-2") {
            std::fs::write(root.join("b.txt"), "agent turn 2\n").unwrap();
        }
    }
}

fn json(out: &Output) -> Value {
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn session_state(world: &World) -> Value {
    let dir = world.root.join(".git/agent-checkpoint/sessions");
    let session = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap();
    serde_json::from_slice(&std::fs::read(session.path().join("session.json")).unwrap()).unwrap()
}

#[test]
fn each_agents_recorded_session_rewinds_turn_one_and_redoes_it() {
    for agent in &AGENTS {
        let world = world();
        play(&world, agent);
        assert_eq!(world.log(), "", "{}: nothing failed", agent.name);

        let list = json(&world.cli(&["rewind", "--list", "--json"]));
        let turns = list["turns"].as_array().unwrap();
        let numbers: Vec<u64> = turns.iter().map(|t| t["turn"].as_u64().unwrap()).collect();
        assert_eq!(numbers, [2, 1, 0], "{}: {list}", agent.name);
        assert!(turns[1]["prompt"]
            .as_str()
            .unwrap()
            .starts_with("Rename the greeting"));
        let files = |t: &Value| -> Vec<String> {
            t["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(files(&turns[1]), ["a.txt", "new.txt"], "{}", agent.name);
        let turn2 = files(&turns[0]);
        for f in ["b.txt", "del.txt", "made.txt"] {
            assert!(turn2.contains(&f.to_owned()), "{}: {turn2:?}", agent.name);
        }

        let plan = world.cli(&["rewind", "--turn", "1", "--plan"]);
        assert!(plan.status.success());
        assert_eq!(
            world.read("made.txt").as_deref(),
            Some("made\n"),
            "a plan touches nothing"
        );

        let report = json(&world.cli(&["rewind", "--turn", "1", "--json"]));
        assert_eq!(
            report["conflicts"],
            serde_json::json!(["a.txt"]),
            "{}",
            agent.name
        );
        assert_eq!(world.read("a.txt").as_deref(), Some("user edit\n"));
        assert_eq!(world.read("b.txt").as_deref(), Some("b\n"));
        assert_eq!(
            world.read("del.txt").as_deref(),
            Some("d\n"),
            "shell-deleted file back"
        );
        assert_eq!(world.read("made.txt"), None, "shell-created file gone");
        assert_eq!(world.read("new.txt"), None);
        assert_eq!(
            world.read("notes.txt").as_deref(),
            Some("mine\n"),
            "untracked kept"
        );
        assert_eq!(
            world.read("build/out.log").as_deref(),
            Some("old\nrebuilt\n"),
            "ignored file never touched"
        );

        let redo = world.cli(&["rewind", "--redo"]);
        assert!(redo.status.success(), "{}", text(&redo.stderr));
        assert_eq!(world.read("new.txt").as_deref(), Some("new file\n"));
        assert_eq!(world.read("made.txt").as_deref(), Some("made\n"));
        assert_eq!(world.read("del.txt"), None);
        assert_eq!(world.read("b.txt").as_deref(), Some("agent turn 2\n"));
        assert_eq!(world.read("a.txt").as_deref(), Some("user edit\n"));

        let id = session_state(&world)["checkpoint_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let session = json(&world.cli(&["store", "session", &id]));
        let transcript = session["transcript"].as_str().unwrap();
        assert!(
            transcript.contains("deploy with"),
            "{}: {transcript}",
            agent.name
        );
        assert!(
            !transcript.contains(SECRET),
            "{}: secret redacted",
            agent.name
        );
        assert_eq!(session["metadata"]["agent"], agent.display);
        assert_eq!(session["prompts"].as_array().unwrap().len(), 2);
        let touched = &session["metadata"]["files_touched"];
        assert_eq!(
            touched,
            &serde_json::json!(["a.txt", "b.txt", "del.txt", "made.txt", "new.txt"]),
            "{}",
            agent.name
        );
    }
}

/// One failing event: exit 0, empty stdout, one short stderr line, and
/// exactly one more line in the log.
fn fails_once(out: &Output, log_before: &str, log_after: &str) {
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr).lines().count(),
        1,
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        log_after.lines().count(),
        log_before.lines().count() + 1,
        "{log_after}"
    );
}

#[test]
fn garbage_unknown_events_and_agents_exit_zero_with_one_log_line() {
    let world = world();
    let claude = &AGENTS[0];
    for stdin in [
        "not json {".to_owned(),
        String::new(),
        "[1, 2]".to_owned(),
        world.fill(r#"{"hook_event_name":"Bogus","session_id":"s","cwd":"{{ROOT}}"}"#),
        world.fill(r#"{"hook_event_name":"PreToolUse","cwd":"{{ROOT}}"}"#),
    ] {
        let before = world.log();
        let out = world.hook(claude, &stdin);
        fails_once(&out, &before, &world.log());
    }
    let before = world.log();
    let mut cmd = world.command(&world.root);
    cmd.args(["hook", "vim"]);
    let out = run_with_stdin(cmd, "{}");
    fails_once(&out, &before, &world.log());
    assert!(world.log().contains("unknown agent"));
    assert!(world.log().contains("unknown event \"Bogus\""));
}

#[test]
fn a_missing_transcript_is_logged_and_the_checkpoint_written_without_it() {
    let world = world();
    let claude = &AGENTS[0];
    let start = world.fill(
        r#"{"hook_event_name":"SessionStart","session_id":"s1","cwd":"{{ROOT}}","transcript_path":"{{ROOT}}/gone.jsonl"}"#,
    );
    assert!(world.hook(claude, &start).status.success());
    let end = world.fill(
        r#"{"hook_event_name":"SessionEnd","session_id":"s1","cwd":"{{ROOT}}","transcript_path":"{{ROOT}}/gone.jsonl"}"#,
    );
    let out = world.hook(claude, &end);
    fails_once(&out, "", &world.log());
    assert!(world.log().contains("gone.jsonl"), "{}", world.log());
    let list = json(&world.cli(&["store", "list", "--json"]));
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
}

#[test]
fn outside_git_file_tools_keep_undo_snapshots_in_the_state_dir() {
    let world = world();
    let plain = world.home.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("f.txt"), "before\n").unwrap();
    let claude = &AGENTS[0];
    let esc = serde_json::to_string(plain.to_str().unwrap()).unwrap();
    let event = |name: &str, extra: &str| {
        format!(r#"{{"hook_event_name":"{name}","session_id":"s9","cwd":{esc}{extra}}}"#)
    };
    let mut cmd = world.command(&plain);
    cmd.args(["hook", "claude-code"]);
    let out = run_with_stdin(cmd, &event("SessionStart", ""));
    assert!(out.status.success());
    assert_eq!(text(&out.stderr).lines().count(), 1);
    let logs: Vec<PathBuf> = walk(&world.state)
        .into_iter()
        .filter(|p| p.ends_with("hook.log"))
        .collect();
    assert_eq!(logs.len(), 1);
    let log = std::fs::read_to_string(&logs[0]).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains("not_a_repository"), "{log}");

    let file = serde_json::to_string(plain.join("f.txt").to_str().unwrap()).unwrap();
    let tool =
        format!(r#","tool_name":"Write","tool_use_id":"t1","tool_input":{{"file_path":{file}}}"#);
    for name in ["PreToolUse", "PostToolUse"] {
        if name == "PostToolUse" {
            std::fs::write(plain.join("f.txt"), "after\n").unwrap();
        }
        let out = world.hook(claude, &event(name, &tool));
        assert!(out.status.success());
        assert_eq!(text(&out.stderr), "");
    }
    let undo: Vec<PathBuf> = walk(&world.state)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("undo"))
        .collect();
    assert_eq!(undo.len(), 1, "{undo:?}");
    let out = world
        .command(&plain)
        .args([
            "rollback",
            undo[0].to_str().unwrap(),
            "--on-conflict",
            "skip",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(plain.join("f.txt")).unwrap(),
        "before\n"
    );
    assert_eq!(
        std::fs::read_to_string(&logs[0]).unwrap(),
        log,
        "no more failures"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_locked_store_gives_up_logs_one_line_and_exits_zero() {
    let world = world();
    let claude = &AGENTS[0];
    let start =
        world.fill(r#"{"hook_event_name":"SessionStart","session_id":"s1","cwd":"{{ROOT}}"}"#);
    assert!(world.hook(claude, &start).status.success());
    let branches = json(&world.cli(&["shadow", "list", "--json"]));
    let branch = branches[0]["branch"].as_str().unwrap().replace('/', "_");
    let lock_path = world
        .root
        .join(".git/entire-shadow-locks")
        .join(format!("{branch}.lock"));
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&lock_path)
        .unwrap();
    lock.lock().unwrap();
    let prompt = world.fill(
        r#"{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"{{ROOT}}","prompt":"go"}"#,
    );
    let out = world.hook(claude, &prompt);
    lock.unlock().unwrap();
    fails_once(&out, "", &world.log());
    assert!(world.log().contains("ref_busy"), "{}", world.log());
}

/// `rewind` alone on a terminal (a pseudo-terminal made by `script`): the
/// turns, a question, the preview, a confirmation, the rewind.
#[cfg(target_os = "linux")]
#[test]
fn rewind_alone_on_a_terminal_asks_previews_and_rewinds() {
    let world = world();
    play(&world, &AGENTS[0]);
    let bin = env!("CARGO_BIN_EXE_agent-checkpoint");
    let run = |answers: &str| {
        let mut cmd = Command::new("script");
        cmd.args(["-q", "-e", "-c", &format!("{bin} rewind"), "/dev/null"])
            .current_dir(&world.root)
            .env("HOME", &world.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("TERM", "dumb");
        let out = run_with_stdin(cmd, answers);
        assert!(out.status.success(), "{out:?}");
        text(&out.stdout)
    };
    let declined = run("1\nn\n");
    assert!(declined.contains("turn 2"), "{declined}");
    assert!(
        declined.contains("remove    made.txt"),
        "the preview: {declined}"
    );
    assert!(declined.contains("nothing rewound"), "{declined}");
    assert_eq!(world.read("made.txt").as_deref(), Some("made\n"));
    let done = run("1\ny\n");
    assert!(done.contains("undo this rewind"), "{done}");
    assert_eq!(world.read("made.txt"), None);
    assert_eq!(world.read("del.txt").as_deref(), Some("d\n"));
    assert_eq!(world.read("a.txt").as_deref(), Some("user edit\n"));
}
