//! `agent-checkpoint install`, `uninstall` and `doctor`, driven as a user
//! would, on copies of agents' configuration files that already hold other
//! hooks (`tests/install/<agent>/`, written from each agent's documented
//! examples). HOME (and every agent's own home variable) points into the
//! test's temporary directory.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const AGENTS: [&str; 5] = ["claude-code", "codex", "gemini", "copilot", "cursor"];

/// A project (a directory with `.git`) and a home directory.
struct World {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
    /// Prepended to PATH for `doctor`'s program check.
    bin_dir: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let home = tmp.path().join("home");
        let bin_dir = tmp.path().join("bin");
        for dir in [&project.join(".git"), &home, &bin_dir] {
            std::fs::create_dir_all(dir).unwrap();
        }
        World {
            _tmp: tmp,
            project,
            home,
            bin_dir,
        }
    }

    /// Runs the binary in `dir` with HOME set and the agents' home
    /// variables cleared.
    fn run_in(&self, dir: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
            .args(args)
            .current_dir(dir)
            .env("HOME", &self.home)
            .env("USERPROFILE", &self.home)
            .env_remove("CODEX_HOME")
            .env_remove("COPILOT_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("PATH", self.path_var())
            .output()
            .unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.project, args)
    }

    fn path_var(&self) -> std::ffi::OsString {
        let mut dirs = vec![self.bin_dir.clone()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(dirs).unwrap()
    }

    /// The configuration file of `agent` in the project.
    fn project_config(&self, agent: &str) -> PathBuf {
        self.project.join(project_config_rel(agent))
    }

    /// Copies `agent`'s fixture to where the agent reads it in the project;
    /// returns its bytes.
    fn place_fixture(&self, agent: &str) -> String {
        let fixture = fixture_dir(agent).join(fixture_name(agent));
        let text = std::fs::read_to_string(&fixture).unwrap();
        let target = if agent == "copilot" {
            // Copilot's other hooks live in a file of their own beside ours.
            self.project.join(".github/hooks/security.json")
        } else {
            self.project_config(agent)
        };
        write(&target, &text);
        if agent == "codex" {
            let toml = std::fs::read_to_string(fixture_dir(agent).join("config.toml")).unwrap();
            write(&self.project.join(".codex/config.toml"), &toml);
        }
        text
    }
}

fn project_config_rel(agent: &str) -> &'static str {
    match agent {
        "claude-code" => ".claude/settings.json",
        "codex" => ".codex/hooks.json",
        "gemini" => ".gemini/settings.json",
        "copilot" => ".github/hooks/agent-checkpoint.json",
        "cursor" => ".cursor/hooks.json",
        other => panic!("no agent {other}"),
    }
}

fn fixture_dir(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/install")
        .join(agent)
}

fn fixture_name(agent: &str) -> &'static str {
    match agent {
        "claude-code" | "gemini" => "settings.json",
        "codex" | "cursor" => "hooks.json",
        "copilot" => "security.json",
        other => panic!("no agent {other}"),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        stdout(out),
        stderr(out)
    );
    stdout(out)
}

fn backup(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".agent-checkpoint.bak");
    PathBuf::from(name)
}

/// The JSON of a configuration file, comments stripped (Gemini's has some:
/// only whole-line and block comments, as in the fixture).
fn json_of(text: &str) -> Value {
    let mut plain = String::new();
    let mut in_block = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if in_block {
            in_block = !trimmed.contains("*/");
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        if trimmed.starts_with("/*") {
            in_block = !trimmed.contains("*/");
            continue;
        }
        plain.push_str(line);
        plain.push('\n');
    }
    serde_json::from_str(&plain).unwrap_or_else(|e| panic!("{e}: {plain}"))
}

/// Whether a handler object runs our hook.
fn is_ours(handler: &Value) -> bool {
    ["command", "bash", "powershell"].iter().any(|key| {
        handler
            .get(*key)
            .and_then(Value::as_str)
            .is_some_and(|c| c.starts_with("agent-checkpoint hook"))
    })
}

/// Every handler of `doc` as (event, handler), whatever the agent's shape.
fn handlers(doc: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, entries) in hooks {
        for entry in entries.as_array().into_iter().flatten() {
            match entry.get("hooks").and_then(Value::as_array) {
                Some(inner) => out.extend(inner.iter().map(|h| (event.clone(), h.clone()))),
                None => out.push((event.clone(), entry.clone())),
            }
        }
    }
    out
}

fn ours(doc: &Value) -> Vec<(String, Value)> {
    handlers(doc)
        .into_iter()
        .filter(|(_, h)| is_ours(h))
        .collect()
}

fn theirs(doc: &Value) -> Vec<(String, Value)> {
    handlers(doc)
        .into_iter()
        .filter(|(_, h)| !is_ours(h))
        .collect()
}

/// The events `install` registers for each agent (issue 34 item 1).
fn expected_events(agent: &str) -> Vec<&'static str> {
    match agent {
        "claude-code" => vec![
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "SessionEnd",
        ],
        "codex" => vec![
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
        ],
        "gemini" => vec![
            "SessionStart",
            "BeforeAgent",
            "BeforeTool",
            "AfterTool",
            "AfterAgent",
            "SessionEnd",
        ],
        "copilot" => vec![
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "SessionEnd",
        ],
        "cursor" => vec![
            "sessionStart",
            "beforeSubmitPrompt",
            "preToolUse",
            "afterFileEdit",
            "beforeShellExecution",
            "afterShellExecution",
            "stop",
            "sessionEnd",
        ],
        other => panic!("no agent {other}"),
    }
}

fn sorted_events(entries: &[(String, Value)]) -> Vec<String> {
    let mut events: Vec<String> = entries.iter().map(|(e, _)| e.clone()).collect();
    events.sort();
    events
}

#[test]
fn install_adds_ours_once_keeps_theirs_and_backs_up_the_old_file() {
    for agent in AGENTS {
        let world = World::new();
        let original = world.place_fixture(agent);
        let config = world.project_config(agent);
        let original_doc = json_of(&original);

        let out = ok(&world.run(&["install", agent]));
        let installed = read(&config);
        let doc = json_of(&installed);
        let mut want: Vec<String> = expected_events(agent)
            .iter()
            .map(|e| (*e).to_owned())
            .collect();
        want.sort();
        assert_eq!(
            sorted_events(&ours(&doc)),
            want,
            "{agent}: one of ours per event\n{installed}"
        );
        for (_, handler) in ours(&doc) {
            let command = ["command", "bash"]
                .iter()
                .find_map(|k| handler.get(*k).and_then(Value::as_str))
                .unwrap();
            assert_eq!(command, format!("agent-checkpoint hook {agent}"), "{agent}");
        }
        if agent == "copilot" {
            // Their hooks are in a file of their own, which is not touched.
            let security = world.project.join(".github/hooks/security.json");
            assert_eq!(read(&security), original, "{agent}");
            assert_eq!(doc["version"], 1, "{agent}");
            assert!(out.contains("created"), "{agent}: {out}");
        } else {
            assert_eq!(
                theirs(&doc),
                theirs(&original_doc),
                "{agent}: theirs untouched"
            );
            // Every other setting is still there, and the backup holds the
            // old bytes.
            for (key, value) in original_doc.as_object().unwrap() {
                if key != "hooks" {
                    assert_eq!(&doc[key], value, "{agent}: {key}");
                }
            }
            assert_eq!(read(&backup(&config)), original, "{agent}: backup");
            assert!(out.contains("backup: "), "{agent}: {out}");
        }

        // A second install writes nothing.
        let again = ok(&world.run(&["install", agent]));
        assert!(
            again.contains("already installed and current"),
            "{agent}: {again}"
        );
        assert_eq!(read(&config), installed, "{agent}: idempotent");
    }
}

#[test]
fn what_is_kept_keeps_its_bytes_comments_and_indentation() {
    let world = World::new();
    let original = world.place_fixture("gemini");
    ok(&world.run(&["install", "gemini"]));
    let installed = read(&world.project_config("gemini"));
    for kept in [
        "  // Shared settings for this repository.\n",
        "    /* Block writes of secrets. */\n",
        "    \"checkpointing\": { \"enabled\": false }\n",
        "  \"ui\": { \"theme\": \"GitHub\" },\n",
    ] {
        assert!(installed.contains(kept), "{kept:?} kept:\n{installed}");
    }
    assert!(
        installed.contains("\"hooksConfig\": {\n    \"enabled\": true\n  }"),
        "{installed}"
    );
    assert!(installed.contains("\"timeout\": 30000"), "{installed}");
    assert_ne!(installed, original);

    // Cursor's fixture is indented with tabs: so is what install adds.
    let world = World::new();
    world.place_fixture("cursor");
    ok(&world.run(&["install", "cursor"]));
    let installed = read(&world.project_config("cursor"));
    assert!(
        installed.contains("\t\t\"sessionStart\": [\n\t\t\t{\n\t\t\t\t\"command\": \"agent-checkpoint hook cursor\","),
        "{installed}"
    );
    assert!(
        !installed.contains("  \""),
        "no space indentation:\n{installed}"
    );
}

#[test]
fn uninstall_removes_ours_only_and_restores_the_original_bytes() {
    for agent in AGENTS {
        let world = World::new();
        let original = world.place_fixture(agent);
        let config = world.project_config(agent);
        ok(&world.run(&["install", agent]));
        let installed = read(&config);
        let out = ok(&world.run(&["uninstall", agent]));
        match agent {
            "copilot" => {
                // Our own file holds nothing else: it is deleted (backed up).
                assert!(!config.exists(), "{out}");
                assert_eq!(read(&backup(&config)), installed);
                let security = world.project.join(".github/hooks/security.json");
                assert_eq!(read(&security), original);
            }
            "gemini" => {
                // The switch that turns Gemini's hooks on stays (others'
                // hooks need it); everything else is as it was.
                let doc = json_of(&read(&config));
                let mut want = json_of(&original);
                want["hooksConfig"] = serde_json::json!({"enabled": true});
                assert_eq!(doc, want);
                assert!(read(&config).contains("/* Block writes of secrets. */"));
            }
            _ => assert_eq!(read(&config), original, "{agent}: byte for byte"),
        }
        assert_eq!(
            read(&backup(&config)),
            installed,
            "{agent}: backup of the installed file"
        );
        let again = ok(&world.run(&["uninstall", agent]));
        assert!(again.contains("not installed"), "{agent}: {again}");
    }
}

#[test]
fn uninstall_keeps_a_hook_a_user_added_to_our_copilot_file() {
    let world = World::new();
    ok(&world.run(&["install", "copilot"]));
    let config = world.project_config("copilot");
    let text = read(&config).replacen(
        "\"SessionEnd\": [",
        "\"SessionEnd\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./log-end.sh\"\n      },",
        1,
    );
    write(&config, &text);
    ok(&world.run(&["uninstall", "copilot"]));
    let doc = json_of(&read(&config));
    assert!(ours(&doc).is_empty());
    assert_eq!(theirs(&doc).len(), 1, "{doc}");
    assert_eq!(
        doc["hooks"]["SessionEnd"][0]["bash"], "./log-end.sh",
        "{doc}"
    );
}

#[test]
fn dry_run_prints_the_diff_and_changes_nothing() {
    for agent in AGENTS {
        let world = World::new();
        let original = world.place_fixture(agent);
        let config = world.project_config(agent);
        let before_exists = config.exists();
        let out = ok(&world.run(&["install", agent, "--dry-run"]));
        assert!(
            out.contains(&format!("+++ {}", config.display())),
            "{agent}: {out}"
        );
        assert!(
            out.lines().any(
                |l| l.starts_with('+') && l.contains(&format!("agent-checkpoint hook {agent}"))
            ),
            "{agent}: {out}"
        );
        assert!(
            out.contains("dry run, nothing was written"),
            "{agent}: {out}"
        );
        assert_eq!(config.exists(), before_exists, "{agent}");
        if before_exists {
            assert_eq!(read(&config), original, "{agent}");
        }
        assert!(!backup(&config).exists(), "{agent}: no backup");
        if agent == "codex" {
            let toml = read(&world.project.join(".codex/config.toml"));
            assert!(!toml.contains("codex_hooks"), "{toml}");
            assert!(out.contains("+codex_hooks = true"), "{out}");
        }

        // The same as JSON, and for uninstall.
        let out = ok(&world.run(&["--json", "install", agent, "--dry-run"]));
        let report: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(report["dry_run"], true);
        assert_eq!(report["changed"], false);
        let files = report["files"].as_array().unwrap();
        let diffs: Vec<&str> = files.iter().map(|f| f["diff"].as_str().unwrap()).collect();
        assert!(
            diffs.iter().any(|d| d.contains("agent-checkpoint hook")),
            "{agent}: {diffs:?}"
        );
        assert!(
            files.iter().all(|f| f["backup"].is_null()),
            "{agent}: {report}"
        );
        ok(&world.run(&["install", agent]));
        let installed = read(&config);
        let out = ok(&world.run(&["uninstall", agent, "--dry-run"]));
        assert!(
            out.lines()
                .any(|l| l.starts_with("-") && l.contains("agent-checkpoint hook")),
            "{out}"
        );
        assert_eq!(
            read(&config),
            installed,
            "{agent}: uninstall --dry-run changes nothing"
        );
    }
}

#[test]
fn invalid_json_is_refused_and_nothing_changes() {
    for agent in AGENTS {
        let world = World::new();
        let config = world.project_config(agent);
        let broken = "{\n  \"hooks\": {\n    \"Stop\": [\n";
        write(&config, broken);
        for args in [vec!["install", agent], vec!["uninstall", agent]] {
            let out = world.run(&args);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{agent} {args:?}: {}",
                stdout(&out)
            );
            let err = stderr(&out);
            assert!(err.starts_with("error[invalid_argument]"), "{agent}: {err}");
            assert!(
                err.contains("is not valid JSON") && err.contains("nothing was changed"),
                "{err}"
            );
            assert_eq!(read(&config), broken, "{agent}: untouched");
            assert!(!backup(&config).exists(), "{agent}: no backup");
        }
        if agent == "codex" {
            assert!(
                !world.project.join(".codex/config.toml").exists(),
                "no flag written"
            );
        }
    }

    let world = World::new();
    // Comments: Gemini CLI strips them, Claude Code's parser does not.
    write(&world.project_config("claude-code"), "{\n  // mine\n}\n");
    let out = world.run(&["install", "claude-code"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    write(&world.project_config("gemini"), "{\n  // mine\n}\n");
    ok(&world.run(&["install", "gemini"]));
    assert!(read(&world.project_config("gemini")).starts_with("{\n  // mine\n"));
    // ...but not trailing commas.
    let world = World::new();
    write(&world.project_config("gemini"), "{\"a\": 1,}\n");
    assert_eq!(world.run(&["install", "gemini"]).status.code(), Some(2));

    // Valid JSON of another shape is refused too.
    for (text, what) in [
        ("[1, 2]\n", "top level"),
        ("{\"hooks\": [1]}\n", "`hooks` is not an object"),
        (
            "{\"hooks\": {\"Stop\": {}}}\n",
            "`hooks.Stop` is not a list",
        ),
    ] {
        let world = World::new();
        let config = world.project_config("claude-code");
        write(&config, text);
        let out = world.run(&["--json", "install", "claude-code"]);
        assert_eq!(out.status.code(), Some(2));
        let err: Value = serde_json::from_str(&stderr(&out)).unwrap();
        assert_eq!(err["error"]["code"], "invalid_argument");
        assert!(
            err["error"]["message"].as_str().unwrap().contains(what),
            "{err}"
        );
        assert_eq!(read(&config), text);
    }
}

#[test]
fn codex_gets_its_feature_flag_with_the_rest_of_config_toml_kept() {
    let world = World::new();
    world.place_fixture("codex");
    let toml_path = world.project.join(".codex/config.toml");
    let original = read(&toml_path);
    let out = ok(&world.run(&["install", "codex"]));
    assert!(
        out.contains("/hooks"),
        "the trust review is mentioned: {out}"
    );
    let toml = read(&toml_path);
    assert_eq!(
        toml,
        original.replace(
            "web_search_request = true   # search when asked\n",
            "web_search_request = true   # search when asked\ncodex_hooks = true\n"
        )
    );
    assert_eq!(read(&backup(&toml_path)), original);
    // Uninstall leaves the flag.
    ok(&world.run(&["uninstall", "codex"]));
    assert_eq!(read(&toml_path), toml);

    // A flag set to false is turned on; one set to true is left alone.
    let world = World::new();
    let toml_path = world.project.join(".codex/config.toml");
    write(&toml_path, "[features]\nhooks = false\n");
    ok(&world.run(&["install", "codex"]));
    assert_eq!(read(&toml_path), "[features]\nhooks = true\n");
    let world = World::new();
    let toml_path = world.project.join(".codex/config.toml");
    write(&toml_path, "features = { codex_hooks = true }\n");
    ok(&world.run(&["install", "codex"]));
    assert_eq!(read(&toml_path), "features = { codex_hooks = true }\n");
    assert!(!backup(&toml_path).exists());

    // Invalid TOML: refused before anything is written.
    let world = World::new();
    let toml_path = world.project.join(".codex/config.toml");
    write(&toml_path, "model = [\n");
    let out = world.run(&["install", "codex"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is not valid TOML"),
        "{}",
        stderr(&out)
    );
    assert!(!world.project_config("codex").exists());
    assert_eq!(read(&toml_path), "model = [\n");
}

#[test]
fn user_scope_writes_under_home_and_honours_the_agents_home_variables() {
    let world = World::new();
    for agent in AGENTS {
        ok(&world.run(&["install", agent, "--scope", "user"]));
    }
    for (agent, rel) in [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
        ("copilot", ".copilot/hooks/agent-checkpoint.json"),
        ("cursor", ".cursor/hooks.json"),
    ] {
        let doc = json_of(&read(&world.home.join(rel)));
        assert_eq!(ours(&doc).len(), expected_events(agent).len(), "{agent}");
        assert!(
            !world.project_config(agent).exists(),
            "{agent}: project untouched"
        );
    }
    assert!(read(&world.home.join(".codex/config.toml")).contains("codex_hooks = true"));

    // CODEX_HOME, COPILOT_HOME and CLAUDE_CONFIG_DIR move the user's files.
    let world = World::new();
    let elsewhere = world.home.join("elsewhere");
    for (agent, variable, rel) in [
        ("codex", "CODEX_HOME", "hooks.json"),
        ("copilot", "COPILOT_HOME", "hooks/agent-checkpoint.json"),
        ("claude-code", "CLAUDE_CONFIG_DIR", "settings.json"),
    ] {
        let dir = elsewhere.join(variable);
        let out = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
            .args(["install", agent, "--scope", "user"])
            .current_dir(&world.project)
            .env("HOME", &world.home)
            .env(variable, &dir)
            .output()
            .unwrap();
        ok(&out);
        assert!(
            dir.join(rel).exists(),
            "{agent}: {}",
            dir.join(rel).display()
        );
    }
    assert!(!world.home.join(".codex").exists());

    // Without a home directory the user scope is refused.
    let out = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(["install", "cursor", "--scope", "user"])
        .current_dir(&world.project)
        .env_remove("HOME")
        .env_remove("USERPROFILE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("HOME"), "{}", stderr(&out));
}

#[test]
fn project_scope_finds_the_repository_top_from_a_subdirectory() {
    let world = World::new();
    let sub = world.project.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    ok(&world.run_in(&sub, &["install", "claude-code"]));
    assert!(world.project_config("claude-code").exists());
    assert!(!sub.join(".claude").exists());
}

fn doctor(world: &World) -> (Option<i32>, Value) {
    let out = world.run(&["--json", "doctor"]);
    let report: Value =
        serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    (out.status.code(), report)
}

fn state(report: &Value, agent: &str, scope: &str) -> String {
    report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["agent"] == agent && row["scope"] == scope)
        .map(|row| row["state"].as_str().unwrap().to_owned())
        .unwrap()
}

/// Puts an `agent-checkpoint` on PATH: this binary, or a script printing
/// `version`.
#[cfg(unix)]
fn put_program_on_path(world: &World, version: Option<&str>) {
    use std::os::unix::fs::PermissionsExt;
    let target = world.bin_dir.join("agent-checkpoint");
    match version {
        None => {
            std::fs::copy(env!("CARGO_BIN_EXE_agent-checkpoint"), &target).unwrap();
        }
        Some(version) => {
            std::fs::write(&target, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

#[cfg(unix)]
#[test]
fn doctor_tells_not_installed_current_drifted_and_unreadable() {
    let world = World::new();
    put_program_on_path(&world, None);
    let (code, report) = doctor(&world);
    assert_eq!(code, Some(0), "{report}");
    for agent in AGENTS {
        for scope in ["project", "user"] {
            assert_eq!(
                state(&report, agent, scope),
                "not_installed",
                "{agent} {scope}"
            );
        }
    }
    assert_eq!(report["program"]["ours"], true, "{report}");
    assert_eq!(
        report["program"]["version"],
        format!("agent-checkpoint {}", env!("CARGO_PKG_VERSION"))
    );

    for agent in AGENTS {
        world.place_fixture(agent);
        ok(&world.run(&["install", agent]));
    }
    ok(&world.run(&["install", "cursor", "--scope", "user"]));
    let (code, report) = doctor(&world);
    assert_eq!(code, Some(0), "{report}");
    for agent in AGENTS {
        assert_eq!(state(&report, agent, "project"), "current", "{agent}");
    }
    assert_eq!(state(&report, "cursor", "user"), "current");
    assert_eq!(state(&report, "gemini", "user"), "not_installed");

    // Drift: a changed timeout, a removed event, hooks switched off.
    let claude = world.project_config("claude-code");
    write(
        &claude,
        &read(&claude).replace("\"timeout\": 30", "\"timeout\": 5"),
    );
    let cursor = world.project_config("cursor");
    let cursor_doc = {
        let mut doc = json_of(&read(&cursor));
        doc["hooks"].as_object_mut().unwrap().remove("sessionEnd");
        doc
    };
    write(&cursor, &serde_json::to_string_pretty(&cursor_doc).unwrap());
    let gemini = world.project_config("gemini");
    write(
        &gemini,
        &read(&gemini).replace("\"enabled\": true", "\"enabled\": false"),
    );
    let codex_toml = world.project.join(".codex/config.toml");
    write(
        &codex_toml,
        &read(&codex_toml).replace("codex_hooks = true", "codex_hooks = false"),
    );
    // Unreadable: not JSON any more.
    write(&world.project_config("copilot"), "{ not json");
    let (code, report) = doctor(&world);
    assert_eq!(code, Some(1), "{report}");
    for agent in ["claude-code", "cursor", "gemini", "codex"] {
        assert_eq!(
            state(&report, agent, "project"),
            "drifted",
            "{agent}: {report}"
        );
    }
    assert_eq!(state(&report, "copilot", "project"), "unreadable");
    let text = stdout(&world.run(&["doctor"]));
    assert!(
        text.contains("DRIFTED") && text.contains("UNREADABLE"),
        "{text}"
    );
    assert!(text.contains("missing or changed: sessionEnd"), "{text}");
    assert!(text.contains("codex_hooks = false"), "{text}");

    // install repairs drift, ours still once.
    for agent in ["claude-code", "cursor", "gemini", "codex"] {
        ok(&world.run(&["install", agent]));
        let doc = json_of(&read(&world.project_config(agent)));
        assert_eq!(ours(&doc).len(), expected_events(agent).len(), "{agent}");
    }
    write(&world.project_config("copilot"), "{}");
    let (code, report) = doctor(&world);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(state(&report, "claude-code", "project"), "current");
    assert_eq!(state(&report, "copilot", "project"), "not_installed");

    // The program on PATH: another version, then none.
    put_program_on_path(&world, Some("agent-checkpoint 0.0.1"));
    let (code, report) = doctor(&world);
    assert_eq!(code, Some(1), "installed hooks would run another version");
    assert_eq!(report["program"]["ours"], false);
    assert_eq!(report["program"]["version"], "agent-checkpoint 0.0.1");
    let text = stdout(&world.run(&["doctor"]));
    assert!(text.contains("NOT this version"), "{text}");
}

#[cfg(unix)]
#[test]
fn the_mode_is_kept_and_a_symlinked_config_stays_a_symlink() {
    use std::os::unix::fs::PermissionsExt;
    let world = World::new();
    let original = world.place_fixture("claude-code");
    let config = world.project_config("claude-code");
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    ok(&world.run(&["install", "claude-code"]));
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&config), 0o600);
    assert_eq!(mode(&backup(&config)), 0o600);
    assert_eq!(read(&backup(&config)), original);

    // A dotfile kept in another directory through a symlink.
    let world = World::new();
    let dotfiles = world.home.join("dotfiles/claude-settings.json");
    write(&dotfiles, &original);
    let link = world.home.join(".claude/settings.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&dotfiles, &link).unwrap();
    ok(&world.run(&["install", "claude-code", "--scope", "user"]));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(ours(&json_of(&read(&dotfiles))).len(), 6);
}

#[test]
fn an_unknown_agent_is_refused_by_name() {
    let world = World::new();
    let out = world.run(&["install", "vim"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("unknown agent \"vim\"") && err.contains("claude-code"),
        "{err}"
    );
}
